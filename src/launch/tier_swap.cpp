// src/launch/tier_swap.cpp: tiered compile's swap of a variant's quick build for its optimized build (the build
// itself is src/jit/tiered_build.cpp's).
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "jit/tiered_build.h"
#include "launch/specialization.h"
#include "runtime/launch.h"

namespace qd {

void swap_in_optimized(const Specialization& spec) {
  OptimizedBuild& build = *spec.upgrade;
  int state = jit::poll_optimized_build(build);
  if (state == OptimizedBuild::kPending) return;
  if (state == OptimizedBuild::kReady) {
    // Held, no kernel runs in any thread: none is in the quick code or about to read `entry` (launches read it
    // with the gate held shared). A kernel running in another thread defers the swap to a later launch.
    std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate(), std::try_to_lock);
    if (!no_kernel_running.owns_lock()) return;
    spec.entry = build.entry;
    // The quick build's owner stays, beside the optimized library: the assert messages `spec` points at are its,
    // and the quick library stays loaded as long as the variant lives, so nothing ever runs unloaded code.
    using Both = std::pair<std::shared_ptr<const void>, std::shared_ptr<void>>;
    auto both = std::make_shared<Both>(spec.keep, build.library);
    spec.keep = std::shared_ptr<const void>(both, both.get());
  }
  spec.upgrade.reset();
}

}  // namespace qd
