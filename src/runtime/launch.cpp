// src/runtime/launch.cpp: running a CPU kernel entry with error reporting, and the launch gate.
#include "runtime/launch.h"

#include <chrono>

#include "quadrants/thread_pool.h"
#include "runtime/kernel_error.h"
#include "runtime/kernel_profiler.h"

namespace qd {

std::shared_mutex& launch_gate() {
  static std::shared_mutex gate;
  return gate;
}

void run_entry(QdKernelEntry entry, const QdArg* args, QdArg* ret, const std::string& kernel,
               const std::vector<std::string>& arg_names, const std::vector<std::string>* assert_messages) {
  QdKernelError error{};
  int32_t error_flag = 0;
  // The pool is looked up under the gate: set_num_threads replaces it only when no kernel runs.
  QdLaunchContext ctx{&default_thread_pool(), &ThreadPool::parallel_for_callback, &error, &error_flag};
  if (!kernel_profiling()) {
    entry(args, &ctx, ret);
  } else {
    auto start = std::chrono::steady_clock::now();
    entry(args, &ctx, ret);
    auto elapsed = std::chrono::steady_clock::now() - start;
    record_kernel_time(kernel, std::chrono::duration<double, std::milli>(elapsed).count());
  }
  if (error_flag == 0) return;
  raise_kernel_error(kernel, error, args, static_cast<int>(arg_names.size()), arg_names, assert_messages);
}

}  // namespace qd
