// tests/cpp/test_cuda_runtime.cpp: CUDA runtime: status without a driver; arrays, copies, streams and launches on a GPU.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <numeric>
#include <vector>

#include "test_views.h"
#include "quadrants/cuda.h"
#include "quadrants/errors.h"
#include "runtime/cuda/driver.h"

namespace qd {
namespace {

using testing::array_and_scalar_args;
using testing::host_view;

#define QD_REQUIRE_CUDA()                                                 \
  do {                                                                    \
    if (!cuda_status().empty()) GTEST_SKIP() << "CUDA: " << cuda_status(); \
  } while (0)

TEST(CudaStatus, NamesWhatIsMissingOrIsEmpty) {
  std::string status = cuda_status();
  if (status.empty()) {
    EXPECT_GT(cuda_device_count(), 0);
    return;
  }
  bool known = status.rfind("no driver library", 0) == 0 || status.rfind("cuInit failed (", 0) == 0 ||
               status.rfind("no device", 0) == 0;
  EXPECT_TRUE(known) << status;
  EXPECT_EQ(cuda_device_count(), 0);
}

TEST(CudaStatus, EveryEntryPointFailsCleanlyWithoutCuda) {
  if (cuda_status().empty()) GTEST_SKIP() << "CUDA is usable here";
  std::string expected = "CUDA is not available: " + cuda_status() + ".";
  try {
    cuda_init(0);
    FAIL() << "cuda_init succeeded without CUDA";
  } catch (const CudaError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
    EXPECT_EQ(e.code, 0);
  }
  EXPECT_THROW(create_cuda_array(DtypeCode::f32, {4}, {}, 0), CudaError);
  EXPECT_THROW(cuda_synchronize(nullptr), CudaError);
  EXPECT_THROW(make_stream_wait(reinterpret_cast<CUstream>(2), nullptr), CudaError);
  int value = 0;
  EXPECT_FALSE(cuda_pointer_device(&value).has_value());
}

TEST(CudaDriver, MissingLibraryIsNoDriverLibrary) {
  cuda::DriverLoad load = cuda::load_driver("libquadrants_no_such_driver.so");
  EXPECT_EQ(load.error.rfind("no driver library (libquadrants_no_such_driver.so could not be loaded: ", 0), 0u)
      << load.error;
  EXPECT_EQ(load.device_count, 0);
}

TEST(CudaDriver, LibraryWithoutEntryPointsIsNoDriverLibrary) {
  cuda::DriverLoad load = cuda::load_driver("libm.so.6");
  EXPECT_EQ(load.error, "no driver library (libm.so.6 lacks the entry point cuInit; the NVIDIA driver is too old "
                        "or this is not the driver library)");
  EXPECT_EQ(load.api.cuInit, nullptr);
}

TEST(CudaCopy, HostToHostNeedsNoDriver) {
  std::vector<double> src = {1.5, 2.5, 3.5};
  std::vector<float> dst(3);
  copy_view_cuda(host_view(dst.data(), DtypeCode::f32, {3}, {1}), host_view(src.data(), DtypeCode::f64, {3}, {1}),
                 nullptr);
  EXPECT_EQ(dst, (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(CudaAbi, LaunchBufferOffsetsMatchTheTestKernels) {
  // The PTX in test_cuda_runtime_launch.cpp reads these offsets directly.
  EXPECT_EQ(offsetof(QdArg, shape), 8u);
  EXPECT_EQ(offsetof(QdArg, strides), 120u);
  EXPECT_EQ(offsetof(QdArg, scalar), 232u);
  EXPECT_EQ(sizeof(QdArg), 240u);
  EXPECT_EQ(offsetof(QdKernelError, index), 16u);
}

TEST(CudaDevice, InitReportsProperties) {
  QD_REQUIRE_CUDA();
  const CudaDeviceInfo& info = cuda_init(0);
  EXPECT_EQ(info.index, 0);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GE(info.compute_capability_major, 3);
  EXPECT_THROW(cuda_init(cuda_device_count()), ValueError);
  EXPECT_THROW(cuda_init(-1), ValueError);
}

TEST(CudaArray, ZeroFilledOnTheDevice) {
  QD_REQUIRE_CUDA();
  auto array = create_cuda_array(DtypeCode::i32, {5}, {3}, 0);
  const ArrayView& view = array->view();
  EXPECT_EQ(view.device.kind, DeviceId::Kind::cuda);
  EXPECT_EQ(view.ndim, 2);
  EXPECT_EQ(array->element_ndim(), 1);
  EXPECT_EQ(cuda_pointer_device(view.data), std::optional<int>(0));
  std::vector<int32_t> host(15, 7);
  copy_view_cuda(host_view(host.data(), DtypeCode::i32, {5, 3}, {3, 1}), view, nullptr);
  EXPECT_EQ(host, std::vector<int32_t>(15, 0));
  auto empty = create_cuda_array(DtypeCode::f32, {0}, {}, 0);
  EXPECT_EQ(empty->view().size(), 0);
}

TEST(CudaCopy, RoundTripContiguousAndLarge) {
  QD_REQUIRE_CUDA();
  for (int64_t n : {int64_t{10}, int64_t{3} << 20}) {  // the second goes through pinned staging chunks
    std::vector<float> src(static_cast<size_t>(n));
    std::iota(src.begin(), src.end(), 0.0f);
    auto array = create_cuda_array(DtypeCode::f32, {n}, {}, 0);
    copy_view_cuda(array->view(), host_view(src.data(), DtypeCode::f32, {n}, {1}), nullptr);
    std::vector<float> back(src.size());
    copy_view_cuda(host_view(back.data(), DtypeCode::f32, {n}, {1}), array->view(), nullptr);
    EXPECT_EQ(back, src) << n;
  }
}

TEST(CudaCopy, StridedWithDtypeConversion) {
  QD_REQUIRE_CUDA();
  // A transposed f64 host view into an f32 device array, then back through a reversed i64 view.
  std::vector<double> src = {0, 1, 2, 3, 4, 5};  // 2x3, viewed as its 3x2 transpose
  auto array = create_cuda_array(DtypeCode::f32, {3, 2}, {}, 0);
  copy_view_cuda(array->view(), host_view(src.data(), DtypeCode::f64, {3, 2}, {1, 3}), nullptr);
  std::vector<int64_t> back(6, -1);
  copy_view_cuda(host_view(back.data() + 5, DtypeCode::i64, {3, 2}, {-2, -1}), array->view(), nullptr);
  EXPECT_EQ(back, (std::vector<int64_t>{5, 2, 4, 1, 3, 0}));
}

TEST(CudaCopy, StridedDeviceDestinationKeepsTheGaps) {
  QD_REQUIRE_CUDA();
  auto array = create_cuda_array(DtypeCode::i32, {8}, {}, 0);
  std::vector<int32_t> ones(8, 1);
  copy_view_cuda(array->view(), host_view(ones.data(), DtypeCode::i32, {8}, {1}), nullptr);
  ArrayView every_other = array->view();
  every_other.shape[0] = 4;
  every_other.strides[0] = 2;
  std::vector<int16_t> values = {10, 20, 30, 40};
  copy_view_cuda(every_other, host_view(values.data(), DtypeCode::i16, {4}, {1}), nullptr);
  std::vector<int32_t> back(8);
  copy_view_cuda(host_view(back.data(), DtypeCode::i32, {8}, {1}), array->view(), nullptr);
  EXPECT_EQ(back, (std::vector<int32_t>{10, 1, 20, 1, 30, 1, 40, 1}));
}

TEST(CudaCopy, DeviceToDeviceContiguousAndConverting) {
  QD_REQUIRE_CUDA();
  std::vector<float> src = {1, 2, 3, 4};
  auto a = create_cuda_array(DtypeCode::f32, {4}, {}, 0);
  auto b = create_cuda_array(DtypeCode::f32, {4}, {}, 0);
  auto c = create_cuda_array(DtypeCode::f64, {4}, {}, 0);
  copy_view_cuda(a->view(), host_view(src.data(), DtypeCode::f32, {4}, {1}), nullptr);
  copy_view_cuda(b->view(), a->view(), nullptr);
  copy_view_cuda(c->view(), b->view(), nullptr);
  std::vector<double> back(4);
  copy_view_cuda(host_view(back.data(), DtypeCode::f64, {4}, {1}), c->view(), nullptr);
  EXPECT_EQ(back, (std::vector<double>{1, 2, 3, 4}));
}

TEST(CudaStream, WaitBetweenSpecialStreamsAndSynchronize) {
  QD_REQUIRE_CUDA();
  cuda_init(0);
  // CU_STREAM_LEGACY (0x1) and CU_STREAM_PER_THREAD (0x2) are valid handles in every context.
  CUstream legacy = reinterpret_cast<CUstream>(1);
  CUstream per_thread = reinterpret_cast<CUstream>(2);
  make_stream_wait(per_thread, legacy);
  make_stream_wait(legacy, legacy);
  cuda_synchronize(per_thread);
  cuda_synchronize(nullptr);
}

}  // namespace
}  // namespace qd
