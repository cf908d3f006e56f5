// tests/cpp/test_cuda_runtime_fake.cpp: the CUDA runtime over a host-memory imitation of the driver, so copies and launches run without a GPU.
//
// "Device" memory is host memory, every transfer is a memcpy, streams and events complete at once,
// and a module's functions are host functions called once per launch. What this checks is our own
// logic: staging, strided spans, the launch buffer layout, result read-back, error texts and the
// module cache. Skipped where a real driver is usable (the GPU tests cover it there).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "test_views.h"
#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "runtime/cuda/driver.h"

namespace qd {
namespace {

using testing::array_and_scalar_args;
using testing::host_view;

using namespace cuda;
using TaskFn = void (*)(const QdArg*, char*, QdKernelError*, int32_t*);

// What the imitation driver has seen; reset for each test.
struct FakeState {
  std::set<CUdeviceptr> allocations;
  int module_loads = 0;
  int module_unloads = 0;
  int launches = 0;
  int host_transfers = 0;  // HtoD and DtoH copies
};
FakeState fake;
std::map<std::string, TaskFn>* fake_functions = nullptr;

CUresult ok() { return kSuccess; }
CUresult fake_alloc(CUdeviceptr* pointer, size_t bytes) {
  *pointer = reinterpret_cast<CUdeviceptr>(std::calloc(bytes, 1));
  fake.allocations.insert(*pointer);
  return kSuccess;
}
CUresult fake_free(CUdeviceptr pointer) {
  if (fake.allocations.erase(pointer) == 0) return 1;  // CUDA_ERROR_INVALID_VALUE
  std::free(reinterpret_cast<void*>(pointer));
  return kSuccess;
}
CUresult fake_launch(CUfunction function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     CUstream, void** params, void**) {
  ++fake.launches;
  auto arg = [&](int i) { return reinterpret_cast<char*>(*static_cast<CUdeviceptr*>(params[i])); };
  reinterpret_cast<TaskFn>(function)(reinterpret_cast<const QdArg*>(arg(0)), arg(1),
                                     reinterpret_cast<QdKernelError*>(arg(2)), reinterpret_cast<int32_t*>(arg(3)));
  return kSuccess;
}

DriverLoad fake_driver() {
  DriverLoad load;
  load.device_count = 1;
  DriverApi& api = load.api;
  api.cuInit = [](unsigned) { return ok(); };
  api.cuDeviceGetCount = [](int* count) { return *count = 1, ok(); };
  api.cuDeviceGet = [](CUdevice* device, int ordinal) { return *device = ordinal, ok(); };
  api.cuDeviceGetAttribute = [](int* value, int attribute, CUdevice) {
    *value = attribute == kAttributeMultiprocessorCount ? 2 : attribute == kAttributeComputeCapabilityMajor ? 8 : 1;
    return ok();
  };
  api.cuDevicePrimaryCtxRetain = [](CUcontext* context, CUdevice) {
    return *context = reinterpret_cast<CUcontext>(&fake), ok();
  };
  api.cuCtxSetCurrent = [](CUcontext) { return ok(); };
  api.cuCtxGetCurrent = [](CUcontext* context) { return *context = nullptr, ok(); };
  api.cuCtxSynchronize = [] { return ok(); };
  api.cuMemAlloc = fake_alloc;
  api.cuMemFree = fake_free;
  api.cuMemAllocAsync = [](CUdeviceptr* pointer, size_t bytes, CUstream) { return fake_alloc(pointer, bytes); };
  api.cuMemFreeAsync = [](CUdeviceptr pointer, CUstream) { return fake_free(pointer); };
  api.cuMemAllocHost = [](void** pointer, size_t bytes) { return *pointer = std::malloc(bytes), ok(); };
  api.cuMemFreeHost = [](void* pointer) { return std::free(pointer), ok(); };
  api.cuMemcpyHtoDAsync = [](CUdeviceptr dst, const void* src, size_t bytes, CUstream) {
    ++fake.host_transfers;
    return std::memcpy(reinterpret_cast<void*>(dst), src, bytes), ok();
  };
  api.cuMemcpyDtoHAsync = [](void* dst, CUdeviceptr src, size_t bytes, CUstream) {
    ++fake.host_transfers;
    return std::memcpy(dst, reinterpret_cast<void*>(src), bytes), ok();
  };
  api.cuMemcpyDtoDAsync = [](CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
    return std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes), ok();
  };
  api.cuMemsetD8Async = [](CUdeviceptr dst, unsigned char value, size_t count, CUstream) {
    return std::memset(reinterpret_cast<void*>(dst), value, count), ok();
  };
  api.cuStreamSynchronize = [](CUstream) { return ok(); };
  api.cuStreamWaitEvent = [](CUstream, CUevent, unsigned) { return ok(); };
  api.cuEventCreate = [](CUevent* event, unsigned) { return *event = reinterpret_cast<CUevent>(&fake), ok(); };
  api.cuEventRecord = [](CUevent, CUstream) { return ok(); };
  api.cuEventSynchronize = [](CUevent) { return ok(); };
  api.cuEventDestroy = [](CUevent) { return ok(); };
  api.cuModuleLoadData = [](CUmodule* module, const void*) {
    ++fake.module_loads;
    return *module = reinterpret_cast<CUmodule>(&fake), ok();
  };
  api.cuModuleGetFunction = [](CUfunction* function, CUmodule, const char* name) {
    auto it = fake_functions->find(name);
    if (it == fake_functions->end()) return CUresult{500};  // CUDA_ERROR_NOT_FOUND
    return *function = reinterpret_cast<CUfunction>(it->second), ok();
  };
  api.cuModuleUnload = [](CUmodule) { return ++fake.module_unloads, ok(); };
  api.cuLaunchKernel = fake_launch;
  api.cuGetErrorName = [](CUresult result, const char** name) {
    *name = result == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_INVALID_VALUE";
    return ok();
  };
  api.cuGetErrorString = [](CUresult, const char** text) { return *text = nullptr, ok(); };
  api.cuPointerGetAttribute = [](void* value, int attribute, CUdeviceptr pointer) {
    if (fake.allocations.count(pointer) == 0) return CUresult{1};
    if (attribute == kPointerAttributeMemoryType) *static_cast<unsigned*>(value) = kMemoryTypeDevice;
    if (attribute == kPointerAttributeDeviceOrdinal) *static_cast<int*>(value) = 0;
    return ok();
  };
  api.cuDriverGetVersion = [](int* version) { return *version = 12080, ok(); };
  api.cuOccupancyMaxActiveBlocksPerMultiprocessor = [](int* blocks, CUfunction, int, size_t) {
    return *blocks = 1, ok();
  };
  return load;
}

// Host versions of the launcher's task signature.
void task_fill(const QdArg* args, char*, QdKernelError*, int32_t*) {
  auto* data = static_cast<float*>(args[0].data);
  for (int64_t i = 0; i < args[0].shape[0]; ++i) data[i * args[0].strides[0]] = static_cast<float>(i);
}
void task_return(const QdArg* args, char* frame, QdKernelError*, int32_t*) {
  int64_t value = args[1].scalar.i + 1;
  std::memcpy(frame, &value, sizeof(value));
}
void task_report_index(const QdArg* args, char*, QdKernelError* error, int32_t* flag) {
  *flag = 1;
  *error = QdKernelError{1, 0, 2, 1, {1, args[1].scalar.i}};
}
void task_report_assert(const QdArg*, char*, QdKernelError* error, int32_t* flag) {
  *flag = 1;
  *error = QdKernelError{2, 0, 0, 0, {}};
}

class FakeCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_status().empty()) GTEST_SKIP() << "a real CUDA driver is usable; the GPU tests cover this";
    fake = FakeState{};
    functions_ = {{"fill", task_fill}, {"ret", task_return}, {"bad_index", task_report_index},
                  {"bad_assert", task_report_assert}};
    fake_functions = &functions_;
    driver_ = fake_driver();
    use_driver_for_tests(&driver_);
  }
  void TearDown() override {
    use_driver_for_tests(nullptr);
    fake_functions = nullptr;
  }

  static std::shared_ptr<CudaCompiledKernel> kernel(std::vector<CudaTask> tasks) {
    auto compiled = std::make_shared<CudaCompiledKernel>();
    compiled->name = "fake_kernel";
    compiled->image = {'.', 'v', 'e', 'r'};  // not NUL-terminated: the launcher must add it for PTX
    compiled->is_ptx = true;
    compiled->tasks = std::move(tasks);
    compiled->frame_bytes = 8;
    return compiled;
  }

  DriverLoad driver_;
  std::map<std::string, TaskFn> functions_;
};

