// tests/cpp/test_runtime_thread_pool.cpp: the thread pool covers every index exactly once, also in a forked child.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "quadrants/thread_pool.h"
#include "runtime/launch.h"

namespace qd {
namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(size_t n) : hits(n) {}
};

void count_chunk(void* closure, int64_t begin, int64_t end) {
  auto* counts = static_cast<Counts*>(closure);
  for (int64_t i = begin; i < end; ++i) counts->hits[i].fetch_add(1);
}

TEST(ThreadPool, EveryIndexOnceForManySizes) {
  ThreadPool pool(4);
  for (int64_t n : {0, 1, 7, 64, 1000, 100003}) {
    Counts counts(static_cast<size_t>(n));
    pool.parallel_for(n, 16, false, &count_chunk, &counts);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(counts.hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, RepeatedLaunchesAndSerialize) {
  ThreadPool pool(3);
  Counts counts(5000);
  for (int rep = 0; rep < 200; ++rep) pool.parallel_for(5000, 1, rep % 2 == 0, &count_chunk, &counts);
  for (auto& hit : counts.hits) ASSERT_EQ(hit.load(), 200);
}

TEST(ThreadPool, CallbackMatchesTheAbi) {
  ThreadPool pool(2);
  Counts counts(100);
  QdLaunchContext ctx{&pool, &ThreadPool::parallel_for_callback, nullptr, nullptr};
  ctx.parallel_for(ctx.pool, 100, 1, 0, &count_chunk, &counts);
  for (auto& hit : counts.hits) ASSERT_EQ(hit.load(), 1);
}

bool covers_once(ThreadPool& pool, int64_t n) {
  Counts counts(static_cast<size_t>(n));
  pool.parallel_for(n, 16, false, &count_chunk, &counts);
  for (auto& hit : counts.hits) {
    if (hit.load() != 1) return false;
  }
  return true;
}

// fork() copies only the calling thread: the child must not wait for the parent's workers, nor for
// the launch gate that a kernel on another thread held when the parent forked.
TEST(ThreadPool, SelfCheckPassesForSeveralSizes) {
  for (int threads : {1, 2, 8}) EXPECT_TRUE(check_thread_pool(threads, 20)) << threads << " threads";
}

TEST(ThreadPool, DefaultPoolAndGateWorkInAForkedChild) {
  set_num_threads(4);
  ASSERT_TRUE(covers_once(default_thread_pool(), 100000));  // the parent's workers exist
  std::atomic<bool> holding{false}, done{false};
  std::thread running_kernel([&] {
    std::shared_lock<std::shared_mutex> gate(launch_gate());
    holding = true;
    while (!done) std::this_thread::yield();
  });
  while (!holding) std::this_thread::yield();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(20);  // a hang ends the child with SIGALRM instead of blocking the suite
    bool ok = default_thread_pool().num_threads() == 4 && covers_once(default_thread_pool(), 100000);
    { std::unique_lock<std::shared_mutex> exclusive(launch_gate()); }  // what qd.reset() takes
    set_num_threads(3);
    ok = ok && default_thread_pool().num_threads() == 3 && covers_once(default_thread_pool(), 100000);
    ::_exit(ok ? 0 : 1);
  }
  done = true;
  running_kernel.join();
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) << "the forked child hung";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  EXPECT_TRUE(covers_once(default_thread_pool(), 100000));  // and the parent's pool still works
  set_num_threads(0);
}

}  // namespace
}  // namespace qd
