// src/jit/spare_compiler.h: a C++ compiler started before the kernel it will compile exists.
//
// GCC spends about 8 ms of a small kernel's compile before it reaches the kernel's own code: starting the
// driver, cc1plus and as, setting up its back end, and reading the runtime header. A spare does that while
// the previous kernel compiles: its main file is the runtime header followed by `#include "/dev/stdin"`, and
// its standard input is a pipe, so it waits there until the next kernel's code is written into the pipe.
#pragma once

#include <string>
#include <vector>

namespace qd::jit {

// `argv` is the compiler command and its flags, compiling to an object file (-c); `prefix` is the text that
// generated kernels share (the expanded runtime header). When a spare started with the same argv and prefix
// is waiting and `source` is `prefix` after leading `//` comment lines, the rest of `source` goes to that
// spare, and a new spare starts (for the next kernel, while this one compiles): on kBuilt the object file
// is *object, inside *work_dir (the caller removes it). kNoSpare: no such spare, or `source` has another
// shape; kFailed: the spare did not build it. Either way the caller then compiles `source` as usual, which
// also gives its diagnostics their usual file and line; when that succeeds where a spare failed, the caller
// calls disable_spares().
enum class SpareResult { kNoSpare, kBuilt, kFailed };
SpareResult compile_on_spare(const std::vector<std::string>& argv, const std::string& prefix,
                             const std::string& source, std::string* work_dir, std::string* object);

// Spares do not work here (e.g. no /dev/stdin): stops the waiting one, and starts none again in this process.
void disable_spares();

// Starts a spare for argv and prefix, unless one is waiting for them; a spare for anything else is stopped
// first (one at a time, for the configuration compiled last). Best effort: a failure leaves no spare.
void start_spare(const std::vector<std::string>& argv, const std::string& prefix);

// For tests: how many compiles a spare has done in this process, and whether one is waiting.
int spare_compiles();
bool spare_waiting();

}  // namespace qd::jit