TEST_F(FakeCuda, StatusIsUsableAndArraysAreFreed) {
  EXPECT_EQ(cuda_status(), "");
  EXPECT_EQ(cuda_init(0).sm_count, 2);
  EXPECT_THROW(cuda_init(1), ValueError);
  {
    auto array = create_cuda_array(DtypeCode::f64, {3}, {2, 2}, 0);
    EXPECT_EQ(array->view().device, (DeviceId{DeviceId::Kind::cuda, 0}));
    EXPECT_EQ(array->view().strides[0], 4);
    EXPECT_EQ(cuda_pointer_device(array->view().data), std::optional<int>(0));
    EXPECT_EQ(fake.allocations.size(), 1u);
  }
  EXPECT_TRUE(fake.allocations.empty());
  int host = 0;
  EXPECT_FALSE(cuda_pointer_device(&host).has_value());
}

TEST_F(FakeCuda, LargeTransfersGoThroughStagingChunks) {
  const int64_t n = (int64_t{9} << 20) / 4;  // 9 MiB of f32: three 4 MiB chunks, the last partial
  std::vector<float> src(static_cast<size_t>(n));
  std::iota(src.begin(), src.end(), 0.0f);
  auto array = create_cuda_array(DtypeCode::f32, {n}, {}, 0);
  copy_view_cuda(array->view(), host_view(src.data(), DtypeCode::f32, {n}, {1}), nullptr);
  EXPECT_EQ(fake.host_transfers, 3);
  std::vector<float> back(src.size());
  copy_view_cuda(host_view(back.data(), DtypeCode::f32, {n}, {1}), array->view(), nullptr);
  EXPECT_EQ(fake.host_transfers, 6);
  EXPECT_EQ(back, src);
}

