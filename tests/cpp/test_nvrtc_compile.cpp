// tests/cpp/test_nvrtc_compile.cpp: the CUDA C++ generated for every IR construct compiles with NVRTC to a CUBIN
// for sm_90 (and sm_80), through the disk cache; NVRTC's errors reach the user. Needs NVRTC, not a GPU:
// each test skips when NVRTC cannot be found (the repo's .venv pip package is tried first).
#include <gtest/gtest.h>
#include <glob.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "jit/nvrtc.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "test_ir_helpers.h"

namespace qd {
namespace {

const char* const kDtypes[] = {"u1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"};

bool is_float_name(const std::string& t) { return t[0] == 'f'; }

// Points QD_NVRTC_PATH at the pip package in the repo's .venv unless the environment names one.
bool find_nvrtc() {
  static const bool found = [] {
    glob_t matches{};
    std::string pattern = qd::testing::data_path("../.venv/lib/python3*/site-packages/nvidia/cu13/lib");
    if (::glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0 && matches.gl_pathc > 0) {
      ::setenv("QD_NVRTC_PATH", matches.gl_pathv[0], 0);
    }
    ::globfree(&matches);
    return nvrtc_available();
  }();
  return found;
}

// Each test compiles into its own empty cache, so NVRTC really runs.
class Nvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_nvrtc()) GTEST_SKIP() << "NVRTC not found";
    const char* old = std::getenv("QD_CACHE_DIR");
    saved_cache_ = old ? old : "";
    had_cache_ = old != nullptr;
    char tmpl[] = "/tmp/qd-nvrtc-test-XXXXXX";
    cache_ = ::mkdtemp(tmpl);
    ::setenv("QD_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override {
    if (cache_.empty()) return;
    std::filesystem::remove_all(cache_);
    if (had_cache_) ::setenv("QD_CACHE_DIR", saved_cache_.c_str(), 1);
    if (!had_cache_) ::unsetenv("QD_CACHE_DIR");
  }
  std::string cache_, saved_cache_;
  bool had_cache_ = false;
};

void expect_cubin(const std::string& ir, int major, int minor) {
  auto k = compile_kernel_cuda(ir, major, minor);
  EXPECT_FALSE(k->is_ptx);
  ASSERT_GT(k->image.size(), 4u);
  EXPECT_EQ(std::string(k->image.data(), 4), "\x7f" "ELF");
}

std::string kernel_text(const std::string& name, const std::string& params, const std::string& body,
                        const std::string& returns = "void", int debug = 0) {
  return "(kernel " + name + " (options (debug " + std::to_string(debug) + ")) (params " + params + ") (returns " +
         returns + ") (body " + body + "))";
}

// Every binary, unary and cast form on one dtype, inside a parallel loop.
std::string arithmetic_kernel(const std::string& t) {
  bool f = is_float_name(t), b = t == "u1";
  std::string body = "(decl x (load a ((var i)) ())) (decl y (load s ((var i)) ()))";
  std::vector<std::string> binary = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "min", "max"};
  if (f) binary.push_back("atan2");
  if (!f) binary.insert(binary.end(), {"bit_and", "bit_or", "bit_xor", "shl", "shr"});
  for (const std::string& op : binary) body += " (store o ((var i)) () (bin " + op + " (var x) (var y)))";
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "and", "or"}) {
    body += " (store c ((var i)) () (bin " + std::string(op) + " (var x) (var y)))";
  }
  std::vector<std::string> unary = {"abs", "sqrt", "rsqrt", "atan", "exp", "log"};
  if (f) unary.insert(unary.end(), {"sin", "cos", "tan", "asin", "acos", "tanh", "floor", "ceil", "round"});
  if (!b) unary.push_back("neg");
  if (!f) unary.insert(unary.end(), {"not", "bit_not"});
  for (const std::string& op : unary) body += " (store o ((var i)) () (un " + op + " (var x)))";
  for (const char* to : kDtypes) body += " (store o ((var i)) () (cast " + std::string(to) + " (var x)))";
  body += " (store o ((var i)) () (select (var x) (var y) (var x)))";
  std::string params = "(array a " + t + " 1 () 1 0) (array s " + t + " 1 () 0 0) (array o " + t +
                       " 1 () 1 1) (array c i32 1 () 1 1)";
  std::string loop = "(parallel_for (i) ((shape a 0)) (config (block_dim 0) (serialize 0)) (" + body + "))";
  return kernel_text("arith_" + t, params, loop);
}

