// src/passes/const_eval.cpp: constant folding arithmetic with the wrap-around, Python-sign and
// rounding rules of the generated code (qd_runtime.h).
#include "passes/const_eval.h"

#include <cmath>
#include <cstdint>


namespace qd::passes {
namespace {

using namespace qd::ir;

// Wraps an integer to the width of `t`, sign- or zero-extending it back to 64 bits.
int64_t wrap(DtypeCode t, uint64_t v) {
  switch (t) {
    case DtypeCode::u1: return v != 0;
    case DtypeCode::i8: return static_cast<int8_t>(v);
    case DtypeCode::i16: return static_cast<int16_t>(v);
    case DtypeCode::i32: return static_cast<int32_t>(v);
    case DtypeCode::u8: return static_cast<uint8_t>(v);
    case DtypeCode::u16: return static_cast<uint16_t>(v);
    case DtypeCode::u32: return static_cast<uint32_t>(v);
    default: return static_cast<int64_t>(v);
  }
}

std::optional<Expr> make_float(DtypeCode t, double v) {
  if (t == DtypeCode::f16) return std::nullopt;
  return Const::make_float(t, t == DtypeCode::f32 ? static_cast<double>(static_cast<float>(v)) : v);
}

std::optional<Expr> fold_float(BinOp op, DtypeCode t, double x, double y) {
  switch (op) {
    case BinOp::add: return make_float(t, x + y);
    case BinOp::sub: return make_float(t, x - y);
    case BinOp::mul: return make_float(t, x * y);
    case BinOp::truediv: return make_float(t, x / y);
    case BinOp::floordiv: return make_float(t, std::floor(x / y));
    case BinOp::raw_div: return make_float(t, x / y);
    case BinOp::raw_mod: return make_float(t, std::fmod(x, y));  // fmod is exact, so libm cannot differ
    case BinOp::min: return make_float(t, x < y ? x : y);
    case BinOp::max: return make_float(t, x > y ? x : y);
    case BinOp::eq: return Const::make_int(DtypeCode::i32, x == y);
    case BinOp::ne: return Const::make_int(DtypeCode::i32, x != y);
    case BinOp::lt: return Const::make_int(DtypeCode::i32, x < y);
    case BinOp::le: return Const::make_int(DtypeCode::i32, x <= y);
    case BinOp::gt: return Const::make_int(DtypeCode::i32, x > y);
    case BinOp::ge: return Const::make_int(DtypeCode::i32, x >= y);
    case BinOp::logical_and: return Const::make_int(DtypeCode::i32, x != 0 && y != 0);
    case BinOp::logical_or: return Const::make_int(DtypeCode::i32, x != 0 || y != 0);
    default: return std::nullopt;  // mod, pow, atan2: rounding differs from the target's libm
  }
}

std::optional<Expr> int_result(DtypeCode t, uint64_t v) { return Const::make_int(t, wrap(t, v)); }

std::optional<Expr> fold_division(BinOp op, DtypeCode t, int64_t x, int64_t y) {
  if (y == 0 || (is_signed(t) && x == INT64_MIN && y == -1)) return std::nullopt;
  if (!is_signed(t)) {
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    return int_result(t, op == BinOp::floordiv ? ux / uy : ux % uy);
  }
  int64_t q = x / y, r = x % y;
  // Python's signs: the quotient rounds down, the remainder takes the divisor's sign.
  if (r != 0 && ((r < 0) != (y < 0))) {
    q -= 1;
    r += y;
  }
  return int_result(t, static_cast<uint64_t>(op == BinOp::floordiv ? q : r));
}

// C's signs, as qd_raw_div/qd_raw_mod compute them; the unfoldable cases are left to the runtime helpers.
std::optional<Expr> fold_raw_division(BinOp op, DtypeCode t, int64_t x, int64_t y) {
  if (y == 0 || (is_signed(t) && x == INT64_MIN && y == -1)) return std::nullopt;
  if (!is_signed(t)) {
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    return int_result(t, op == BinOp::raw_div ? ux / uy : ux % uy);
  }
  return int_result(t, static_cast<uint64_t>(op == BinOp::raw_div ? x / y : x % y));
}

std::optional<Expr> fold_power(DtypeCode t, int64_t base, int64_t exponent) {
  if (exponent < 0) return std::nullopt;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e; e >>= 1, b *= b) {
    if (e & 1) result *= b;
  }
  return int_result(t, result);
}

std::optional<Expr> fold_int(BinOp op, DtypeCode t, int64_t x, int64_t y) {
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  bool s = is_signed(t);
  int bits = dtype_size(t) * 8;
  auto cmp = [&](bool v) { return Const::make_int(DtypeCode::i32, v); };
  bool less = s ? x < y : ux < uy;
  switch (op) {
    case BinOp::add: return int_result(t, ux + uy);
    case BinOp::sub: return int_result(t, ux - uy);
    case BinOp::mul: return int_result(t, ux * uy);
    case BinOp::floordiv:
    case BinOp::mod: return fold_division(op, t, x, y);
    case BinOp::raw_div:
    case BinOp::raw_mod: return fold_raw_division(op, t, x, y);
    case BinOp::pow: return fold_power(t, x, y);
    case BinOp::min: return int_result(t, less ? ux : uy);
    case BinOp::max: return int_result(t, less ? uy : ux);
    case BinOp::bit_and: return int_result(t, ux & uy);
    case BinOp::bit_or: return int_result(t, ux | uy);
    case BinOp::bit_xor: return int_result(t, ux ^ uy);
    case BinOp::shl: return int_result(t, y < 0 || y >= bits ? 0 : ux << y);
    case BinOp::shr:  // docs/IR.md: out-of-range amounts shift every bit out
      if (y < 0 || y >= bits) return int_result(t, s && x < 0 ? ~uint64_t{0} : 0);
      return int_result(t, s ? static_cast<uint64_t>(x >> y) : ux >> y);
    case BinOp::lshr:  // the bits of t's width only: a negative value's sign-extended bits stay out
      if (y < 0 || y >= bits) return int_result(t, 0);
      return int_result(t, (bits == 64 ? ux : ux & ((uint64_t{1} << bits) - 1)) >> y);
    case BinOp::eq: return cmp(x == y);
    case BinOp::ne: return cmp(x != y);
    case BinOp::lt: return cmp(less);
    case BinOp::le: return cmp(less || x == y);
    case BinOp::gt: return cmp(!less && x != y);
    case BinOp::ge: return cmp(!less);
    case BinOp::logical_and: return cmp(x != 0 && y != 0);
    case BinOp::logical_or: return cmp(x != 0 || y != 0);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<Expr> fold_binary(BinOp op, const Const& a, const Const& b) {
  if (!a.type || a.type != b.type) return std::nullopt;
  DtypeCode t = *a.type;
  if (is_float(t)) return t == DtypeCode::f16 ? std::nullopt : fold_float(op, t, a.float_value, b.float_value);
  return fold_int(op, t, a.int_value, b.int_value);
}

std::optional<Expr> fold_unary(UnOp op, const Const& a) {
  if (!a.type) return std::nullopt;
  DtypeCode t = *a.type;
  if (op == UnOp::logical_not) {
    return Const::make_int(DtypeCode::i32, a.holds_float() ? a.float_value == 0 : a.int_value == 0);
  }
  if (is_float(t)) {
    double x = a.float_value;
    switch (op) {
      case UnOp::neg: return make_float(t, -x);
      case UnOp::abs: return make_float(t, std::fabs(x));
      case UnOp::sqrt: return make_float(t, std::sqrt(x));
      case UnOp::floor: return make_float(t, std::floor(x));
      case UnOp::ceil: return make_float(t, std::ceil(x));
      default: return std::nullopt;
    }
  }
  uint64_t ux = static_cast<uint64_t>(a.int_value);
  switch (op) {
    case UnOp::neg: return int_result(t, 0 - ux);
    case UnOp::bit_not: return int_result(t, ~ux);
    case UnOp::abs: return int_result(t, is_signed(t) && a.int_value < 0 ? 0 - ux : ux);
    default: return std::nullopt;
  }
}

std::optional<Expr> fold_cast(DtypeCode to, const Const& a) {
  if (!a.type || *a.type == DtypeCode::f16) return std::nullopt;
  if (is_float(to)) {
    double v = a.holds_float() ? a.float_value
               : is_signed(*a.type) ? static_cast<double>(a.int_value)
                                   : static_cast<double>(static_cast<uint64_t>(a.int_value));
    return make_float(to, v);
  }
  if (!a.holds_float()) return int_result(to, static_cast<uint64_t>(a.int_value));
  if (to == DtypeCode::u1) return Const::make_int(to, a.float_value != 0);
  // docs/IR.md: truncation, NaN gives 0, out-of-range values saturate (qd_float_to_int).
  double v = std::trunc(a.float_value);
  int bits = dtype_size(to) * 8;
  double past_top = is_signed(to) ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  double bottom = is_signed(to) ? -past_top : 0.0;
  if (std::isnan(v)) return int_result(to, 0);
  if (v <= bottom) return int_result(to, is_signed(to) ? uint64_t{1} << (bits - 1) : 0);
  if (v >= past_top) return int_result(to, is_signed(to) ? (uint64_t{1} << (bits - 1)) - 1 : ~uint64_t{0} >> (64 - bits));
  return int_result(to, v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v));
}

bool const_equals(const Const& c, int value) {
  return c.holds_float() ? c.float_value == value : c.int_value == value;
}

}  // namespace qd::passes