TEST_F(FakeCuda, StridedConvertingCopiesTransferOnlyTheSpan) {
  auto array = create_cuda_array(DtypeCode::i32, {4, 3}, {}, 0);
  std::vector<int32_t> filler(12, -1);
  copy_view_cuda(array->view(), host_view(filler.data(), DtypeCode::i32, {4, 3}, {3, 1}), nullptr);
  // Column 1 of the device array, reversed, receives u8 values; the rest must survive.
  ArrayView column = array->view();
  column.data = static_cast<int32_t*>(column.data) + 1 + 3 * 3;
  column.ndim = 1;
  column.shape[0] = 4;
  column.strides[0] = -3;
  std::vector<uint8_t> values = {1, 2, 3, 4};
  copy_view_cuda(column, host_view(values.data(), DtypeCode::u8, {4}, {1}), nullptr);
  std::vector<double> back(12);
  copy_view_cuda(host_view(back.data(), DtypeCode::f64, {4, 3}, {3, 1}), array->view(), nullptr);
  EXPECT_EQ(back, (std::vector<double>{-1, 4, -1, -1, 3, -1, -1, 2, -1, -1, 1, -1}));
  // Device to device with conversion and a broadcast (stride 0) source.
  auto row = create_cuda_array(DtypeCode::f32, {3}, {}, 0);
  ArrayView first = array->view();
  first.ndim = 1;
  first.shape[0] = 3;
  first.strides[0] = 0;
  copy_view_cuda(row->view(), first, nullptr);
  std::vector<float> row_back(3);
  copy_view_cuda(host_view(row_back.data(), DtypeCode::f32, {3}, {1}), row->view(), nullptr);
  EXPECT_EQ(row_back, (std::vector<float>{-1, -1, -1}));
}

