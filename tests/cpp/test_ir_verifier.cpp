// tests/cpp/test_ir_verifier.cpp: the verifier accepts each stage's IR and names the broken invariant.
#include <gtest/gtest.h>

#include "ir/ir_parser.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "quadrants/errors.h"

namespace qd::ir {
namespace {

std::string kernel_with(const std::string& body) {
  return "(kernel k (options (default_fp f32) (default_ip i32) (debug 0) (fast_math 0))\n"
         "  (params (array x f32 1 () 1 1) (scalar n i32)) (returns void)\n  (body " + body + "))";
}

std::string verify_error(const Kernel& k, Stage stage) {
  try {
    verify(k, stage);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(IrVerifier, PipelineOutputIsTyped) {
  Kernel k = parse_kernel(kernel_with(
      "(decl s (const int 0)) (parallel_for (i) ((arg n)) (config (block_dim 0) (serialize 0)) ("
      "(store x ((var i)) () (bin truediv (var i) (const int 2))) (eval (atomic add (var s) (var i)))))"));
  EXPECT_EQ(verify_error(k, Stage::parsed), "");
  EXPECT_NE(verify_error(k, Stage::typed), "");
  Kernel typed = passes::run_pipeline(k);
  EXPECT_EQ(verify_error(typed, Stage::checked), "");
  EXPECT_EQ(verify_error(typed, Stage::typed), "");
}

TEST(IrVerifier, NamesTheBrokenInvariant) {
  Kernel undeclared = parse_kernel(kernel_with("(assign q (const int 1))"));
  EXPECT_EQ(verify_error(undeclared, Stage::parsed), "");
  EXPECT_NE(verify_error(undeclared, Stage::checked).find("assign to undeclared local or loop var q"), std::string::npos);

  Kernel untyped = parse_kernel(kernel_with("(decl q i32 (const int 1))"));
  EXPECT_NE(verify_error(untyped, Stage::typed).find("untyped expression (const int 1)"), std::string::npos);

  Kernel mismatch = parse_kernel(kernel_with("(decl q i32 (const f32 1.0))"));
  EXPECT_NE(verify_error(mismatch, Stage::typed).find("a decl's value has type f32 where i32 is required"),
            std::string::npos);

  Kernel nested = parse_kernel(kernel_with(
      "(if (arg n) ((parallel_for (i) ((arg n)) (config (block_dim 0) (serialize 0)) ())) ())"));
  EXPECT_NE(verify_error(nested, Stage::checked).find("parallel_for below the top level"), std::string::npos);
}

}  // namespace
}  // namespace qd::ir
