// src/runtime/thread_pool.cpp: a persistent pool with one shared job and dynamic chunk claiming.
#include "quadrants/thread_pool.h"

#include "runtime/launch.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace qd {

ThreadPool::ThreadPool(int num_threads) {
  num_threads_ = num_threads > 0 ? num_threads : std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_chunks(Job& job) {
  for (;;) {
    int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.n) return;
    job.fn(job.closure, begin, std::min(job.n, begin + job.chunk));
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_chunks(job_);
    job_.pending_workers.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, bool serialize, QdTaskFn fn, void* closure) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (serialize || num_threads_ == 1 || n <= grain) {
    fn(closure, 0, n);
    return;
  }
  // Nested or concurrent launches (another Python thread) run serially rather than wait.
  std::unique_lock<std::mutex> launch(launch_mutex_, std::try_to_lock);
  if (!launch.owns_lock()) {
    fn(closure, 0, n);
    return;
  }
  // About four chunks per thread balances uneven iterations without much claiming traffic.
  int64_t chunk = std::max(grain, (n + num_threads_ * 4 - 1) / (num_threads_ * 4));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_.fn = fn;
    job_.closure = closure;
    job_.n = n;
    job_.chunk = chunk;
    job_.next.store(0, std::memory_order_relaxed);
    job_.pending_workers.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    ++generation_;
  }
  wake_.notify_all();
  run_chunks(job_);
  // Workers finish their last chunk and check out; spin briefly, then yield.
  for (int spins = 0; job_.pending_workers.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins > 1000) std::this_thread::yield();
  }
}

void ThreadPool::parallel_for_callback(void* pool, int64_t n, int64_t grain, int32_t serialize, QdTaskFn fn,
                                       void* closure) {
  static_cast<ThreadPool*>(pool)->parallel_for(n, grain, serialize != 0, fn, closure);
}

namespace {
std::unique_ptr<ThreadPool>& pool_slot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}
}  // namespace

ThreadPool& default_thread_pool() {
  static std::once_flag created;  // two first launches on different threads must not both create it
  std::call_once(created, [] {
    if (!pool_slot()) pool_slot() = std::make_unique<ThreadPool>(0);
  });
  return *pool_slot();
}

void set_num_threads(int num_threads) {
  std::unique_ptr<ThreadPool>& pool = pool_slot();
  int wanted = num_threads > 0 ? num_threads : std::max(1u, std::thread::hardware_concurrency());
  if (pool && pool->num_threads() == wanted) return;
  std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate());
  pool = std::make_unique<ThreadPool>(wanted);
}

}  // namespace qd
