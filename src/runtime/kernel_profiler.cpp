// src/runtime/kernel_profiler.cpp: the kernel profiler's table, guarded by a mutex (taken only while profiling).
#include "runtime/kernel_profiler.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace qd {
namespace detail {
std::atomic<bool> g_kernel_profiling{false};
}

namespace {

std::mutex g_mutex;
std::vector<KernelTimes>& table() {
  static std::vector<KernelTimes> rows;
  return rows;
}
std::map<std::string, size_t>& row_of() {
  static std::map<std::string, size_t> rows;
  return rows;
}

}  // namespace

void set_kernel_profiling(bool on) { detail::g_kernel_profiling.store(on, std::memory_order_relaxed); }

void record_kernel_time(const std::string& name, double ms) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto [found, added] = row_of().emplace(name, table().size());
  if (added) table().push_back({name, 0, 0.0, ms, ms});
  KernelTimes& row = table()[found->second];
  row.count += 1;
  row.total_ms += ms;
  row.min_ms = std::min(row.min_ms, ms);
  row.max_ms = std::max(row.max_ms, ms);
}

std::vector<KernelTimes> kernel_times() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return table();
}

void clear_kernel_times() {
  std::lock_guard<std::mutex> lock(g_mutex);
  table().clear();
  row_of().clear();
}

}  // namespace qd
