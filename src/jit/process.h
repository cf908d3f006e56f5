// src/jit/process.h: runs the compiler as a program with an argument vector, never through a shell.
#pragma once

#include <string>
#include <vector>

namespace qd::jit {

// Splits a command such as $CXX into words as a POSIX shell would, without expanding anything:
// blanks separate words, quotes group them ('...' literally, "..." with \ escaping " \ $ `).
// Throws ValueError for an unterminated quote.
std::vector<std::string> split_command_words(const std::string& command);

// One word quoted so that split_command_words gives it back unchanged.
std::string quote_command_word(const std::string& word);

// The compiler command for a $CXX value, as build tools read it: the value as one word (quoted for
// split_command_words) when it names an existing file, so a path with blanks in it works; otherwise the
// value itself, split later like a shell ("ccache g++", "'/opt/my tools/g++' -O2").
std::string command_from_cxx(const std::string& value);

// Runs argv[0] (searched in PATH) with argv; returns its exit status (-1 when it could not be
// started, 128 + N when killed by signal N) and appends its stdout and stderr to *output.
int run_program(const std::vector<std::string>& argv, std::string* output);

// A program started by start_program and not yet waited for.
struct StartedProgram {
  int pid = -1;     // -1: it could not be started (output_fd then holds -1 too)
  int output_fd = -1;  // read end of its stdout and stderr
  bool own_group = false;  // it leads a process group of its own, which kill_program stops whole
};

// Starts argv[0] (searched in PATH) with argv, its stdout and stderr into a pipe; `stdin_fd` (or -1 for
// none) becomes its standard input; `own_group` puts it in a new process group. On failure, appends why
// to *output and returns pid -1.
StartedProgram start_program(const std::vector<std::string>& argv, int stdin_fd, std::string* output,
                             bool own_group = false);

// Reads the program's output to its end, appending it to *output, and reaps it; returns the exit
// status as run_program does.
int wait_program(StartedProgram program, std::string* output);

// Stops a started program (SIGKILL; its whole group when it has one, so that a compiler driver's
// cc1plus and as stop too) and reaps it, discarding its output.
void kill_program(StartedProgram program);

// Background builds (tiered_build.cpp): programs that run_program starts on a thread that called
// track_programs_of_this_thread() run in a process group of their own and stay listed until they end, so that
// stop_tracked_programs() can kill them (at exit, where the build is abandoned). From then on such threads start
// no program: run_program returns -1. A forked child lists nothing of its parent's.
void track_programs_of_this_thread();
void stop_tracked_programs();

}  // namespace qd::jit
