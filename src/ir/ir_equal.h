// src/ir/ir_equal.h: structural equality and hashing of IR expressions and array references.
//
// Two expressions are equal when they are the same tree: the same node kinds, types, operators, names and
// constants, with equal operands in turn. Sharing does not matter (two separately built `(bin add (var i)
// (const i32 1))` are equal), and equality says nothing about values at run time: two equal loads may read
// different values at different points; callers that need the same value also check that the operands are
// invariant. Float constants compare by their bits, so 0.0 and -0.0 differ and a NaN equals the same NaN.
#pragma once

#include <cstddef>

#include "ir/ir.h"

namespace qd::ir {

// Whether a and b are the same expression tree (both null counts as equal).
bool same_expr(const Expr& a, const Expr& b);

// Whether a and b name the same element: the same array and equal indices. A constant element index
// (a vector or matrix entry) compares by its value whatever its integer type, as the printer writes it.
bool same_ref(const ArrayRef& a, const ArrayRef& b);

// Equal expressions (references) hash alike.
size_t hash_expr(const Expr& e);
size_t hash_ref(const ArrayRef& ref);

// For unordered containers keyed by expressions.
struct ExprHash {
  size_t operator()(const Expr& e) const { return hash_expr(e); }
};
struct ExprEqual {
  bool operator()(const Expr& a, const Expr& b) const { return same_expr(a, b); }
};

}  // namespace qd::ir