TEST_F(FakeCuda, LaunchRunsTasksInOrderAndReturnsTheValue) {
  auto compiled = kernel({{"fill", true, 64}, {"ret", false, 1}});
  compiled->returns = {DtypeCode::i64};
  auto array = create_cuda_array(DtypeCode::f32, {6}, {}, 0);
  ArrayView every_other = array->view();
  every_other.shape[0] = 3;
  every_other.strides[0] = 2;
  std::vector<QdArg> args = array_and_scalar_args(every_other, 9);
  std::vector<QdArg> result = launch_cuda(compiled, args.data(), 2, nullptr, 0, {"x", "k"});
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0].scalar.i, 10);
  EXPECT_EQ(fake.launches, 2);
  std::vector<float> back(6);
  copy_view_cuda(host_view(back.data(), DtypeCode::f32, {6}, {1}), array->view(), nullptr);
  EXPECT_EQ(back, (std::vector<float>{0, 0, 1, 0, 2, 0}));
  // The launch slots are the device's for good (made by the first launch of the process); a launch
  // allocates nothing of its own.
  size_t before = fake.allocations.size();
  launch_cuda(compiled, args.data(), 2, nullptr, 0, {"x", "k"});
  EXPECT_EQ(fake.allocations.size(), before);
}

TEST_F(FakeCuda, ModulesLoadOncePerKernelAndUnloadWhenItDies) {
  std::vector<QdArg> args(2);
  auto first = kernel({{"ret", false, 1}});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(launch_cuda(first, args.data(), 2, nullptr, 0, {}).empty());
  EXPECT_EQ(fake.module_loads, 1);
  first.reset();
  auto second = kernel({{"ret", false, 1}});
  launch_cuda(second, args.data(), 2, nullptr, 0, {});
  EXPECT_EQ(fake.module_loads, 2);
  EXPECT_GE(fake.module_unloads, 1);
}

TEST_F(FakeCuda, DebugErrorsReadBackAsRunEntryWordsThem) {
  auto array = create_cuda_array(DtypeCode::f32, {4, 5}, {}, 0);
  std::vector<QdArg> args = array_and_scalar_args(array->view(), 17);
  auto bad_index = kernel({{"bad_index", false, 1}});
  bad_index->debug = true;
  try {
    launch_cuda(bad_index, args.data(), 2, nullptr, 0, {"field", "k"});
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "Out of bound access: Kernel 'fake_kernel': index (1, 17) is out of bounds for 'field' "
                           "of shape (4, 5) in dimension 1.");
  }
  auto bad_assert = kernel({{"bad_assert", false, 1}});
  bad_assert->debug = true;
  bad_assert->assert_messages = {"x must be positive"};
  try {
    launch_cuda(bad_assert, args.data(), 2, nullptr, 0, {});
    FAIL() << "no AssertionError";
  } catch (const AssertionError& e) {
    EXPECT_STREQ(e.what(), "Kernel 'fake_kernel': assertion failed: x must be positive");
  }
  auto quiet = kernel({{"bad_index", false, 1}});  // not debug: nothing is read back
  EXPECT_TRUE(launch_cuda(quiet, args.data(), 2, nullptr, 0, {}).empty());
}

TEST_F(FakeCuda, MissingTaskFunctionNamesKernelAndTask) {
  std::vector<QdArg> args(2);
  try {
    launch_cuda(kernel({{"nope", false, 1}}), args.data(), 2, nullptr, 0, {});
    FAIL() << "no CudaError";
  } catch (const CudaError& e) {
    EXPECT_STREQ(e.what(), "cuModuleGetFunction(kernel 'fake_kernel', task 'nope') failed: CUDA_ERROR_NOT_FOUND.");
    EXPECT_EQ(e.code, 500);
  }
}

TEST_F(FakeCuda, ImageTooNewForTheDriverNamesTheNvrtcToInstall) {
  driver_.api.cuModuleLoadData = [](CUmodule*, const void*) { return CUresult{222}; };  // UNSUPPORTED_PTX_VERSION
  std::vector<QdArg> args(2);
  try {
    launch_cuda(kernel({{"fill", true, 128}}), args.data(), 2, nullptr, 0, {});
    FAIL() << "no CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleLoadData(kernel 'fake_kernel', PTX) with a driver for CUDA 12.8 "
                                         "(NVRTC must not be newer than the driver: install the matching one, e.g. "
                                         "`pip install nvidia-cuda-nvrtc-cu12`, or set QD_NVRTC_PATH) failed"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.code, 222);
  }
}

}  // namespace
}  // namespace qd
