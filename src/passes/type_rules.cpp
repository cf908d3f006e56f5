// src/passes/type_rules.cpp: operator typing shared by infer_types and simplify.
#include "passes/type_rules.h"

namespace qd::passes {

using ir::BinOp;
using ir::UnOp;

DtypeCode promote(DtypeCode a, DtypeCode b) {
  if (a == b) return a;
  if (a == DtypeCode::u1) return b;
  if (b == DtypeCode::u1) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;
  if (dtype_size(a) != dtype_size(b)) return dtype_size(a) > dtype_size(b) ? a : b;
  return is_signed(a) ? b : a;
}

bool gives_i32(BinOp op) {
  switch (op) {
    case BinOp::eq: case BinOp::ne: case BinOp::lt: case BinOp::le: case BinOp::gt: case BinOp::ge:
    case BinOp::logical_and: case BinOp::logical_or: return true;
    default: return false;
  }
}

bool needs_integers(BinOp op) {
  return op == BinOp::bit_and || op == BinOp::bit_or || op == BinOp::bit_xor || op == BinOp::shl ||
         op == BinOp::shr || op == BinOp::lshr || op == BinOp::rand_bits;
}

const char* python_symbol(BinOp op) {
  switch (op) {
    case BinOp::bit_and: return "&";
    case BinOp::bit_or: return "|";
    case BinOp::bit_xor: return "^";
    case BinOp::shl: return "<<";
    case BinOp::shr: return ">>";
    case BinOp::lshr: return "qd.bit_shr";
    default: return binop_name(op).data();
  }
}

bool needs_integer(UnOp op) {
  return op == UnOp::logical_not || op == UnOp::bit_not || op == UnOp::popcnt || op == UnOp::clz ||
         op == UnOp::ffs;
}

bool needs_real(UnOp op) {
  switch (op) {
    case UnOp::floor: case UnOp::ceil: case UnOp::round: case UnOp::sin: case UnOp::cos: case UnOp::tan:
    case UnOp::asin: case UnOp::acos: case UnOp::tanh: return true;
    default: return false;
  }
}

bool is_float_math(UnOp op) {
  switch (op) {
    case UnOp::sqrt: case UnOp::rsqrt: case UnOp::sin: case UnOp::cos: case UnOp::tan: case UnOp::asin:
    case UnOp::acos: case UnOp::atan: case UnOp::tanh: case UnOp::exp: case UnOp::log: case UnOp::floor:
    case UnOp::ceil: case UnOp::round: case UnOp::log2: case UnOp::exp2: return true;
    default: return false;
  }
}

bool has_compare_and_swap(DtypeCode t) { return !is_float(t) && t != DtypeCode::u1; }

}  // namespace qd::passes
