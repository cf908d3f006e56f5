// include/quadrants/thread_pool.h: the persistent CPU thread pool that runs kernels' parallel loops.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "quadrants/kernel_abi.h"

namespace qd {

class ThreadPool {
 public:
  // num_threads <= 0 means one per hardware thread. The caller of parallel_for is one of them.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs fn over [0, n) in chunks of at least grain and returns when all are done. Small loops and
  // serialize != 0 run on the calling thread, so tiny kernels never pay for a wake-up.
  void parallel_for(int64_t n, int64_t grain, bool serialize, QdTaskFn fn, void* closure);

  // The QdLaunchContext::parallel_for callback; pool is a ThreadPool*.
  static void parallel_for_callback(void* pool, int64_t n, int64_t grain, int32_t serialize, QdTaskFn fn,
                                    void* closure);

 private:
  struct Job {
    QdTaskFn fn = nullptr;
    void* closure = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    std::atomic<int64_t> next{0};
    std::atomic<int> pending_workers{0};
  };

  void worker_loop();
  void run_chunks(Job& job);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;  // guards job_, generation_, stop_; one parallel_for at a time
  std::mutex launch_mutex_;
  std::condition_variable wake_;
  Job job_;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

// The process-wide pool, created on first use with set_num_threads' size (qd.init(cpu_max_num_threads=...));
// a new size drops the old pool once no kernel runs. A forked child gets a new pool on first use.
ThreadPool& default_thread_pool();
void set_num_threads(int num_threads);

// Runs `rounds` loops of growing size (some serialized) on a fresh pool of num_threads threads and tells whether
// every loop ran each of its indices exactly once (src/runtime/thread_pool_check.cpp).
bool check_thread_pool(int num_threads, int rounds);

}  // namespace qd
