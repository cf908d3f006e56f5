// tests/cpp/test_cuda_runtime_launch.cpp: launch_cuda with hand-written PTX: grid-stride tasks, return values, kernel errors.
#include <gtest/gtest.h>

#include <cstdlib>

#include <memory>
#include <vector>

#include "test_views.h"
#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"

namespace qd {
namespace {

using testing::array_and_scalar_args;
using testing::host_view;

// Three tasks with the launcher's signature (args, frame, error, error_flag), written for PTX ISA
// 7.0 / sm_52 so that any driver since CUDA 11 can JIT them. QdArg offsets: data 0, shape 8,
// strides 120, scalar 232, size 240 (checked in test_cuda_runtime.cpp), so args[1].scalar is at 472.
//   qd_test_fill:   args[0].data[i * strides[0]] = float(i) for i < shape[0], grid-stride
//   qd_test_return: *(int64_t*)frame = args[1].scalar.i + 1
//   qd_test_report: the first caller records an out-of-bounds index args[1].scalar.i for arg 0, dim 0
constexpr const char* kTestPtx = R"PTX(
.version 7.0
.target sm_52
.address_size 64

.visible .entry qd_test_fill(.param .u64 fill_args, .param .u64 fill_frame, .param .u64 fill_error, .param .u64 fill_flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [fill_args];
  cvta.to.global.u64 %rd1, %rd1;
  ld.global.u64 %rd2, [%rd1];
  cvta.to.global.u64 %rd2, %rd2;
  ld.global.u64 %rd3, [%rd1+8];
  ld.global.u64 %rd4, [%rd1+120];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd5, %r1, %r2;
  cvt.u64.u32 %rd6, %r3;
  add.s64 %rd5, %rd5, %rd6;
  mov.u32 %r1, %nctaid.x;
  mul.wide.u32 %rd7, %r1, %r2;
fill_loop:
  setp.ge.s64 %p1, %rd5, %rd3;
  @%p1 bra fill_done;
  mul.lo.s64 %rd8, %rd5, %rd4;
  shl.b64 %rd8, %rd8, 2;
  add.s64 %rd9, %rd2, %rd8;
  cvt.rn.f32.s64 %f1, %rd5;
  st.global.f32 [%rd9], %f1;
  add.s64 %rd5, %rd5, %rd7;
  bra.uni fill_loop;
fill_done:
  ret;
}

.visible .entry qd_test_return(.param .u64 return_args, .param .u64 return_frame, .param .u64 return_error, .param .u64 return_flag)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [return_args];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [return_frame];
  cvta.to.global.u64 %rd2, %rd2;
  ld.global.u64 %rd3, [%rd1+472];
  add.s64 %rd3, %rd3, 1;
  st.global.u64 [%rd2], %rd3;
  ret;
}

.visible .entry qd_test_report(.param .u64 report_args, .param .u64 report_frame, .param .u64 report_error, .param .u64 report_flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [report_flag];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 0;
  mov.u32 %r2, 1;
  atom.global.cas.b32 %r3, [%rd1], %r1, %r2;
  setp.ne.s32 %p1, %r3, 0;
  @%p1 bra report_done;
  ld.param.u64 %rd2, [report_error];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [report_args];
  cvta.to.global.u64 %rd3, %rd3;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r1;
  st.global.u32 [%rd2+8], %r2;
  st.global.u32 [%rd2+12], %r1;
  ld.global.u64 %rd4, [%rd3+472];
  st.global.u64 [%rd2+16], %rd4;
report_done:
  ret;
}
)PTX";

// Hand-written PTX runs only on a real driver; QD_CUDA_DRIVER_PATH names the CPU emulation in the tests.
#define SKIP_WITHOUT_REAL_DRIVER()                                                        \
  if (!cuda_status().empty()) GTEST_SKIP() << "CUDA: " << cuda_status();                  \
  if (std::getenv("QD_CUDA_DRIVER_PATH")) GTEST_SKIP() << "hand-written PTX needs the GPU"

std::shared_ptr<CudaCompiledKernel> test_kernel(std::vector<CudaTask> tasks) {
  auto kernel = std::make_shared<CudaCompiledKernel>();
  kernel->name = "ptx_test";
  kernel->image.assign(kTestPtx, kTestPtx + std::char_traits<char>::length(kTestPtx));
  kernel->is_ptx = true;
  kernel->tasks = std::move(tasks);
  kernel->frame_bytes = 8;
  return kernel;
}

ArrayView host_floats(std::vector<float>& values) {
  ArrayView view;
  view.data = values.data();
  view.ndim = 1;
  view.shape[0] = static_cast<int64_t>(values.size());
  view.strides[0] = 1;
  return view;
}

TEST(CudaLaunch, ParallelTaskThenReturnValue) {
  SKIP_WITHOUT_REAL_DRIVER();
  auto kernel = test_kernel({{"qd_test_fill", true, 128}, {"qd_test_return", false, 1}});
  kernel->returns = {DtypeCode::i64};
  const int64_t n = 100000;  // more than one grid-stride lap on any GPU
  auto array = create_cuda_array(DtypeCode::f32, {n}, {}, 0);
  std::vector<QdArg> args = array_and_scalar_args(array->view(), 41);
  std::vector<QdArg> result = launch_cuda(kernel, args.data(), 2, nullptr, 0, {"x", "k"});
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0].scalar.i, 42);
  std::vector<float> back(n);
  copy_view_cuda(host_floats(back), array->view(), nullptr);
  for (int64_t i = 0; i < n; i += 9973) EXPECT_EQ(back[i], static_cast<float>(i));
  EXPECT_EQ(back[n - 1], static_cast<float>(n - 1));
}

