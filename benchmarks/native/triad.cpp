// benchmarks/native/triad.cpp: the hand-written C++ triad that bench_triad.py measures quadrants against.
// Built by bench_triad.py with g++ -O3 -march=native -fopenmp into a temporary directory and loaded
// with ctypes; the caller passes the thread count so both sides use the same number of cores.
#include <cstdint>

extern "C" {

// a[i] = b[i] + s * c[i] for i in [0, n), statically split over `threads` OpenMP threads.
void triad(float* a, const float* b, const float* c, float s, int64_t n, int threads) {
#pragma omp parallel for simd schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// Writes every element once, from the same threads and in the same static split as triad(), so
// first-touch page faults are taken before timing and pages land where the timed loop will use them.
void warm_pages(float* a, int64_t n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) a[i] = 0.0f;
}
}
