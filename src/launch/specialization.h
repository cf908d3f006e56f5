// src/launch/specialization.h: one compiled variant of a kernel, as a KernelLauncher keeps it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quadrants/launch.h"

namespace qd {

// `keep` owns what keeps `entry` (or `cuda`'s module) loaded.
struct Specialization {
  std::vector<uint64_t> key;  // per parameter: 0 for a scalar, array_signature() for an array
  // entry, keep and upgrade change only in swap_in_optimized, with launch_gate() held exclusively so that no kernel
  // runs meanwhile; hence mutable, in variants that launches otherwise only read.
  mutable QdKernelEntry entry = nullptr;
  std::shared_ptr<const CudaCompiledKernel> cuda;  // set instead of entry for a CUDA variant
  std::vector<DtypeCode> returns;  // the returned values' types, in order
  const std::vector<std::string>* assert_messages = nullptr;  // owned by keep
  mutable std::shared_ptr<const void> keep;
  // Tiered compile: the optimized build compiling in the background (CompiledKernel::optimized), which replaces
  // `entry` between two launches once it has loaded; null when there is none, or no more.
  mutable std::shared_ptr<OptimizedBuild> upgrade;
  // Fields the variant was compiled against (appended after the arguments), and every kernel parameter's
  // name for error messages: both belong to the variant, since a field rebound to another dtype compiles a
  // new variant while old ones stay.
  std::vector<std::shared_ptr<Array>> globals;
  std::vector<std::string> arg_names;
  // The last run took under about 20 us: the next one does not call LaunchHooks::release(), which would
  // cost as much as the run (the Python bindings: the GIL, about 45 ns). A longer run releases again from
  // the next call on, so another thread waits at most one short run when a kernel's work grows.
  mutable bool short_run = false;
  int num_tasks = 1;  // CompiledKernel::num_tasks, or the CUDA kernel's task count
};

// Tiered compile, called before each launch of a variant whose `upgrade` is set, with the launcher's caller
// holding whatever serializes its launches (LaunchHooks' lock: the GIL in Python): once the optimized build has
// loaded and no kernel runs in any thread (launch_gate() free), `entry` becomes the optimized build's, `keep` holds
// both libraries and `upgrade` is cleared; once it has failed, `upgrade` is cleared and the quick build stays.
// Otherwise (every launch until the build is done) an atomic load. (src/launch/tier_swap.cpp)
void swap_in_optimized(const Specialization& spec);

// An inline compare: the key is a handful of words, not worth a call into libc.
inline bool same_key(const Specialization& spec, const uint64_t* key, size_t n) {
  if (spec.key.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (spec.key[i] != key[i]) return false;
  }
  return true;
}

}  // namespace qd
