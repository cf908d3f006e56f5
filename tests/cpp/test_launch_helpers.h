// tests/cpp/test_launch_helpers.h: kernels in IR text and launch hooks shared by the launch module's C++ tests.
#pragma once

#include <string>
#include <vector>

#include "quadrants/launch.h"

namespace qd::testing {

inline std::string flag(bool on) { return on ? "1" : "0"; }

// y += a * x, compiled for the contiguity the request's arrays have (x is only read).
inline std::string saxpy_ir(const CompileRequest& request) {
  return "(kernel saxpy (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n"
         " (params (scalar a f32) (array x f32 1 () " + flag(request.array(1).contiguous) + " 0)"
         " (array y f32 1 () " + flag(request.array(2).contiguous) + " 1))\n (returns void)\n"
         " (body (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0))"
         " ((store y ((var i)) () (bin add (bin mul (arg a) (load x ((var i)) ())) (load y ((var i)) ())))))))";
}

inline std::vector<LaunchParam> saxpy_params() {
  return {{LaunchParam::Kind::scalar, "a", DtypeCode::f32, 1, 0},
          {LaunchParam::Kind::array, "x", std::nullopt, 1, 0},
          {LaunchParam::Kind::array, "y", std::nullopt, 1, 0}};
}

// The sum of x's elements, as f64, and their count, as i32.
inline std::string sum_ir() {
  return "(kernel total (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n"
         " (params (array x f64 1 () 1 0)) (returns f64 i32)\n"
         " (body (decl s f64 (const f64 0.0)) (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0))"
         " ((eval (atomic add (var s) (load x ((var i)) ()))))) (return (var s) (shape x 0))))";
}

// Records what a launch asked of its caller.
class RecordingHooks : public LaunchHooks {
 public:
  std::vector<std::string> warnings;
  int releases = 0;
  int reacquires = 0;
  void warn(const std::string& message) override { warnings.push_back(message); }
  void release() override { ++releases; }
  void reacquire() override { ++reacquires; }
};

inline ArrayView float_view(float* data, int64_t n, int64_t stride = 1) {
  ArrayView view;
  view.data = data;
  view.dtype = DtypeCode::f32;
  view.ndim = 1;
  view.shape[0] = n;
  view.strides[0] = stride;
  return view;
}

}  // namespace qd::testing
