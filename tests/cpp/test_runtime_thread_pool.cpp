// tests/cpp/test_runtime_thread_pool.cpp: the thread pool covers every index exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "quadrants/thread_pool.h"

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

}  // namespace
}  // namespace qd
