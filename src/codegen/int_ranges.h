// src/codegen/int_ranges.h: the values an integer expression can take, so that only the signed
// arithmetic that can overflow is rendered as a wrapping helper.
//
// Signed add/sub/mul/neg wrap (docs/IR.md). Rendering every one through the unsigned type is
// correct, but it hides from the C compiler that `i + 1` on an i32 loop index cannot overflow: the
// index can then no longer be widened to 64-bit addressing, and stencils stop vectorizing. Where the
// operands' ranges prove that the exact result fits the type, plain C arithmetic is the same value
// with no undefined behaviour, and the compiler keeps its freedom.
//
// The ranges are conservative intervals: constants, array extents ([0, max]; an i32 extent is
// checked at launch), loop variables ([0, extent) and [begin, end)), and locals that are declared
// once and never assigned, propagated through arithmetic, casts, min/max, selects and a few
// operators by constants. Anything else has its type's whole range (or none, for u64).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace qd::codegen {

struct IntRange {
  int64_t lo, hi;  // inclusive
};

class IntRanges {
 public:
  // Scopes follow the renderer's blocks: a binding made inside one is dropped when it ends. An
  // opaque scope (a function body) sees none of the bindings outside it.
  void push(bool opaque = false);
  void pop();
  // `name` holds values in `range` from here to the end of the scope (nullopt: anything its type holds).
  void bind(const std::string& name, std::optional<IntRange> range);

  // What `e` can evaluate to; nullopt when unknown (floats, u64 beyond int64).
  std::optional<IntRange> of(const ir::Expr& e);
  // What `e` converted to `type` (as a C conversion would) can be.
  std::optional<IntRange> of_as(const ir::Expr& e, DtypeCode type);
  // Whether a signed add/sub/mul (or neg) of these operands can leave the result type's range.
  bool may_overflow(ir::BinOp op, const ir::Expr& a, const ir::Expr& b, DtypeCode type);
  bool may_overflow_neg(const ir::Expr& a, DtypeCode type);

  // The range of a loop variable of `type` over [begin, end), or [0, end) when begin is null.
  std::optional<IntRange> loop_range(const ir::Expr* begin, const ir::Expr& end, DtypeCode type);
  // A parallel loop variable over [0, extent) where the extent is the frontend's `max(E, B) - B`
  // (range(B, E) and ndrange bounds, which iterate from 0 and add B back): the loop runs only when
  // that difference did not wrap, so `var + B` lies in [B, E) and cannot overflow. Binds nothing for
  // other extents, or where B might change between the extent and the body (it must be a constant,
  // param, extent or never-assigned local).
  void bind_offset(const std::string& var, const ir::Expr& extent);

 private:
  std::optional<IntRange> compute(const ir::Expr& e);
  std::optional<IntRange> binary(const ir::Binary& b);
  std::optional<IntRange> unary(const ir::Unary& u);
  std::optional<IntRange> lookup(const ir::Var& v);
  std::optional<IntRange> offset_sum(const ir::Expr& a, const ir::Expr& b);
  bool lookup_bound(const std::string& name) const;

  struct Offset {
    ir::Expr begin;  // B (compared structurally: ir/ir_equal.h)
    IntRange sum;       // the range of var + B
  };

  struct Scope {
    bool opaque;
    std::map<std::string, std::optional<IntRange>> names;
    std::map<std::string, Offset> offsets;
  };
  std::vector<Scope> scopes_{Scope{true, {}, {}}};
  // Valid while no binding changes (one statement's expressions); the nodes are immutable.
  std::unordered_map<const ir::ExprNode*, std::optional<IntRange>> cache_;
};

}  // namespace qd::codegen
