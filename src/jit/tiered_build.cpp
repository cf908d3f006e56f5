// src/jit/tiered_build.cpp: the background workers of tiered compile and the launcher's swap; see tiered_build.h.
#include "jit/tiered_build.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "jit/process.h"

namespace qd::jit {
namespace {

// Sources shorter than this compile in one tier. Measured on Genesis' kernels (docs/genesis_profile.md): a kernel
// of this size (the runtime header is 42 KB of it) takes about 0.1 s at -O3, and its quick build saves a few tens
// of milliseconds, less than the second compile costs the machine.
constexpr size_t kDefaultTieredBytes = 128 * 1024;

struct Job {
  std::string kernel_name, source;
  BuildOptions options;
  std::shared_ptr<OptimizedBuild> build;
};

// The workers and their queue. Never destroyed (a worker may still be finishing while static destructors run);
// stop_at_exit() stops and joins the workers first.
struct Pool {
  std::mutex mutex;                  // guards everything below
  std::condition_variable changed;   // a job was queued or finished, or the pool is stopping
  std::deque<std::shared_ptr<Job>> queue;
  std::vector<std::shared_ptr<Job>> running;
  std::vector<std::thread>* threads = new std::vector<std::thread>;
  bool stopping = false;
  bool exit_handler = false;     // stop_at_exit is registered
  bool lost_workers = false;     // a forked child: the parent's workers are not here (see the fork handler)
};
Pool& pool = *new Pool;

std::atomic<bool> lost_workers_flag{false};  // pool.lost_workers, read without the lock by swap_in_optimized
std::atomic<int> failures_reported{0};

int max_workers() {
  int idle = static_cast<int>(std::thread::hardware_concurrency()) - 1;
  return std::clamp(idle, 1, kMaxWorkers);
}

// The first failure in this process says what happened; later ones would repeat it for every kernel.
void report_failure(const std::string& kernel_name, const std::string& why) {
  if (failures_reported.fetch_add(1) != 0) return;
  std::string first_lines = why.substr(0, why.find('\n', why.find('\n') + 1));
  std::fprintf(stderr,
               "quadrants: warning: the optimized build of kernel '%s' failed, so it keeps running its quick build "
               "(tiered compile). Later failures of optimized builds are not reported; QD_TIERED_COMPILE=0 compiles "
               "each kernel optimized at once, with the compiler's whole error. The error: %s\n",
               kernel_name.c_str(), first_lines.c_str());
}

void build(Job& job) {
  BuildOptions optimized = job.options;
  optimized.tier = Tier::optimized;
  optimized.in_background = true;
  try {
    LoadedLibrary lib = compile_and_load(job.kernel_name, job.source, optimized);
    job.build->library = lib.handle;
    job.build->entry = lib.entry;
    job.build->state.store(OptimizedBuild::kReady, std::memory_order_release);
    BuildOptions quick = optimized;
    quick.tier = Tier::quick;
    remove_cached(job.kernel_name, job.source, quick);  // the optimized entry, just stored, is found first
  } catch (const std::exception& e) {
    job.build->state.store(OptimizedBuild::kFailed, std::memory_order_release);
    bool stopping;
    {
      std::lock_guard<std::mutex> lock(pool.mutex);
      stopping = pool.stopping;
    }
    if (!stopping) report_failure(job.kernel_name, e.what());  // at exit its compiler was killed on purpose
  }
}

void work() {
  // Linux's niceness is per thread, and the compilers this thread starts inherit it.
  errno = 0;
  int nice_now = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
  if (errno == 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), nice_now + kBackgroundNice);
  track_programs_of_this_thread();
  std::unique_lock<std::mutex> lock(pool.mutex);
  while (true) {
    pool.changed.wait(lock, [] { return pool.stopping || !pool.queue.empty(); });
    if (pool.stopping) return;
    std::shared_ptr<Job> job = std::move(pool.queue.front());
    pool.queue.pop_front();
    pool.running.push_back(job);
    lock.unlock();
    build(*job);
    lock.lock();
    pool.running.erase(std::find(pool.running.begin(), pool.running.end(), job));
    pool.changed.notify_all();
  }
}

// Kills the background compilers and joins the workers, before static destructors run: a worker must not outlive
// what it uses. Registered with atexit when the first worker starts.
void stop_at_exit() {
  std::vector<std::thread>* threads;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.stopping = true;
    pool.queue.clear();
    threads = pool.threads;
  }
  pool.changed.notify_all();
  stop_tracked_programs();
  for (std::thread& thread : *threads) {
    if (thread.joinable()) thread.join();
  }
}

