// tests/cpp/test_launch_module.cpp: a C++ program launching kernels through the launch module on the CPU:
// compile on a miss per signature, argument checks, returned values, globals, realignment and the hooks.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "quadrants/errors.h"
#include "quadrants/launch.h"
#include "test_jit_helpers.h"
#include "test_launch_helpers.h"

namespace qd::testing {
namespace {

class LaunchModule : public JitTest {
 protected:
  void SetUp() override { set_target(Target{}); }

  // A saxpy launcher whose compile callback counts its calls.
  std::unique_ptr<KernelLauncher> saxpy() {
    return std::make_unique<KernelLauncher>("saxpy", saxpy_params(), [this](const CompileRequest& request) {
      ++compiles;
      EXPECT_FALSE(request.target.cuda);
      return CompiledVariant{compile_kernel(saxpy_ir(request)), nullptr, {}};
    });
  }

  int compiles = 0;
};

template <class E, class F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST_F(LaunchModule, CompilesOncePerSignatureAndRuns) {
  auto launcher = saxpy();
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 10, 10, 10};
  launcher->launch({KernelArg::of_float(2.0), KernelArg::array(float_view(x.data(), 4)),
                    KernelArg::array(float_view(y.data(), 4))});
  EXPECT_EQ(y, (std::vector<float>{12, 14, 16, 18}));
  launcher->launch({KernelArg::of_int(1), KernelArg::array(float_view(x.data(), 2)),  // another shape: same variant
                    KernelArg::array(float_view(y.data(), 2))});
  EXPECT_EQ(y, (std::vector<float>{13, 16, 16, 18}));
  EXPECT_EQ(compiles, 1);
  // Every other element of x: a strided signature, compiled once more.
  launcher->launch({KernelArg::of_float(1.0), KernelArg::array(float_view(x.data(), 2, 2)),
                    KernelArg::array(float_view(y.data(), 2))});
  EXPECT_EQ(y, (std::vector<float>{14, 19, 16, 18}));
  EXPECT_EQ(compiles, 2);
  launcher->launch({KernelArg::of_float(0.0), KernelArg::array(float_view(x.data(), 4)),
                    KernelArg::array(float_view(y.data(), 4))});
  EXPECT_EQ(compiles, 2);  // the contiguous variant is still in the table
  launcher->clear();
  launcher->launch({KernelArg::of_float(0.0), KernelArg::array(float_view(x.data(), 4)),
                    KernelArg::array(float_view(y.data(), 4))});
  EXPECT_EQ(compiles, 3);
}

TEST_F(LaunchModule, ReturnsEveryValueAndCountsTasks) {
  std::shared_ptr<const CompiledKernel> kernel = compile_kernel(sum_ir());
  KernelLauncher launcher("total", {{LaunchParam::Kind::array, "x", std::nullopt, 1, 0}},
                          [&](const CompileRequest&) { return CompiledVariant{kernel, nullptr, {}}; });
  std::vector<double> x = {0.5, 1.5, 2.0};
  ArrayView view = float_view(nullptr, 3);
  view.data = x.data();
  view.dtype = DtypeCode::f64;
  std::vector<QdArg> values = launcher.launch({KernelArg::array(view)});
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].scalar.f, 4.0);
  EXPECT_EQ(values[1].scalar.i, 3);
  EXPECT_GE(kernel->num_tasks, 2);  // the parallel loop and the serial return, at least
  EXPECT_EQ(last_launch_tasks(), kernel->num_tasks);
}

