// src/passes/const_eval.h: evaluates operators on typed constants exactly as generated code would.
#pragma once

#include <optional>

#include "ir/ir.h"

namespace qd::passes {

// Each returns nothing when the result is not known at compile time with certainty: division by
// zero, shifts out of range, f16 arithmetic, transcendental functions (whose last bit depends on
// the target's math library), and float-to-int conversions that overflow.
std::optional<ir::Expr> fold_binary(ir::BinOp op, const ir::Const& a, const ir::Const& b);
std::optional<ir::Expr> fold_unary(ir::UnOp op, const ir::Const& a);
std::optional<ir::Expr> fold_cast(DtypeCode to, const ir::Const& a);

// True when the constant is zero (`value` 0) or one (`value` 1) of its type.
bool const_equals(const ir::Const& c, int value);

}  // namespace qd::passes
