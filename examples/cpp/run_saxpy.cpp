// examples/cpp/run_saxpy.cpp: a C++ program running a kernel written in Python (exported to saxpy.qdir).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "quadrants/jit.h"
#include "quadrants/launch.h"

namespace {

qd::ArrayView view_of(std::vector<float>& data) {
  qd::ArrayView view;
  view.data = data.data();
  view.dtype = qd::DtypeCode::f32;
  view.ndim = 1;
  view.shape[0] = static_cast<int64_t>(data.size());
  qd::fill_contiguous_strides(view);
  return view;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s saxpy.qdir\n", argv[0]);
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::shared_ptr<const qd::CompiledKernel> kernel = qd::compile_kernel(text.str());

  std::vector<float> x(1000), y(1000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  QdArg result = qd::launch_kernel(*kernel, {qd::KernelArg::of_float(2.0), qd::KernelArg::array(view_of(x)),
                                            qd::KernelArg::array(view_of(y))});
  double expected_total = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    double expected = 2.0 * i + 1.0;
    expected_total += expected;
    if (y[i] != expected) {
      std::fprintf(stderr, "y[%zu] = %f, expected %f\n", i, y[i], expected);
      return 1;
    }
  }
  if (std::fabs(result.scalar.f - expected_total) > 1e-3 * expected_total) {
    std::fprintf(stderr, "returned %f, expected %f\n", result.scalar.f, expected_total);
    return 1;
  }
  std::printf("saxpy from C++: y[999] = %.1f, sum = %.1f\n", y[999], result.scalar.f);
  return 0;
}
