// src/runtime/kernel_profiler.h: per-kernel launch times, kept while qd.init(kernel_profiler=True).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace qd {

struct KernelTimes {
  std::string name;
  int64_t count = 0;
  double total_ms = 0, min_ms = 0, max_ms = 0;
};

namespace detail {
extern std::atomic<bool> g_kernel_profiling;
}

// Off by default; the launch paths test this one flag (a relaxed load) before timing anything.
inline bool kernel_profiling() { return detail::g_kernel_profiling.load(std::memory_order_relaxed); }
void set_kernel_profiling(bool on);
// Adds one launch of `name` that took `ms` (wall time from launch to completion).
void record_kernel_time(const std::string& name, double ms);
// Every kernel launched since the last clear, in first-launch order.
std::vector<KernelTimes> kernel_times();
void clear_kernel_times();

}  // namespace qd
