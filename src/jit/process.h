// src/jit/process.h: runs the compiler as a program with an argument vector, never through a shell.
#pragma once

#include <string>
#include <vector>

namespace qd::jit {

// Splits a command such as $CXX into words as a POSIX shell would, without expanding anything:
// blanks separate words, quotes group them ('...' literally, "..." with \ escaping " \ $ `).
// Throws ValueError for an unterminated quote.
std::vector<std::string> split_command_words(const std::string& command);

// Runs argv[0] (searched in PATH) with argv; returns its exit status (-1 when it could not be
// started, 128 + N when killed by signal N) and appends its stdout and stderr to *output.
int run_program(const std::vector<std::string>& argv, std::string* output);

}  // namespace qd::jit
