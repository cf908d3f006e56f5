// tests/cpp/test_jit_end_to_end.cpp: IR text -> compiled library -> results in memory, run with a serial pool.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "jit/compiler.h"
#include "quadrants/launch.h"
#include "runtime/kernel_error.h"
#include "test_ir_helpers.h"
#include "test_jit_helpers.h"

namespace qd::testing {
namespace {

std::string kernel(const std::string& name, const std::string& params, const std::string& returns,
                   const std::string& body, int debug = 0) {
  return "(kernel " + name + " (options (default_fp f32) (default_ip i32) (debug " + std::to_string(debug) +
         ") (fast_math 0))\n (params " + params + ")\n (returns " + returns + ")\n (body " + body + "))";
}

const char* kLoop1 = "(config (block_dim 0) (serialize 0))";

class Jit : public JitTest {};

TEST_F(Jit, Saxpy) {
  auto k = compile_kernel(kernel("saxpy", "(scalar a f32) (array x f32 1 () 1 0) (array y f32 1 () 1 1)", "void",
      std::string("(parallel_for (i) ((shape x 0)) ") + kLoop1 +
          " ((store y ((var i)) () (bin add (bin mul (arg a) (load x ((var i)) ())) (load y ((var i)) ())))))"));
  EXPECT_EQ(k->name, "saxpy");
  EXPECT_EQ(k->num_params, 3);
  EXPECT_TRUE(k->returns.empty());
  std::vector<float> x(100), y(100);
  for (int i = 0; i < 100; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  Launch launch;
  launch(*k, {float_arg(2.0), array_arg(x.data(), {100}), array_arg(y.data(), {100})});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(y[i], 2.0f * i + 1.0f);
}

TEST_F(Jit, ReductionWithAtomicsAndReturn) {
  auto k = compile_kernel(kernel("total", "(array x i32 1 () 1 1) (array out f64 1 () 1 1)", "i32",
      std::string("(decl s (const int 0)) (parallel_for (i) ((shape x 0)) ") + kLoop1 +
          " ((eval (atomic add (var s) (load x ((var i)) ())))"
          "  (eval (atomic add out ((const int 0)) () (bin truediv (load x ((var i)) ()) (const int 2))))"
          "  (eval (atomic max out ((const int 1)) () (load x ((var i)) ())))))"
          " (return (var s))"));
  EXPECT_EQ(k->returns, std::vector<DtypeCode>{DtypeCode::i32});
  std::vector<int32_t> x(1000);
  for (int i = 0; i < 1000; ++i) x[i] = i;
  std::vector<double> out = {0.0, -1.0};
  Launch launch;
  launch(*k, {array_arg(x.data(), {1000}), array_arg(out.data(), {2})});
  EXPECT_EQ(launch.ret.scalar.i, 999 * 1000 / 2);
  EXPECT_EQ(out[0], 999 * 1000 / 4.0);
  EXPECT_EQ(out[1], 999.0);
}

TEST_F(Jit, SeveralReturnedValuesThroughLaunchKernel) {
  // A vector or tuple return: one QdArg per value, each converted to its own type.
  auto k = compile_kernel(kernel("several", "(scalar a f32)", "f32 i32 u64 u1",
                                 "(return (bin mul (arg a) (const int 2)) (arg a) (const u64 18446744073709551615) "
                                 "(bin gt (arg a) (const int 1)))"));
  EXPECT_EQ(k->returns, (std::vector<DtypeCode>{DtypeCode::f32, DtypeCode::i32, DtypeCode::u64, DtypeCode::u1}));
  std::vector<QdArg> values;
  QdArg first = launch_kernel(*k, {KernelArg::of_float(2.75)}, &values);
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(first.scalar.f, 5.5);
  EXPECT_EQ(values[0].scalar.f, 5.5);
  EXPECT_EQ(values[1].scalar.i, 2);
  EXPECT_EQ(static_cast<uint64_t>(values[2].scalar.i), UINT64_MAX);
  EXPECT_EQ(values[3].scalar.i, 1);
}

TEST_F(Jit, StridedAndTwoDimensional) {
  // out[i, j] = in[i, j] * 10 + j, with `in` a transposed view and chunks splitting rows.
  auto k = compile_kernel(kernel("strided", "(array src i64 2 () 0 0) (array dst i64 2 () 1 1)", "void",
      std::string("(parallel_for (i j) ((shape dst 0) (shape dst 1)) ") + kLoop1 +
          " ((store dst ((var i) (var j)) () (bin add (bin mul (load src ((var i) (var j)) ()) (const int 10))"
          " (var j)))))"));
  std::vector<int64_t> base(4 * 5), dst(5 * 4, -1);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) base[r * 5 + c] = r * 100 + c;
  Launch launch;  // src = base.T: shape (5, 4), strides (1, 5)
  launch(*k, {array_arg(base.data(), {5, 4}, {1, 5}), array_arg(dst.data(), {5, 4})});
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst[i * 4 + j], (j * 100 + i) * 10 + j) << i << "," << j;