TEST_F(LaunchModule, ChecksArgumentsAgainstParametersAndTheVariant) {
  auto launcher = saxpy();
  std::vector<float> x(4), y(4);
  std::vector<int32_t> ints(4);
  ArrayView int_view = float_view(nullptr, 4);
  int_view.data = ints.data();
  int_view.dtype = DtypeCode::i32;
  KernelArg a = KernelArg::of_float(1.0), xs = KernelArg::array(float_view(x.data(), 4)),
            ys = KernelArg::array(float_view(y.data(), 4));
  EXPECT_EQ(error_of<TypeError>([&] { launcher->launch({a, xs}); }),
            "Kernel 'saxpy' takes 3 argument(s), but 2 were given.");
  EXPECT_EQ(error_of<TypeError>([&] { launcher->launch({a, KernelArg::of_int(1), ys}); }),
            "Kernel 'saxpy' argument 'x': expected an array.");
  EXPECT_EQ(error_of<TypeError>([&] { launcher->launch({xs, xs, ys}); }),
            "Kernel 'saxpy' argument 'a': expected a scalar.");
  // The callback compiles f32 whatever it is asked: the variant does not take what the call passes.
  EXPECT_EQ(error_of<TypeError>([&] { launcher->launch({a, KernelArg::array(int_view), ys}); }),
            "Kernel 'saxpy' argument 'x': expected dtype f32, but got i32.");
  ArrayView read_only = float_view(y.data(), 4);
  read_only.writable = false;
  EXPECT_EQ(error_of<ValueError>([&] { launcher->launch({a, xs, KernelArg::array(read_only)}); }),
            "Kernel 'saxpy' argument 'y': the kernel may write this argument, but the view is read-only.");
  ArrayView on_device = float_view(y.data(), 4);
  on_device.device = {DeviceId::Kind::cuda, 0};
  EXPECT_EQ(error_of<ValueError>([&] { launcher->launch({a, KernelArg::array(on_device), ys}); }),
            "Kernel 'saxpy' argument 'x': the array is on cuda:0, but the kernel runs on the CPU; move it with .cpu() "
            "or init with qd.cuda.");
  launcher->launch({a, xs, ys});  // the rejected variants were not kept
  EXPECT_EQ(compiles, 3);

  KernelLauncher integer("integer", {{LaunchParam::Kind::scalar, "n", DtypeCode::i32, 1, 0}},
                         [](const CompileRequest&) -> CompiledVariant { return {}; });
  EXPECT_EQ(error_of<TypeError>([&] { integer.launch({KernelArg::of_float(1.5)}); }),
            "Kernel 'integer' argument 'n': expected an integer for i32, but got a float.");
  EXPECT_EQ(error_of<ValueError>([&] { integer.launch({KernelArg::of_int(1)}); }),
            "Kernel 'integer': the compile callback returned no kernel.");
}

// More scalars than a launch packs on its stack (kInlineKernelArgs): the launcher's argument storage, made by the
// first launch and reused by the next, which must see its own values.
TEST_F(LaunchModule, ManyScalarsGoInTheLaunchersStorage) {
  constexpr int kCount = 600;
  std::string params;
  std::vector<std::string> terms;
  std::vector<LaunchParam> launch_params;
  for (int k = 0; k < kCount; ++k) {
    params += " (scalar s" + std::to_string(k) + " i32)";
    terms.push_back("(arg s" + std::to_string(k) + ")");
    launch_params.push_back({LaunchParam::Kind::scalar, "s" + std::to_string(k), DtypeCode::i32, 1, 0});
  }
  while (terms.size() > 1) {  // a balanced sum: shallow for the parser and the C compiler
    std::vector<std::string> pairs;
    for (size_t k = 0; k + 1 < terms.size(); k += 2) pairs.push_back("(bin add " + terms[k] + " " + terms[k + 1] + ")");
    if (terms.size() % 2) pairs.push_back(terms.back());
    terms.swap(pairs);
  }
  std::string ir = "(kernel wide (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n (params" +
                   params + ") (returns i32) (body (return " + terms[0] + ")))";
  int compiles = 0;
  KernelLauncher launcher("wide", launch_params, [&](const CompileRequest&) {
    ++compiles;
    return CompiledVariant{compile_kernel(ir), nullptr, {}};
  });
  for (int scale : {1, 3}) {
    std::vector<KernelArg> args;
    for (int k = 0; k < kCount; ++k) args.push_back(KernelArg::of_int(k * scale));
    std::vector<QdArg> returned = launcher.launch(args);
    ASSERT_EQ(returned.size(), 1u);
    EXPECT_EQ(returned[0].scalar.i, scale * kCount * (kCount - 1) / 2);
  }
  EXPECT_EQ(compiles, 1);
}

TEST_F(LaunchModule, GlobalsFollowTheArguments) {
  std::shared_ptr<Array> doubled = Array::create(DtypeCode::f32, {3}, {});
  std::string ir = "(kernel twice (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n"
                   " (params (array x f32 1 () 1 0) (array field_0 f32 1 () 1 1)) (returns void)\n"
                   " (body (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0))"
                   " ((store field_0 ((var i)) () (bin mul (load x ((var i)) ()) (const f32 2.0)))))))";
  KernelLauncher launcher("twice", {{LaunchParam::Kind::array, "x", std::nullopt, 1, 0}},
                          [&](const CompileRequest&) { return CompiledVariant{compile_kernel(ir), nullptr, {doubled}}; });
  std::vector<float> x = {1, 2, 3};
  launcher.launch({KernelArg::array(float_view(x.data(), 3))});
  const float* out = static_cast<const float*>(doubled->view().data);
  EXPECT_EQ(std::vector<float>(out, out + 3), (std::vector<float>{2, 4, 6}));
}