// Every atomic op (cas on integers) on an array element and on a shared local, returning the local.
std::string atomic_kernel(const std::string& t, int debug) {
  std::vector<std::string> ops = {"add", "sub", "min", "max"};
  if (!is_float_name(t)) ops.insert(ops.end(), {"and", "or", "xor"});
  std::string body;
  for (const std::string& op : ops) {
    body += " (decl old_" + op + " (atomic " + op + " x ((var i)) () (arg v)))";
    body += " (eval (atomic " + op + " (var s) (var old_" + op + ")))";
  }
  if (!is_float_name(t) && t != "u1") {  // compare-and-swap: every integer of 8 to 64 bits
    body += " (decl old_cas (atomic cas x ((var i)) () (arg v) (var old_add)))";
    body += " (eval (atomic cas (var s) (arg v) (var old_cas)))";
  }
  std::string loop = "(parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0)) (" + body + "))";
  std::string params = "(array x " + t + " 1 () 1 1) (scalar v " + t + ")";
  return kernel_text("atomics_" + t, params, "(decl s " + t + " (arg v)) " + loop + " (return (var s))", t, debug);
}

TEST_F(Nvrtc, ArithmeticOfEveryDtype) {
  for (const char* t : kDtypes) {
    SCOPED_TRACE(t);
    expect_cubin(arithmetic_kernel(t), 9, 0);
  }
}

TEST_F(Nvrtc, AtomicsOfEveryOpAndDtype) {
  for (const char* t : kDtypes) {
    SCOPED_TRACE(t);
    expect_cubin(atomic_kernel(t, 0), 9, 0);
  }
  expect_cubin(atomic_kernel("f16", 1), 8, 0);
  expect_cubin(atomic_kernel("i8", 1), 8, 0);
}

// The CPU and CUDA text-test kernels and the every-construct round-trip kernel, for two architectures.
TEST_F(Nvrtc, IrTestKernelsForSm90AndSm80) {
  int count = 0;
  for (const char* folder : {"ir/codegen_cuda", "ir/codegen", "ir/roundtrip"}) {
    for (const auto& entry : std::filesystem::directory_iterator(qd::testing::data_path(folder))) {
      SCOPED_TRACE(entry.path().string());
      std::string text = qd::testing::read_text(entry.path().string());
      expect_cubin(text, 9, 0);
      expect_cubin(text, 8, 0);
      ++count;
    }
  }
  EXPECT_GE(count, 10);
}

TEST_F(Nvrtc, ControlFlowLoopsAndReturns) {
  std::string body = R"(
    (decl total i64 (const i64 0))
    (for j (const int 0) (arg n) (
      (decl k (var j))
      (while (bin lt (var k) (arg n)) (
        (if (bin eq (bin mod (var k) (const int 3)) (const int 0)) ((assign k (bin add (var k) (const int 2))) (continue)) ())
        (if (bin gt (var k) (const int 100)) ((break)) ())
        (assign total (bin add (var total) (cast i64 (var k))))
        (assign k (bin add (var k) (const int 1)))))))
    (if (bin lt (var total) (const i64 0)) ((return (var total))) ())
    (parallel_for (i j) ((arg n) (shape m 1)) (config (block_dim 32) (serialize 0)) (
      (if (bin eq (var i) (var j)) ((continue)) ())
      (for q (const i64 0) (cast i64 (var j)) (
        (store m ((var i) (var j)) (1 0) (cast f32 (var q)))))))
    (parallel_for (i) ((const i64 5000000000)) (config (block_dim 0) (serialize 0)) (
      (eval (atomic add (var total) (var i)))))
    (return (bin add (var total) (const i64 1)))
  )";
  expect_cubin(kernel_text("control", "(scalar n i32) (array m f32 2 (2 2) 0 1)", body, "i64"), 9, 0);
  expect_cubin(kernel_text("control_debug", "(scalar n i32) (array m f32 2 (2 2) 0 1)", body, "i64", 1), 9, 0);
}

// @qd.kernel(graph=True): tasks read their QdArgs through a pointer (a graph's nodes keep their parameters), and a
// qd.graph.do_while loop brings the condition kernel, relocatable code that calls cudaGraphSetConditional.
TEST_F(Nvrtc, GraphKernelAndItsConditionKernel) {
  std::string text = qd::testing::read_text(qd::testing::data_path("ir/roundtrip/graph_option.ir"));
  auto k = compile_kernel_cuda(text, 9, 0);
  EXPECT_TRUE(k->graph);
  EXPECT_FALSE(k->args_by_value);
  ASSERT_EQ(k->tasks.size(), 2u);
  ASSERT_EQ(k->tasks[1].loop_ends.size(), 1u);
  EXPECT_EQ(k->condition.unavailable, "");
  EXPECT_FALSE(k->condition.is_ptx);
  ASSERT_GT(k->condition.image.size(), 4u);
  EXPECT_EQ(std::string(k->condition.image.data(), 4), "\x7f" "ELF");
  std::string image(k->condition.image.begin(), k->condition.image.end());
  EXPECT_NE(image.find("cudaGraphSetConditional"), std::string::npos);  // left for the link with libcudadevrt
  EXPECT_NE(image.find("qd_graph_loop_condition"), std::string::npos);
}