  std::vector<int64_t> reversed(6, 0), values = {0, 1, 2, 3, 4, 5};
  auto copy = compile_kernel(kernel("reverse_copy", "(array src i64 1 () 0 0) (array dst i64 1 () 0 1)", "void",
      std::string("(parallel_for (i) ((shape dst 0)) ") + kLoop1 + " ((store dst ((var i)) () (load src ((var i)) ()))))"));
  launch(*copy, {array_arg(values.data() + 5, {6}, {-1}), array_arg(reversed.data(), {6})});
  EXPECT_EQ(reversed, (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
}

TEST_F(Jit, PythonArithmeticSemantics) {
  auto k = compile_kernel(kernel("arith",
      "(array a i32 1 () 1 0) (array b i32 1 () 1 0) (array q i32 1 () 1 1) (array r i32 1 () 1 1)"
      " (array d f32 1 () 1 1) (array fm f64 1 () 1 1) (array p i32 1 () 1 1)", "void",
      std::string("(parallel_for (i) ((shape a 0)) ") + kLoop1 +
          " ((decl x (load a ((var i)) ())) (decl y (load b ((var i)) ()))"
          "  (store q ((var i)) () (bin floordiv (var x) (var y)))"
          "  (store r ((var i)) () (bin mod (var x) (var y)))"
          "  (store d ((var i)) () (bin truediv (var x) (var y)))"
          "  (store fm ((var i)) () (bin mod (cast f64 (var x)) (cast f64 (var y))))"
          "  (store p ((var i)) () (bin pow (var x) (const int 3)))))"));
  std::vector<int32_t> a = {7, -7, 7, -7, 5, INT32_MIN}, b = {2, 2, -2, -2, 0, -1}, q(6), r(6), p(6);
  std::vector<float> d(6);
  std::vector<double> fm(6);
  Launch launch;
  launch(*k, {array_arg(a.data(), {6}), array_arg(b.data(), {6}), array_arg(q.data(), {6}), array_arg(r.data(), {6}),
              array_arg(d.data(), {6}), array_arg(fm.data(), {6}), array_arg(p.data(), {6})});
  // Integer division by zero and INT_MIN // -1 must not raise SIGFPE.
  EXPECT_EQ(q, (std::vector<int32_t>{3, -4, -4, 3, 0, INT32_MIN}));
  EXPECT_EQ(r, (std::vector<int32_t>{1, 1, -1, -1, 0, 0}));
  EXPECT_EQ(std::vector<float>(d.begin(), d.begin() + 4), (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f}));
  EXPECT_EQ(std::vector<double>(fm.begin(), fm.begin() + 4), (std::vector<double>{1.0, 1.0, -1.0, -1.0}));
  EXPECT_EQ(std::vector<int32_t>(p.begin(), p.begin() + 4), (std::vector<int32_t>{343, -343, 343, -343}));
}

TEST_F(Jit, HalfMatricesAndControlFlow) {
  // m is a 1-d array of 2x2 f16 matrices; t[i] = trace(m[i]) counted up with while/continue/break.
  auto k = compile_kernel(kernel("trace", "(array m f16 1 (2 2) 1 0) (array t f16 1 () 1 1) (array n i32 1 () 1 1)",
      "void", std::string("(parallel_for (i) ((shape m 0)) ") + kLoop1 +
          " ((store t ((var i)) () (bin add (load m ((var i)) (0 0)) (load m ((var i)) (1 1))))"
          "  (decl c (const int 0)) (decl k (const int 0))"
          "  (while (const int 1) ((assign k (bin add (var k) (const int 1)))"
          "    (if (bin gt (var k) (const int 10)) ((break)) ())"
          "    (if (bin mod (var k) (const int 2)) ((continue)) ())"
          "    (assign c (bin add (var c) (var k)))))"
          "  (store n ((var i)) () (var c))))"));
  auto half = [](float f) { return qd::testing::half_bits(f); };
  std::vector<uint16_t> m = {half(1.5f), half(9.0f), half(9.0f), half(2.25f), half(-1.0f), 0, 0, half(0.5f)};
  std::vector<uint16_t> t(2);
  std::vector<int32_t> n(2);
  Launch launch;
  launch(*k, {array_arg(m.data(), {2, 2, 2}), array_arg(t.data(), {2}), array_arg(n.data(), {2})});
  EXPECT_EQ(t[0], half(3.75f));
  EXPECT_EQ(t[1], half(-0.5f));
  EXPECT_EQ(n, (std::vector<int32_t>{30, 30}));
}

TEST_F(Jit, DebugModeReportsTheFirstOutOfBoundsIndex) {
  auto k = compile_kernel(kernel("oob", "(array x f32 2 () 1 1) (scalar n i32)", "void",
      std::string("(parallel_for (i) ((arg n)) ") + kLoop1 +
          " ((store x ((const int 1) (var i)) () (const float 1.0))))", 1));
  EXPECT_TRUE(k->debug);
  std::vector<float> x(2 * 4, 0.0f);
  Launch launch;
  launch(*k, {array_arg(x.data(), {2, 4}), int_arg(10)});
  EXPECT_EQ(launch.error_flag, 1);
  EXPECT_EQ(launch.error.code, 1);
  EXPECT_EQ(launch.error.arg_index, 0);
  EXPECT_EQ(launch.error.ndim, 2);
  EXPECT_EQ(launch.error.dim, 1);
  EXPECT_EQ(launch.error.index[0], 1);
  EXPECT_EQ(launch.error.index[1], 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(x[4 + i], 1.0f);  // in-bounds stores before the error happened
}

TEST_F(Jit, DebugModeReportsFailedAsserts) {
  auto k = compile_kernel(kernel("checked", "(scalar n i32)", "void",
      "(assert (bin gt (arg n) (const int 0)) \"n must be positive\")", 1));
  ASSERT_EQ(k->assert_messages, std::vector<std::string>{"n must be positive"});
  Launch ok, failed;
  ok(*k, {int_arg(3)});
  EXPECT_EQ(ok.error_flag, 0);
  failed(*k, {int_arg(-3)});
  EXPECT_EQ(failed.error.code, 2);
  EXPECT_EQ(failed.error.arg_index, 0);
}

// An assert's message values travel home as bits in the error record; the host formats them by each
// conversion's letter (ints as long long, floats as double) and undoes the '%' the renderer doubled.
TEST_F(Jit, DebugModeCarriesAssertValuesHome) {
  auto k = compile_kernel(kernel("shown", "(scalar n i32) (scalar x f32)", "void",
      "(assert (bin gt (arg n) (const int 0)) \"n = \" (arg n) \", x \" (fmt \"+.1f\" (arg x)) \" 100%\")", 1));
  ASSERT_EQ(k->assert_messages, std::vector<std::string>{"n = %lld, x %+.1f 100%%"});
  Launch failed;
  failed(*k, {int_arg(-3), float_arg(2.25f)});
  ASSERT_EQ(failed.error.code, 2);
  ASSERT_EQ(failed.error.ndim, 2);
  EXPECT_EQ(format_assert_message(k->assert_messages[0], failed.error.index, failed.error.ndim),
            "n = -3, x +2.2 100%");
}

TEST_F(Jit, SecondCompileHitsTheCache) {
  std::string text = kernel("cached", "(array x i32 1 () 1 1)", "void",
                            std::string("(parallel_for (i) ((shape x 0)) ") + kLoop1 + " ((store x ((var i)) () (var i))))");
  auto start = std::chrono::steady_clock::now();
  auto first = compile_kernel(text);
  double cold_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  int runs = jit::compiler_runs();
  std::string first_path = first->library_path;
  first.reset();  // unloaded: the next compile reads the disk cache (a live kernel would be shared instead)
  start = std::chrono::steady_clock::now();
  auto second = compile_kernel(text);
  double warm_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(jit::compiler_runs(), runs);
  EXPECT_EQ(first_path, second->library_path);
  EXPECT_LT(warm_ms, 20.0);
  std::printf("cold compile %.1f ms, warm-cache compile %.2f ms\n", cold_ms, warm_ms);
}

TEST_F(Jit, ALiveKernelIsSharedByTheSameIrAndFreedWithItsLastUser) {
  std::string text = kernel("shared_ir", "(array x i32 1 () 1 1)", "void",
                            std::string("(parallel_for (i) ((shape x 0)) ") + kLoop1 + " ((store x ((var i)) () (const int 7))))");
  auto first = compile_kernel(text);
  auto again = compile_kernel(text);
  EXPECT_EQ(first.get(), again.get());  // one CompiledKernel (and one copy of its source) for both
  std::weak_ptr<const CompiledKernel> watch = first;
  first.reset();
  again.reset();
  EXPECT_TRUE(watch.expired());  // the table holds no reference: freed with its last user
  auto later = compile_kernel(text);
  ASSERT_NE(later, nullptr);
  EXPECT_NE(later->entry, nullptr);
}

TEST_F(Jit, FastMathIsPartOfTheCacheKey) {
  std::string text = kernel("scaled", "(array x f32 1 () 1 1)", "void",
                            std::string("(parallel_for (i) ((shape x 0)) ") + kLoop1 +
                                " ((store x ((var i)) () (bin truediv (load x ((var i)) ()) (const float 4.0)))))");
  std::string fast = text;
  fast.replace(fast.find("(fast_math 0)"), 13, "(fast_math 1)");
  auto precise = compile_kernel(text), quick = compile_kernel(fast);
  EXPECT_NE(precise->library_path, quick->library_path);
  std::vector<float> x = {8.0f, 2.0f};
  Launch launch;
  launch(*quick, {array_arg(x.data(), {2})});
  EXPECT_EQ(x, (std::vector<float>{2.0f, 0.5f}));
}

TEST_F(Jit, CompilerFailureKeepsTheSource) {
  try {
    jit::compile_and_load("broken", "this is not C++;\n", false, true);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("The C++ compiler failed on kernel 'broken'"), std::string::npos) << message;
    EXPECT_NE(message.find("the generated source is kept at " + cache_dir() + "/broken-"), std::string::npos) << message;
    EXPECT_NE(message.find("error"), std::string::npos) << message;
  }
}

TEST_F(Jit, LineDirectivesPointAtThePythonSource) {
  auto k = compile_kernel(
      "(kernel located (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0) (source_file \"demo.py\"))"
      " (params (array x f32 1 () 1 1)) (returns void)"
      " (body (loc 12 4 (store x ((const int 0)) () (const float 1.0)))))");
  EXPECT_NE(k->source.find("#line 12 \"demo.py\"\n  a_x[(int64_t)(0)] = 0x1p+0f;"), std::string::npos)
      << k->source;
}

}  // namespace
}  // namespace qd::testing
