// src/jit/tiered_build.h: tiered compile: a kernel missing from the disk cache first runs a quick build, while its
// optimized build compiles in the background and replaces it between two launches.
//
// The quick build (compiler.cpp's Tier::quick: -O1, or -O0 for sources past QD_LARGE_KERNEL_BYTES) compiles
// several times faster than the optimized one; the optimized build is what every kernel ran before tiers existed
// (same flags, same cache entry). Only the optimization level differs, so kernels without fast_math give
// bit-identical results in both; fast_math kernels are tiered only under TieredCompile::all. CUDA kernels (NVRTC)
// are never tiered. Background builds run on worker threads, one per core the program leaves idle (at most
// kMaxWorkers), whose compilers run at a lower priority (nice +kBackgroundNice), so the program and its
// foreground compiles go first. A KernelLauncher keeps the kernel's OptimizedBuild in its variant and calls
// swap_in_optimized() (src/launch/tier_swap.cpp) before each launch: once the build has loaded, and while no kernel
// runs in any thread, the variant's entry becomes the optimized one. The quick library stays loaded as long as
// the variant lives, so nothing can run code that was unloaded.
//
// Stored in the disk cache: the quick build (NAME-quick-KEY.so), so that a process started before the optimized
// build finished starts at once too, and the optimized one (NAME-KEY.so), after which the quick entry is removed.
// A cached optimized build is used directly; a cached quick build is used and the optimized one is built again in
// the background. A failed or crashed optimized build leaves the quick one running, with one warning per process.
// At exit, running background compilers are killed and queued builds dropped (the quick entry stays cached). A
// forked child queues again the builds its parent had not finished and runs them on workers of its own.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "jit/compiler.h"
#include "quadrants/kernel_abi.h"

namespace qd {

// The optimized build of one kernel (include/quadrants/jit.h holds it by pointer in CompiledKernel::optimized).
// Written by one background worker, read by launchers: entry and library are set before state becomes kReady
// (release), and never change afterwards.
struct OptimizedBuild {
  enum State : int { kPending, kReady, kFailed };
  std::atomic<int> state{kPending};
  QdKernelEntry entry = nullptr;
  std::shared_ptr<void> library;  // keeps entry loaded
  std::string kernel_name;
};

namespace jit {

inline constexpr int kMaxWorkers = 4;       // each GCC on a big kernel may take a GiB or more of memory
inline constexpr int kBackgroundNice = 10;  // background compilers' niceness above the program's

// Whether compile_kernel(text, tiered=true) builds this kernel in two tiers: the tiers' flags differ, and the
// source is at least QD_TIERED_COMPILE_BYTES long (read on each call; see tiered_build.cpp for the default):
// below that, a kernel compiles at -O3 in about the time of its quick build, and a second compile costs more
// than it saves.
bool worth_tiering(const std::string& source);

// Queues the optimized build of a kernel whose quick build is running. The caller keeps the result and polls it.
std::shared_ptr<OptimizedBuild> start_optimized_build(const std::string& kernel_name, const std::string& source,
                                                      const BuildOptions& options);

// Waits until every optimized build queued so far has loaded or failed; false when timeout_seconds (unless
// negative: no limit) passed first.
bool wait_for_optimized_builds(double timeout_seconds);

// Builds queued or running (for tests and qd's introspection).
int optimized_builds_pending();

// The build's state (OptimizedBuild::State), for a launcher deciding whether to swap: one atomic load, except in a
// forked child whose parent's workers were lost, where the first poll starts workers of its own.
int poll_optimized_build(const OptimizedBuild& build);

}  // namespace jit
}  // namespace qd
