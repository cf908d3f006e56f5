// src/runtime/thread_pool_check.cpp: a self-check of ThreadPool that programs can run (upstream's
// `_lib.core.test_threading()` runs its pool the same way).
#include <atomic>
#include <memory>
#include <vector>

#include "quadrants/thread_pool.h"

namespace qd {
namespace {

struct Visits {
  std::vector<std::atomic<int>> counts;
  int64_t work;  // busy iterations per index, so chunks overlap in time across threads
  explicit Visits(int64_t n, int64_t work) : counts(static_cast<size_t>(n)), work(work) {}
};

void visit_range(void* closure, int64_t begin, int64_t end) {
  auto* visits = static_cast<Visits*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    volatile double sink = 0.0;  // volatile: the busy loop must not be folded away
    for (int64_t t = 0; t < visits->work; ++t) sink = sink + static_cast<double>(t) * 1e-20;
    visits->counts[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

bool check_thread_pool(int num_threads, int rounds) {
  ThreadPool pool(num_threads);
  for (int round = 0; round < rounds; ++round) {
    int64_t n = 1 + round * 37;  // from one index (inline) to many chunks per thread
    Visits visits(n, 200 + 50 * (round % 7));
    pool.parallel_for(n, 1 + round % 3, /*serialize=*/round % 5 == 4, &visit_range, &visits);
    for (const std::atomic<int>& count : visits.counts) {
      if (count.load(std::memory_order_relaxed) != 1) return false;
    }
  }
  return true;
}

}  // namespace qd
