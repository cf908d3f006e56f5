// src/passes/type_rules.h: Quadrants' (Taichi's) rules for the result types of operators.
#pragma once

#include "ir/ir.h"

namespace qd::passes {

// The common type of two operands: float beats int, wider beats narrower, and at equal width an
// unsigned int beats a signed one; bool (u1) loses to everything.
DtypeCode promote(DtypeCode a, DtypeCode b);

// Comparisons and logical and/or give i32 0/1.
bool gives_i32(ir::BinOp op);

// Operators defined only on integers.
bool needs_integers(ir::BinOp op);
// How Python spells an integer-only operator in messages ('&', '<<', ...); the IR name for the others.
const char* python_symbol(ir::BinOp op);

// Unary operators defined only on integers (logical and bitwise not, and the bit counts popcnt, clz,
// ffs): a float operand is a type error, as upstream's.
bool needs_integer(ir::UnOp op);

// Unary math that upstream defines only on floats (floor, ceil, round and the trigonometric sin, cos,
// tan, asin, acos, tanh): an integer operand is a type error rather than a silent promotion.
bool needs_real(ir::UnOp op);

// Unary math that computes in floating point (an integer operand becomes default_fp first).
bool is_float_math(ir::UnOp op);

// Types `(atomic cas ...)` takes: the integers of 8 to 64 bits. It compares bits, so no floats (a NaN
// never equals itself), and no u1. CUDA swaps a 1- or 2-byte one inside its aligned 32-bit word (qd_runtime.h).
bool has_compare_and_swap(DtypeCode t);

}  // namespace qd::passes
