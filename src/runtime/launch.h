// src/runtime/launch.h: running a compiled CPU kernel entry on the thread pool, and the gate that keeps
// memory alive while kernels run. What to run and with which arguments is src/launch/'s.
#pragma once

#include <shared_mutex>
#include <string>
#include <vector>

#include "quadrants/kernel_abi.h"

namespace qd {

// A kernel may take any number of arguments, as upstream's (a qd.types.vector(1024) parameter fills 1024 QdArgs).
// A launch packs up to this many on the launching thread's stack (240 bytes each, 60 KiB): kernels with more
// pack theirs in a buffer their launcher keeps for the next call (src/launch/launch_frame.h), so neither kind
// allocates per launch. A CUDA launch slot (runtime/cuda/launch.cpp) holds as many; more go through a buffer of
// their own.
inline constexpr int kInlineKernelArgs = 256;

// Launches hold this shared while a kernel runs; freeing memory a kernel may use (qd.reset(),
// dropping compiled variants, resizing the pool) takes it exclusively, so it waits for them.
std::shared_mutex& launch_gate();

// Runs a kernel entry over args on the default thread pool; the caller holds launch_gate() shared. A
// bounds error reported by the kernel becomes an IndexError naming the kernel, the argument (arg_names[i],
// or "#i"), the index and the shape; a failed qd assert becomes an AssertionError with its message
// (assert_messages, owned by the kernel).
void run_entry(QdKernelEntry entry, const QdArg* args, QdArg* ret, const std::string& kernel,
               const std::vector<std::string>& arg_names, const std::vector<std::string>* assert_messages);

}  // namespace qd
