// qd_cpp_kernel.h: what hand-written C++ kernels (qd.cpp_kernel) see: typed strided views of their
// array arguments and qd::parallel_for on quadrants' thread pool.
#pragma once

#include <stdint.h>

#include "kernel_abi.h"

namespace qd {

// A view of one array argument: N dims (element dims included), strides in elements.
template <class T, int N>
class Ndarray {
 public:
  explicit Ndarray(const QdArg& arg) : data_(static_cast<T*>(arg.data)), shape_(arg.shape), strides_(arg.strides) {}
  int64_t shape(int dim) const { return shape_[dim]; }
  int64_t stride(int dim) const { return strides_[dim]; }
  int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < N; ++d) n *= shape_[d];
    return n;
  }
  T* data() const { return data_; }
  template <class... I>
  T& operator()(I... index) const {
    static_assert(sizeof...(I) == N, "index with one integer per dimension");
    int64_t offset = 0;
    int dim = 0;
    ((offset += static_cast<int64_t>(index) * strides_[dim++]), ...);
    return data_[offset];
  }

 private:
  T* data_;
  const int64_t* shape_;
  const int64_t* strides_;
};

namespace detail {
// The launch this thread is running: set by the generated entry point, and by run_chunk on pool
// threads so that a parallel_for nested in a body still finds it. Per thread, since two Python
// threads may run the same kernel at once.
inline thread_local const QdLaunchContext* launch_context = nullptr;

template <class F>
struct Chunked {
  F* body;
  const QdLaunchContext* ctx;
};

template <class F>
void run_chunk(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<Chunked<F>*>(closure);
  const QdLaunchContext* outer = launch_context;
  launch_context = job->ctx;
  for (int64_t i = begin; i < end; ++i) (*job->body)(i);
  launch_context = outer;
}
}  // namespace detail

// Calls body(i) for i in [0, n) on the thread pool, in chunks of at least grain iterations.
template <class F>
void parallel_for(int64_t n, F body, int64_t grain = 1024) {
  detail::Chunked<F> job{&body, detail::launch_context};
  job.ctx->parallel_for(job.ctx->pool, n, grain, 0, &detail::run_chunk<F>, &job);
}

}  // namespace qd
