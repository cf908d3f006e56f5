// src/runtime/thread_pool.cpp: a persistent pool with one shared job and dynamic chunk claiming.
#include "quadrants/thread_pool.h"

#include "runtime/launch.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>

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

// The process-wide pool. Launches read `current_pool` (one acquire load); it is null until the
// first launch needs a pool and again in a forked child, where the pool's workers do not exist.
std::atomic<ThreadPool*> current_pool{nullptr};
std::unique_ptr<ThreadPool> owned_pool;  // what current_pool points at
int requested_threads = 0;               // set_num_threads' argument; <= 0: one per hardware thread
// Guards owned_pool and requested_threads. Lock order: launch_gate() first, then this.
std::mutex pool_mutex;

int resolve_threads(int num_threads) {
  return num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Out of line, so default_thread_pool() is a load and a branch.
[[gnu::noinline]] ThreadPool& create_default_pool() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (!owned_pool) {
    owned_pool = std::make_unique<ThreadPool>(resolve_threads(requested_threads));
    current_pool.store(owned_pool.get(), std::memory_order_release);
  }
  return *owned_pool;
}

// fork() copies only the calling thread, so a child sees the parent's pool without its workers (a
// launch would wait for them forever) and may see the locks below held by threads it does not
// have. The child forgets the pool (leaked: destroying it would join threads that are not there)
// and makes fresh locks; its first launch creates a new pool of the same size. Nothing is created
// here, so a fork that goes on to exec costs nothing.
void reset_after_fork_in_child() {
  (void)owned_pool.release();
  current_pool.store(nullptr, std::memory_order_relaxed);
  new (&pool_mutex) std::mutex();
  new (&launch_gate()) std::shared_mutex();  // a kernel running on another thread held it
}

[[maybe_unused]] const int fork_handler_registered = pthread_atfork(nullptr, nullptr, &reset_after_fork_in_child);

}  // namespace

ThreadPool& default_thread_pool() {
  ThreadPool* pool = current_pool.load(std::memory_order_acquire);
  return pool ? *pool : create_default_pool();
}

void set_num_threads(int num_threads) {
  int wanted = resolve_threads(num_threads);
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    requested_threads = num_threads;
    if (!owned_pool || owned_pool->num_threads() == wanted) return;  // the next launch makes it
  }
  std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate());
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (owned_pool && owned_pool->num_threads() != resolve_threads(requested_threads)) {
    current_pool.store(nullptr, std::memory_order_relaxed);
    owned_pool.reset();
  }
}

}  // namespace qd