TEST_F(LaunchModule, MisalignedHostArraysRunOnAlignedCopies) {
  auto launcher = saxpy();
  // Floats one byte into a buffer: not aligned to their 4 bytes.
  std::vector<char> x_bytes(4 * 4 + 1), y_bytes(4 * 4 + 1);
  float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1};
  std::memcpy(x_bytes.data() + 1, x, sizeof x);
  std::memcpy(y_bytes.data() + 1, y, sizeof y);
  auto misaligned = [](std::vector<char>& bytes) {
    return KernelArg::array(float_view(reinterpret_cast<float*>(bytes.data() + 1), 4));
  };
  RecordingHooks hooks;
  for (int call = 0; call < 2; ++call) {
    launcher->launch({KernelArg::of_float(10.0), misaligned(x_bytes), misaligned(y_bytes)}, hooks);
  }
  std::memcpy(y, y_bytes.data() + 1, sizeof y);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{21, 41, 61, 81}));
  ASSERT_EQ(hooks.warnings.size(), 2u);  // once per parameter, not per call
  EXPECT_EQ(hooks.warnings[0], "Kernel 'saxpy' argument 'x': the array's data is not aligned to its 4-byte elements, "
                               "so every call copies it to an aligned buffer and back. Pass an aligned array (x.copy()) "
                               "to avoid the copies.");
  EXPECT_NE(hooks.warnings[1].find("argument 'y'"), std::string::npos);
}

TEST_F(LaunchModule, ShortRunsKeepTheCallersLocks) {
  auto launcher = saxpy();
  std::vector<float> x(8, 1.0f), y(8, 0.0f);
  RecordingHooks hooks;
  const int calls = 20;
  for (int call = 0; call < calls; ++call) {
    launcher->launch({KernelArg::of_float(1.0), KernelArg::array(float_view(x.data(), 8)),
                      KernelArg::array(float_view(y.data(), 8))}, hooks);
  }
  EXPECT_EQ(y[7], 20.0f);
  EXPECT_EQ(hooks.releases, hooks.reacquires);
  EXPECT_GE(hooks.releases, 1);      // the first run's length is unknown: it releases
  EXPECT_LT(hooks.releases, calls);  // a run of 8 elements takes well under 20 us: later ones keep them
}

TEST_F(LaunchModule, LaunchKernelChecksAgainstTheKernelItself) {
  auto kernel = compile_kernel(sum_ir());
  std::vector<double> x = {1, 2};
  ArrayView view = float_view(nullptr, 2);
  view.data = x.data();
  view.dtype = DtypeCode::f64;
  std::vector<QdArg> values;
  EXPECT_EQ(launch_kernel(*kernel, {KernelArg::array(view)}, &values).scalar.f, 3.0);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[1].scalar.i, 2);
  view.dtype = DtypeCode::f32;
  EXPECT_EQ(error_of<TypeError>([&] { launch_kernel(*kernel, {KernelArg::array(view)}); }),
            "Kernel 'total' argument 'x': expected dtype f64, but got f32.");
  view.dtype = DtypeCode::f64;
  view.device = {DeviceId::Kind::cuda, 0};
  EXPECT_EQ(error_of<ValueError>([&] { launch_kernel(*kernel, {KernelArg::array(view)}); }),
            "Kernel 'total' argument 'x': the array is on cuda:0, but the kernel runs on the CPU; copy it to host "
            "memory first.");
}

TEST(LaunchSignature, PacksAndUnpacksEverythingButTheShape) {
  std::vector<float> data(2 * 3 * 4);
  ArrayView view = float_view(data.data(), 0);
  view.ndim = 3;
  view.shape[0] = 2, view.shape[1] = 3, view.shape[2] = 4;
  view.strides[0] = 12, view.strides[1] = 4, view.strides[2] = 1;
  view.writable = false;
  uint64_t packed = array_signature(view, 2);
  ArraySignature sig = unpack_array_signature(packed);
  EXPECT_EQ(sig.dtype, DtypeCode::f32);
  EXPECT_EQ(sig.ndim, 1);
  EXPECT_EQ(sig.element_ndim, 2);
  EXPECT_EQ(sig.element_shape[0], 3);
  EXPECT_EQ(sig.element_shape[1], 4);
  EXPECT_TRUE(sig.contiguous);
  EXPECT_FALSE(sig.writable);
  EXPECT_EQ(sig.device, DeviceId::Kind::cpu);
  view.shape[0] = 7;  // the shape does not select a variant
  EXPECT_EQ(array_signature(view, 2), packed);
  view.strides[0] = 24;
  EXPECT_NE(array_signature(view, 2), packed);
  EXPECT_FALSE(unpack_array_signature(array_signature(view, 2)).contiguous);
}

}  // namespace
}  // namespace qd::testing
