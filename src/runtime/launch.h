// src/runtime/launch.h: specialization lookup and running a compiled kernel entry on the thread pool.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "quadrants/array.h"
#include "quadrants/dtype.h"
#include "quadrants/kernel_abi.h"
#include "quadrants/thread_pool.h"

namespace qd {

struct CudaCompiledKernel;  // include/quadrants/cuda_jit.h
struct OptimizedBuild;      // src/jit/tiered_build.h

// Arguments are packed on the launching thread's stack (144 bytes each, so 72 KiB at most): as many
// as upstream takes (its tests pass 512 ndarrays), without a heap allocation per launch.
inline constexpr int kMaxKernelArgs = 512;

// What selects a specialization for one array argument: everything but its shape, packed in 64
// bits so the per-call lookup is a few integer compares.
uint64_t array_signature(const ArrayView& view, int element_ndim);

// One compiled variant of a kernel; `keep` owns what keeps `entry` loaded.
struct Specialization {
  std::vector<uint64_t> key;
  // entry, keep and upgrade change once, when tiered compile swaps the optimized build in (jit::swap_in_optimized,
  // with launch_gate() held exclusively, so no kernel runs meanwhile); hence mutable in a table of const entries.
  mutable QdKernelEntry entry = nullptr;
  std::vector<DtypeCode> returns;  // one QdArg of `ret` per entry
  const std::vector<std::string>* assert_messages = nullptr;  // owned by keep
  mutable std::shared_ptr<const void> keep;
  // Tiered compile: the optimized build that replaces `entry` once loaded; null when there is none (any more).
  mutable std::shared_ptr<OptimizedBuild> upgrade;
  std::shared_ptr<const CudaCompiledKernel> cuda;  // set instead of entry on the CUDA target
  // Fields the variant was compiled against (appended after the arguments), and every argument's
  // name for error messages: both belong to the variant, since a field rebound to another dtype
  // compiles a new variant while old ones stay in the table.
  std::vector<std::shared_ptr<Array>> globals;
  std::vector<std::string> arg_names;
  // The last run finished within a few microseconds: the next one keeps the GIL (see bind_launch.cpp).
  mutable bool short_run = false;
  int num_tasks = 1;  // CompiledKernel::num_tasks, or the CUDA kernel's task count
};

// An inline compare: the key is a handful of words, not worth a call into libc.
inline bool same_key(const Specialization& spec, const uint64_t* key, size_t n) {
  if (spec.key.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (spec.key[i] != key[i]) return false;
  }
  return true;
}

class SpecializationTable {
 public:
  const Specialization* find(const uint64_t* key, int n) const;
  const Specialization& add(Specialization spec);
  void clear() { entries_.clear(); }
  template <class Predicate>
  int count_if(Predicate predicate) const {
    int count = 0;
    for (const auto& entry : entries_) count += predicate(*entry) ? 1 : 0;
    return count;
  }

 private:
  std::vector<std::unique_ptr<Specialization>> entries_;  // stable addresses
};

// Launches hold this shared while a kernel runs; freeing memory a kernel may use (qd.reset(),
// dropping compiled variants, resizing the pool) takes it exclusively, so it waits for them.
std::shared_mutex& launch_gate();

// Runs a specialization over args on the default thread pool. A bounds error reported by the kernel becomes an
// IndexError naming the kernel, the argument (arg_names[i], or "#i"), the index and the shape; a
// failed qd assert becomes an AssertionError with its message.
void run_entry(const Specialization& spec, const QdArg* args, QdArg* ret, const std::string& kernel,
               const std::vector<std::string>& arg_names);

}  // namespace qd