// With pool.mutex held: starts workers up to what the queued and running builds can use.
void add_workers_locked() {
  if (pool.lost_workers) {  // a forked child: the parent's builds that had not finished are queued again
    pool.lost_workers = false;
    lost_workers_flag.store(false, std::memory_order_relaxed);
  }
  if (!pool.exit_handler) {
    pool.exit_handler = true;
    std::atexit(stop_at_exit);
  }
  size_t wanted = std::min(pool.queue.size() + pool.running.size(), static_cast<size_t>(max_workers()));
  while (pool.threads->size() < wanted) pool.threads->emplace_back(work);
}

// A forked child's set-aside copy of its parent's worker list: held here so that it stays reachable (a leak
// checker would report it otherwise). A child without inherited workers keeps its empty list.
std::vector<std::thread>* forgotten_threads = nullptr;

// A forked child has none of its parent's threads: it forgets them (never joined, never destroyed) and queues
// again what they were building. New workers start at the next build queued, wait or launch (not here: a child
// that goes on to exec should cost nothing).
[[maybe_unused]] const int fork_handler = pthread_atfork(
    [] { pool.mutex.lock(); }, [] { pool.mutex.unlock(); },
    [] {
      new (&pool.mutex) std::mutex();
      new (&pool.changed) std::condition_variable();
      if (!pool.threads->empty()) {  // the parent's thread objects are joinable: never destroyed, only set aside
        forgotten_threads = pool.threads;
        pool.threads = new std::vector<std::thread>;
      }
      for (std::shared_ptr<Job>& job : pool.running) pool.queue.push_front(std::move(job));
      pool.running.clear();
      pool.stopping = false;
      pool.exit_handler = false;
      pool.lost_workers = !pool.queue.empty();
      lost_workers_flag.store(pool.lost_workers, std::memory_order_relaxed);
    });

bool is_done() { return pool.queue.empty() && pool.running.empty(); }

}  // namespace

bool worth_tiering(const std::string& source) {
  const char* text = std::getenv("QD_TIERED_COMPILE_BYTES");
  size_t least = kDefaultTieredBytes;
  if (text && *text) {
    char* end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (*end == '\0') {
      least = static_cast<size_t>(value);
    } else {
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) {
        std::fprintf(stderr, "quadrants: warning: QD_TIERED_COMPILE_BYTES='%s' is not a number of bytes; using %zu.\n",
                     text, kDefaultTieredBytes);
      }
    }
  }
  return source.size() >= least && tiers_differ(source);
}

std::shared_ptr<OptimizedBuild> start_optimized_build(const std::string& kernel_name, const std::string& source,
                                                      const BuildOptions& options) {
  auto job = std::make_shared<Job>();
  job->kernel_name = kernel_name;
  job->source = source;
  job->options = options;
  job->build = std::make_shared<OptimizedBuild>();
  job->build->kernel_name = kernel_name;
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.queue.push_back(job);
    add_workers_locked();
  }
  pool.changed.notify_one();
  return job->build;
}

bool wait_for_optimized_builds(double timeout_seconds) {
  std::unique_lock<std::mutex> lock(pool.mutex);
  if (pool.lost_workers) add_workers_locked();
  pool.changed.notify_all();
  if (timeout_seconds < 0) {
    pool.changed.wait(lock, is_done);
    return true;
  }
  return pool.changed.wait_for(lock, std::chrono::duration<double>(timeout_seconds), is_done);
}

int optimized_builds_pending() {
  std::lock_guard<std::mutex> lock(pool.mutex);
  return static_cast<int>(pool.queue.size() + pool.running.size());
}

int poll_optimized_build(const OptimizedBuild& build) {
  int state = build.state.load(std::memory_order_acquire);
  if (state == OptimizedBuild::kPending && lost_workers_flag.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (pool.lost_workers) add_workers_locked();
    pool.changed.notify_all();
  }
  return state;
}

}  // namespace qd::jit