TEST(CudaLaunch, StridedArgumentAndNoResultIsAsynchronous) {
  SKIP_WITHOUT_REAL_DRIVER();
  auto kernel = test_kernel({{"qd_test_fill", true, 0}});  // block_dim 0: the default
  auto array = create_cuda_array(DtypeCode::f32, {10}, {}, 0);
  ArrayView odd = array->view();
  odd.data = static_cast<float*>(odd.data) + 1;
  odd.shape[0] = 5;
  odd.strides[0] = 2;
  std::vector<QdArg> args = array_and_scalar_args(odd, 0);
  EXPECT_TRUE(launch_cuda(kernel, args.data(), 2, nullptr, 0, {}).empty());
  for (int repeat = 0; repeat < 200; ++repeat) launch_cuda(kernel, args.data(), 2, nullptr, 0, {});  // reuses slots
  cuda_synchronize(nullptr);
  std::vector<float> back(10);
  copy_view_cuda(host_floats(back), array->view(), nullptr);
  EXPECT_EQ(back, (std::vector<float>{0, 0, 0, 1, 0, 2, 0, 3, 0, 4}));
}

TEST(CudaLaunch, DebugKernelErrorBecomesIndexError) {
  SKIP_WITHOUT_REAL_DRIVER();
  auto kernel = test_kernel({{"qd_test_report", false, 1}});
  kernel->debug = true;
  auto array = create_cuda_array(DtypeCode::f32, {4}, {}, 0);
  std::vector<QdArg> args = array_and_scalar_args(array->view(), 7);
  try {
    launch_cuda(kernel, args.data(), 2, nullptr, 0, {"x", "k"});
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "Out of bound access: Kernel 'ptx_test': index (7,) is out of bounds for 'x' of shape (4,) "
                           "in dimension 0.");
  }
}

TEST(CudaLaunch, MissingTaskFunctionNamesKernelAndTask) {
  SKIP_WITHOUT_REAL_DRIVER();
  auto kernel = test_kernel({{"qd_no_such_task", false, 1}});
  std::vector<QdArg> args(2);
  try {
    launch_cuda(kernel, args.data(), 2, nullptr, 0, {});
    FAIL() << "no CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cuModuleGetFunction(kernel 'ptx_test', task 'qd_no_such_task') failed: "
                                         "CUDA_ERROR_NOT_FOUND"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaLaunch, KernelsLoadOncePerLifetime) {
  SKIP_WITHOUT_REAL_DRIVER();
  auto array = create_cuda_array(DtypeCode::f32, {16}, {}, 0);
  std::vector<QdArg> args = array_and_scalar_args(array->view(), 1);
  for (int round = 0; round < 3; ++round) {  // each round's kernel dies and its module is unloaded
    auto kernel = test_kernel({{"qd_test_return", false, 1}});
    kernel->returns = {DtypeCode::i64};
    EXPECT_EQ(launch_cuda(kernel, args.data(), 2, nullptr, 0, {})[0].scalar.i, 2);
    EXPECT_EQ(launch_cuda(kernel, args.data(), 2, nullptr, 0, {})[0].scalar.i, 2);
  }
}

// The code generator's output (include/quadrants/cuda_jit.h) through this launcher, end to end.
TEST(CudaLaunch, GeneratedKernelAddsSumsAndChecksBounds) {
  if (!cuda_status().empty()) GTEST_SKIP() << "CUDA: " << cuda_status();
  if (!nvrtc_available()) GTEST_SKIP() << "NVRTC not found";
  const CudaDeviceInfo& info = cuda_init(0);
  std::string body = R"(
    (decl s f32 (const f32 0.0))
    (parallel_for (i) ((shape x 0)) (config (block_dim 64) (serialize 0)) (
      (store x ((var i)) () (bin add (load x ((var i)) ()) (arg v)))
      (eval (atomic add (var s) (load x ((var i)) ())))))
    (return (var s)))";
  std::string ir = "(kernel add_sum (options (debug 0)) (params (array x f32 1 () 1 1) (scalar v f32)) "
                   "(returns f32) (body " + body + "))";
  auto kernel = compile_kernel_cuda(ir, info.compute_capability_major, info.compute_capability_minor);
  const int64_t n = 1000;
  auto array = create_cuda_array(DtypeCode::f32, {n}, {}, 0);
  std::vector<QdArg> args = array_and_scalar_args(array->view(), 0);
  args[1].scalar.f = 0.5;
  std::vector<QdArg> result = launch_cuda(kernel, args.data(), 2, nullptr, 0, {"x", "v"});
  ASSERT_EQ(result.size(), 1u);
  EXPECT_DOUBLE_EQ(result[0].scalar.f, 500.0);
  std::string oob_body = R"(
    (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0)) (
      (store x ((var i)) () (load x ((bin add (var i) (const int 1))) ())))))";
  auto checked = compile_kernel_cuda("(kernel shift (options (debug 1)) (params (array x f32 1 () 1 1) (scalar v f32)) "
                                     "(returns void) (body " + oob_body + "))",
                                     info.compute_capability_major, info.compute_capability_minor);
  try {
    launch_cuda(checked, args.data(), 2, nullptr, 0, {"x", "v"});
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "Out of bound access: Kernel 'shift': index (1000,) is out of bounds for 'x' of shape "
                           "(1000,) in dimension 0.");
  }
}

TEST(CudaLaunch, WithoutCudaIsACudaError) {
  if (cuda_status().empty()) GTEST_SKIP() << "CUDA is usable here";
  auto kernel = test_kernel({{"qd_test_return", false, 1}});
  std::vector<QdArg> args(2);
  EXPECT_THROW(launch_cuda(kernel, args.data(), 2, nullptr, 0, {}), CudaError);
}

}  // namespace
}  // namespace qd
