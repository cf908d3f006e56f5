// tests/cpp/test_cuda_launch_module.cpp: a C++ program launching kernels through the launch module on CUDA:
// host arrays staged to the device and back, device arrays, returned values, and a compile that picks the
// target. Skips without CUDA; ctest runs it again on the driver emulation (tests/cuda_emulator/).
#include <gtest/gtest.h>

#include <vector>

#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "quadrants/launch.h"
#include "test_jit_helpers.h"
#include "test_launch_helpers.h"

namespace qd::testing {
namespace {

class CudaLaunchModule : public JitTest {
 protected:
  void SetUp() override {
    if (!cuda_status().empty()) GTEST_SKIP() << "CUDA: " << cuda_status();
    if (!nvrtc_available()) GTEST_SKIP() << "NVRTC not found";
    info = &cuda_init(0);
  }
  void TearDown() override { set_target(Target{}); }

  std::shared_ptr<const CudaCompiledKernel> compile_cuda(const std::string& ir) const {
    return compile_kernel_cuda(ir, info->compute_capability_major, info->compute_capability_minor);
  }

  const CudaDeviceInfo* info = nullptr;
};

TEST_F(CudaLaunchModule, HostArraysAreStagedAndWrittenBack) {
  set_target(Target{true, 0});
  int compiles = 0;
  KernelLauncher launcher("saxpy", saxpy_params(), [&](const CompileRequest& request) {
    ++compiles;
    EXPECT_TRUE(request.target.cuda);
    EXPECT_EQ(request.array(1).device, DeviceId::Kind::cuda);  // the signature of the device copy
    return CompiledVariant{nullptr, compile_cuda(saxpy_ir(request)), {}};
  });
  std::vector<float> x = {1, 2, 3, 4, 5}, y(5, 1.0f);
  RecordingHooks hooks;
  for (int call = 0; call < 2; ++call) {
    launcher.launch({KernelArg::of_float(2.0), KernelArg::array(float_view(x.data(), 5)),
                     KernelArg::array(float_view(y.data(), 5))}, hooks);
  }
  EXPECT_EQ(y, (std::vector<float>{5, 9, 13, 17, 21}));
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(compiles, 1);
  ASSERT_EQ(hooks.warnings.size(), 2u);  // x and y, once each
  EXPECT_EQ(hooks.warnings[1], "Kernel 'saxpy' argument 'y' is in host memory but the kernel runs on cuda:0; it is "
                               "copied to the device on every call, and back when the kernel writes it (20 bytes each "
                               "way). Pass a CUDA tensor, a CuPy array or a qd.ndarray to avoid the copies.");
  EXPECT_EQ(hooks.releases, hooks.reacquires);
  EXPECT_GE(hooks.releases, 2);
}

TEST_F(CudaLaunchModule, DeviceArraysAndReturnedValues) {
  set_target(Target{true, 0});
  KernelLauncher launcher("total", {{LaunchParam::Kind::array, "x", std::nullopt, 1, 0}},
                          [&](const CompileRequest&) { return CompiledVariant{nullptr, compile_cuda(sum_ir()), {}}; });
  std::vector<double> host = {0.25, 0.5, 1.0, 2.0};
  std::shared_ptr<Array> device = create_cuda_array(DtypeCode::f64, {4}, {}, 0);
  ArrayView host_view = float_view(nullptr, 4);
  host_view.data = host.data();
  host_view.dtype = DtypeCode::f64;
  copy_view_cuda(device->view(), host_view, nullptr);
  RecordingHooks hooks;
  std::vector<QdArg> values = launcher.launch({KernelArg::array(device->view())}, hooks);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].scalar.f, 3.75);
  EXPECT_EQ(values[1].scalar.i, 4);
  EXPECT_TRUE(hooks.warnings.empty());  // nothing was copied
  set_target(Target{});
  try {
    launcher.launch({KernelArg::array(device->view())});
    FAIL() << "a device array ran on the CPU";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Kernel 'total' argument 'x': the array is on cuda:0, but the kernel runs on the CPU; "
                           "move it with .cpu() or init with qd.cuda.");
  }
}

// As a Python kernel's first call before qd.init(): the arguments are placed for the CPU, the compile chooses
// CUDA, and the call places them again for the device, whose signature compiles once more.
TEST_F(CudaLaunchModule, ACompileThatChoosesCudaPlacesTheArgumentsAgain) {
  std::vector<bool> requested_cuda;
  KernelLauncher launcher("saxpy", saxpy_params(), [&](const CompileRequest& request) {
    requested_cuda.push_back(request.target.cuda);
    set_target(Target{true, 0});
    return CompiledVariant{nullptr, compile_cuda(saxpy_ir(request)), {}};
  });
  std::vector<float> x = {1, 2}, y = {0, 0};
  launcher.launch({KernelArg::of_float(3.0), KernelArg::array(float_view(x.data(), 2)),
                   KernelArg::array(float_view(y.data(), 2))});
  EXPECT_EQ(y, (std::vector<float>{3, 6}));
  EXPECT_EQ(requested_cuda, (std::vector<bool>{false, true}));
  launcher.launch({KernelArg::of_float(1.0), KernelArg::array(float_view(x.data(), 2)),
                   KernelArg::array(float_view(y.data(), 2))});
  EXPECT_EQ(y, (std::vector<float>{4, 8}));
  EXPECT_EQ(requested_cuda.size(), 2u);
}

TEST_F(CudaLaunchModule, LaunchKernelTakesHostArrays) {
  auto kernel = compile_cuda(sum_ir());
  std::vector<double> x = {1, 2, 4};
  ArrayView view = float_view(nullptr, 3);
  view.data = x.data();
  view.dtype = DtypeCode::f64;
  std::vector<QdArg> values;
  EXPECT_EQ(launch_kernel(kernel, {KernelArg::array(view)}, &values).scalar.f, 7.0);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[1].scalar.i, 3);
}

}  // namespace
}  // namespace qd::testing
