// tests/cpp/test_ir_equal.cpp: structural equality and hashing of IR expressions, and the code generator's
// value ranges that rely on them.
#include <gtest/gtest.h>

#include <cmath>
#include <unordered_set>

#include "codegen/int_ranges.h"
#include "ir/ir_equal.h"
#include "ir/ir_printer.h"

namespace qd::ir {
namespace {

constexpr DtypeCode i32 = DtypeCode::i32;
constexpr DtypeCode i64 = DtypeCode::i64;
constexpr DtypeCode f32 = DtypeCode::f32;

// `(bin add (load x ((var i)) ()) (const i32 1))`, built afresh on every call.
Expr sample() {
  ArrayRef x{"x", {Var::make("i", i32)}, {}};
  return Binary::make(BinOp::add, Load::make(x, i32), Const::make_int(i32, 1), i32);
}

void expect_equal(const Expr& a, const Expr& b) {
  EXPECT_TRUE(same_expr(a, b)) << print_expr(a) << " vs " << print_expr(b);
  EXPECT_EQ(hash_expr(a), hash_expr(b)) << print_expr(a);
}

void expect_different(const Expr& a, const Expr& b) {
  EXPECT_FALSE(same_expr(a, b)) << print_expr(a) << " vs " << print_expr(b);
  EXPECT_FALSE(same_expr(b, a)) << print_expr(b) << " vs " << print_expr(a);
}

TEST(IrEqual, SeparatelyBuiltTreesAreEqual) {
  Expr a = sample(), b = sample();
  ASSERT_NE(a.get(), b.get());
  expect_equal(a, b);
  expect_equal(a, a);
  Expr atomic = Atomic::make_array(AtomicOp::cas, {"y", {Arg::make("j", i32)}, {}}, Const::make_int(i32, 2), i32,
                                   Const::make_int(i32, 0));
  expect_equal(atomic, Atomic::make_array(AtomicOp::cas, {"y", {Arg::make("j", i32)}, {}}, Const::make_int(i32, 2),
                                          i32, Const::make_int(i32, 0)));
  Expr simt = Simt::make(SimtOp::shuffle, {Var::make("v", f32), Const::make_int(i32, 3)}, f32);
  expect_equal(simt, Simt::make(SimtOp::shuffle, {Var::make("v", f32), Const::make_int(i32, 3)}, f32));
  expect_equal(nullptr, nullptr);
}

TEST(IrEqual, EveryPartOfANodeCounts) {
  Expr base = sample();
  ArrayRef x{"x", {Var::make("i", i32)}, {}};
  Expr load = Load::make(x, i32);
  expect_different(base, Binary::make(BinOp::sub, load, Const::make_int(i32, 1), i32));            // operator
  expect_different(base, Binary::make(BinOp::add, load, Const::make_int(i32, 2), i32));            // constant
  expect_different(base, Binary::make(BinOp::add, Const::make_int(i32, 1), load, i32));            // operand order
  expect_different(base, Binary::make(BinOp::add, load, Const::make_int(i32, 1), std::nullopt));   // type
  ArrayRef other_index{"x", {Var::make("k", i32)}, {}};
  expect_different(base, Binary::make(BinOp::add, Load::make(other_index, i32), Const::make_int(i32, 1), i32));
  ArrayRef other_array{"z", {Var::make("i", i32)}, {}};
  expect_different(base, Binary::make(BinOp::add, Load::make(other_array, i32), Const::make_int(i32, 1), i32));
  expect_different(Const::make_untyped_int(1), Const::make_int(i32, 1));                           // literal kind
  expect_different(Cast::make(i64, Var::make("i", i32)), BitCast::make(i64, Var::make("i", i32)));  // kind
  expect_different(Shape::make("x", 0), Shape::make("x", 1));
  expect_different(Var::make("i", i32), Arg::make("i", i32));
  Expr add = Atomic::make_local(AtomicOp::add, "s", Const::make_int(i32, 1), i32);
  expect_different(add, Atomic::make_local(AtomicOp::add, "t", Const::make_int(i32, 1), i32));
  expect_different(add, Atomic::make_array(AtomicOp::add, {"s", {}, {}}, Const::make_int(i32, 1), i32));
  expect_different(Atomic::make_local(AtomicOp::cas, "s", Const::make_int(i32, 1), i32, Const::make_int(i32, 0)),
                   Atomic::make_local(AtomicOp::cas, "s", Const::make_int(i32, 1), i32));  // expected value
  expect_different(Simt::make(SimtOp::shared_load, {Var::make("i", i32)}, f32, "a"),
                   Simt::make(SimtOp::shared_load, {Var::make("i", i32)}, f32, "b"));
  expect_different(sample(), nullptr);
}

TEST(IrEqual, TypesThePrinterLeavesOutStillCount) {
  // The text form names a local without its type; the old text comparison took these for the same.
  Expr narrow = Var::make("n", i32), wide = Var::make("n", i64);
  ASSERT_EQ(print_expr(narrow), print_expr(wide));
  expect_different(narrow, wide);
  expect_different(Shape::make("x", 0, i32), Shape::make("x", 0, i64));
}

TEST(IrEqual, FloatConstantsCompareByBits) {
  expect_equal(Const::make_float(f32, 0.5), Const::make_float(f32, 0.5));
  expect_different(Const::make_float(f32, 0.0), Const::make_float(f32, -0.0));
  expect_equal(Const::make_float(f32, std::nan("")), Const::make_float(f32, std::nan("")));
  expect_different(Const::make_float(f32, 1.0), Const::make_float(DtypeCode::f64, 1.0));
}

TEST(IrEqual, ConstantElementIndicesCompareByValue) {
  ArrayRef a{"m", {Var::make("i", i32)}, {Const::make_int(i32, 1), Const::make_int(i32, 0)}};
  ArrayRef b{"m", {Var::make("i", i32)}, {Const::make_int(i64, 1), Const::make_untyped_int(0)}};
  EXPECT_TRUE(same_ref(a, b));
  EXPECT_EQ(hash_ref(a), hash_ref(b));
  ArrayRef c{"m", {Var::make("i", i32)}, {Const::make_int(i32, 0), Const::make_int(i32, 1)}};
  EXPECT_FALSE(same_ref(a, c));
  ArrayRef runtime{"m", {Var::make("i", i32)}, {Var::make("k", i32), Const::make_int(i32, 0)}};
  EXPECT_FALSE(same_ref(a, runtime));
  EXPECT_TRUE(same_ref(runtime, {"m", {Var::make("i", i32)}, {Var::make("k", i32), Const::make_int(i32, 0)}}));
  // Outer indices are expressions like any other: their types count.
  EXPECT_FALSE(same_ref({"m", {Const::make_int(i32, 1)}, {}}, {"m", {Const::make_int(i64, 1)}, {}}));
}

TEST(IrEqual, HashAndEqualityDeduplicateInUnorderedSets) {
  std::unordered_set<Expr, ExprHash, ExprEqual> set;
  for (int round = 0; round < 3; ++round) {
    set.insert(sample());
    set.insert(Var::make("i", i32));
    set.insert(Const::make_float(f32, 2.0));
  }
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.count(sample()), 1u);
  EXPECT_EQ(set.count(Var::make("i", i64)), 0u);
}

// The code generator's ranges know that `i + B` stays in [B, E) for a loop over `max(E, B) - B`, given
// the same B: rebuilt separately, as the frontend writes it in the extent and again in the body.
TEST(IrEqual, ValueRangesMatchTheLoopOffsetStructurally) {
  auto offset = [] { return Arg::make("b", i32); };
  Expr end = Arg::make("e", i32);
  Expr extent = Binary::make(BinOp::sub, Binary::make(BinOp::max, end, offset(), i32), offset(), i32);
  codegen::IntRanges ranges;
  ranges.push();
  ranges.bind_offset("i", extent);
  Expr i = Var::make("i", i32);
  EXPECT_FALSE(ranges.may_overflow(BinOp::add, i, offset(), i32));
  EXPECT_FALSE(ranges.may_overflow(BinOp::add, offset(), i, i32));
  EXPECT_TRUE(ranges.may_overflow(BinOp::add, i, Arg::make("c", i32), i32));
  EXPECT_TRUE(ranges.may_overflow(BinOp::add, i, Cast::make(i32, Arg::make("b", i64)), i32));
  // An extent whose two B differ binds nothing.
  Expr mismatched = Binary::make(BinOp::sub, Binary::make(BinOp::max, end, offset(), i32), Arg::make("c", i32), i32);
  ranges.bind_offset("j", mismatched);
  EXPECT_TRUE(ranges.may_overflow(BinOp::add, Var::make("j", i32), offset(), i32));
}

}  // namespace
}  // namespace qd::ir
