// src/runtime/launch.cpp: specialization keys and kernel launch with error reporting.
#include "runtime/launch.h"

#include <chrono>
#include <cstring>

#include "runtime/kernel_error.h"
#include "runtime/kernel_profiler.h"

namespace qd {

uint64_t array_signature(const ArrayView& view, int element_ndim) {
  int outer = view.ndim - element_ndim;
  uint64_t sig = static_cast<uint64_t>(view.dtype) | (static_cast<uint64_t>(outer) << 8) |
                 (static_cast<uint64_t>(view.is_contiguous()) << 12) |
                 (static_cast<uint64_t>(view.writable) << 13) |
                 (static_cast<uint64_t>(view.device.kind) << 14) |
                 (static_cast<uint64_t>(element_ndim) << 16);
  for (int e = 0; e < element_ndim && e < 2; ++e) {
    sig |= (static_cast<uint64_t>(view.shape[outer + e]) & 0xffff) << (20 + 16 * e);
  }
  return sig;
}

const Specialization* SpecializationTable::find(const uint64_t* key, int n) const {
  for (const auto& entry : entries_) {
    if (same_key(*entry, key, static_cast<size_t>(n))) {
      return entry.get();
    }
  }
  return nullptr;
}

const Specialization& SpecializationTable::add(Specialization spec) {
  entries_.push_back(std::make_unique<Specialization>(std::move(spec)));
  return *entries_.back();
}

std::shared_mutex& launch_gate() {
  static std::shared_mutex gate;
  return gate;
}

void run_entry(const Specialization& spec, const QdArg* args, QdArg* ret, const std::string& kernel,
               const std::vector<std::string>& arg_names) {
  QdKernelError error{};
  int32_t error_flag = 0;
  {
    // The pool is looked up under the gate: set_num_threads replaces it only when no kernel runs.
    std::shared_lock<std::shared_mutex> running(launch_gate());
    QdLaunchContext ctx{&default_thread_pool(), &ThreadPool::parallel_for_callback, &error, &error_flag};
    if (!kernel_profiling()) {
      spec.entry(args, &ctx, ret);
    } else {
      auto start = std::chrono::steady_clock::now();
      spec.entry(args, &ctx, ret);
      auto elapsed = std::chrono::steady_clock::now() - start;
      record_kernel_time(kernel, std::chrono::duration<double, std::milli>(elapsed).count());
    }
  }
  if (error_flag == 0) return;
  raise_kernel_error(kernel, error, args, static_cast<int>(arg_names.size()), arg_names, spec.assert_messages);
}

}  // namespace qd