TEST_F(Nvrtc, DebugChecksAndAsserts) {
  std::string body = R"(
    (parallel_for (i) ((shape x 0)) (config (block_dim 0) (serialize 0)) (
      (assert (bin lt (load x ((var i)) ()) (const f64 10.0)) "x is too large")
      (store y ((var i) (const int 0)) (2) (cast f16 (load x ((bin add (var i) (const int 1))) ())))
      (eval (atomic max y ((var i) (const int 1)) (0) (const f16 1.0)))))
    (assert (bin gt (shape x 0) (const int 0)) "x is empty"))";
  auto k = compile_kernel_cuda(kernel_text("checks", "(array x f64 1 () 0 0) (array y f16 2 (3) 1 1)", body,
                                           "void", 1), 9, 0);
  EXPECT_EQ(k->assert_messages, (std::vector<std::string>{"x is too large", "x is empty"}));
  EXPECT_TRUE(k->debug);
  ASSERT_EQ(k->tasks.size(), 2u);
  EXPECT_TRUE(k->tasks[0].parallel);
  EXPECT_FALSE(k->tasks[1].parallel);
}

TEST_F(Nvrtc, CachedImageSkipsNvrtcAndKeysOnOptions) {
  std::string text = atomic_kernel("f32", 0);
  int before = jit::nvrtc_runs();
  auto first = compile_kernel_cuda(text, 9, 0);
  auto again = compile_kernel_cuda(text, 9, 0);
  EXPECT_EQ(jit::nvrtc_runs(), before + 1);
  EXPECT_EQ(first->image, again->image);
  std::string fast = text;
  fast.replace(fast.find("(debug 0)"), 9, "(debug 0) (fast_math 1)");
  compile_kernel_cuda(fast, 9, 0);
  compile_kernel_cuda(text, 8, 0);
  EXPECT_EQ(jit::nvrtc_runs(), before + 3);
}

TEST_F(Nvrtc, ReturnsAndFrameLayout) {
  auto k = compile_kernel_cuda(atomic_kernel("u16", 0), 9, 0);
  EXPECT_EQ(k->returns, std::vector<DtypeCode>{DtypeCode::u16});
  EXPECT_EQ(k->frame_bytes, 24);  // the return value, the unused flag slot, and `s`
  ASSERT_EQ(k->tasks.size(), 3u);
  EXPECT_EQ(k->tasks[1].function, "qd_atomics_u16_task1");
  EXPECT_EQ(k->tasks[1].block_dim, 128);
  EXPECT_EQ(k->num_params, 2);
  EXPECT_NE(k->source.find("QD_RUNTIME_H"), std::string::npos);  // the runtime header is inlined
}

TEST_F(Nvrtc, UnsupportedArchitectureFallsBackToPtx) {
  EXPECT_EQ(jit::nvrtc_target(9, 0), "sm_90");
  std::string newer = jit::nvrtc_target(9, 9);
  EXPECT_EQ(newer, "compute_90");
  auto k = compile_kernel_cuda(atomic_kernel("i32", 0), 9, 9);
  EXPECT_TRUE(k->is_ptx);
  EXPECT_NE(std::string(k->image.begin(), k->image.end()).find(".target sm_90"), std::string::npos);
  EXPECT_THROW(jit::nvrtc_target(1, 0), CompileError);
}

TEST_F(Nvrtc, RejectedCodeShowsTheLogAndThePythonLine) {
  std::string source = "#line 12 \"user_kernels.py\"\nextern \"C\" __global__ void f() { undefined_name(); }\n";
  try {
    jit::nvrtc_compile("bad.cu", source, "sm_90", {});
    FAIL() << "NVRTC accepted undefined_name";
  } catch (const CompileError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("NVRTC log:"), std::string::npos) << message;
    EXPECT_NE(message.find("user_kernels.py(12)"), std::string::npos) << message;
    EXPECT_NE(message.find("undefined_name"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace qd
