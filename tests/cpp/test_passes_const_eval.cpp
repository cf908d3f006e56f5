// tests/cpp/test_passes_const_eval.cpp: constant folding agrees bit for bit with the generated code.
//
// One JIT-compiled kernel applies every integer operator to arrays of random operands; folding
// the same operator on the same constants must give the same value wherever it folds at all.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ir/ir.h"
#include "passes/const_eval.h"
#include "test_jit_helpers.h"

namespace qd::passes {
namespace {

using namespace qd::ir;
using qd::testing::array_arg;

const std::vector<BinOp> kIntOps = {
    BinOp::add, BinOp::sub, BinOp::mul, BinOp::floordiv, BinOp::mod, BinOp::pow, BinOp::min, BinOp::max,
    BinOp::bit_and, BinOp::bit_or, BinOp::bit_xor, BinOp::shl, BinOp::shr, BinOp::lshr, BinOp::eq, BinOp::lt,
    BinOp::ge, BinOp::logical_and, BinOp::logical_or};

// out[k, i] = i64(a[i] OP_k b[i]) for every operator.
std::string all_ops_kernel(DtypeCode t) {
  std::string type(dtype_name(t)), body;
  for (size_t k = 0; k < kIntOps.size(); ++k) {
    body += " (store out ((const int " + std::to_string(k) + ") (var i)) () (bin " +
            std::string(binop_name(kIntOps[k])) + " (load a ((var i)) ()) (load b ((var i)) ())))";
  }
  return "(kernel ops_" + type + " (options) (params (array a " + type + " 1 () 1 0) (array b " + type +
         " 1 () 1 0) (array out i64 2 () 1 1)) (returns void) (body (parallel_for (i) ((shape a 0))"
         " (config (block_dim 0) (serialize 0)) (" + body + "))))";
}

class ConstEval : public qd::testing::JitTest {};

template <class T>
void check_type(DtypeCode t, std::mt19937_64& rng) {
  const int n = 500;
  std::vector<T> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    // Small values exercise signs, zero divisors and in-range shifts; raw bits exercise wrap-around.
    bool small = i % 2 == 0;
    a[i] = static_cast<T>(small ? static_cast<int64_t>(rng() % 19) - 9 : static_cast<int64_t>(rng()));
    b[i] = static_cast<T>(small ? static_cast<int64_t>(rng() % 13) - 4 : static_cast<int64_t>(rng()));
  }
  std::vector<int64_t> out(kIntOps.size() * n);
  auto k = compile_kernel(all_ops_kernel(t));
  qd::testing::Launch launch;
  launch(*k, {array_arg(a.data(), {n}), array_arg(b.data(), {n}),
              array_arg(out.data(), {static_cast<int64_t>(kIntOps.size()), n})});
  int folded = 0;
  for (size_t op = 0; op < kIntOps.size(); ++op) {
    for (int i = 0; i < n; ++i) {
      Expr x = Const::make_int(t, static_cast<int64_t>(a[i])), y = Const::make_int(t, static_cast<int64_t>(b[i]));
      std::optional<Expr> result = fold_binary(kIntOps[op], *as<Const>(x), *as<Const>(y));
      if (!result) continue;
      ++folded;
      ASSERT_EQ(as<Const>(*result)->int_value, out[op * n + i])
          << binop_name(kIntOps[op]) << " " << +a[i] << " " << +b[i] << " as " << dtype_name(t);
    }
  }
  EXPECT_GT(folded, static_cast<int>(kIntOps.size()) * n / 2);
}

TEST_F(ConstEval, IntegerFoldingMatchesGeneratedCode) {
  std::mt19937_64 rng(7);
  check_type<int8_t>(DtypeCode::i8, rng);
  check_type<int32_t>(DtypeCode::i32, rng);
  check_type<uint32_t>(DtypeCode::u32, rng);
  check_type<int64_t>(DtypeCode::i64, rng);
}

}  // namespace
}  // namespace qd::passes
