// src/codegen/runtime/qd_overflow_checks.h: debug mode's integer overflow reports, as upstream prints them.
//
// Included after qd_runtime.h by kernels compiled with qd.init(debug=True) (codegen/overflow_checks.cpp picks
// the helper per operation); CPU and CUDA alike. Integer + - * << whose result leaves the type print
// "<Operation> overflow detected in <where>" and return the wrapped value release mode computes: the check only
// reports. `where` is the statement's file, line, function and source text.
#pragma once

template <class T>
QD_FUNC bool qd_add_overflows(T a, T b, T r) {
  if constexpr (T(-1) < T(0)) return ((a ^ r) & (b ^ r)) < 0;  // r's sign differs from both operands'
  else return r < a;
}
template <class T>
QD_FUNC bool qd_sub_overflows(T a, T b, T r) {
  if constexpr (T(-1) < T(0)) return ((a ^ b) & (a ^ r)) < 0;  // signs differ, and r's is not a's
  else return b > a;
}
template <class T>
QD_FUNC bool qd_mul_overflows(T a, T b, T r) {
  if constexpr (sizeof(T) < 8 && T(-1) < T(0)) return (int64_t)a * (int64_t)b != (int64_t)r;  // exact
  else if constexpr (sizeof(T) < 8) return (uint64_t)a * (uint64_t)b != (uint64_t)r;
  else if constexpr (T(-1) < T(0)) {
    if (a == T(-1)) return b != T(0) && r == b;  // -b is b only for 0 and MIN (no MIN / -1 below)
    return a != T(0) && r / a != b;
  } else {
    return a != T(0) && r / a != b;
  }
}
QD_FUNC void qd_report_overflow(const char* what, const char* where) {
  qd_printf("%s overflow detected in %s", what, where);
}
// qd_checked_add/sub/mul: the wrapped result, reported when it left the type.
#define QD_CHECKED_ARITHMETIC(op, what)                              \
  template <class T>                                                 \
  QD_FUNC T qd_checked_##op(T a, T b, const char* where) {           \
    const T r = qd_wrapping_##op(a, b);                              \
    if (qd_##op##_overflows(a, b, r)) qd_report_overflow(what, where); \
    return r;                                                        \
  }
QD_CHECKED_ARITHMETIC(add, "Addition")
QD_CHECKED_ARITHMETIC(sub, "Subtraction")
QD_CHECKED_ARITHMETIC(mul, "Multiplication")
// As upstream: bits shifted out that shifting back does not restore (a shift outside [0, bits) loses all).
template <class T>
QD_FUNC T qd_checked_shl(T a, T n, const char* where) {
  const T r = qd_shl(a, n);
  const bool in_range = !(n < T(0)) && n < T(8 * sizeof(T));
  if (in_range ? qd_shr(r, n) != a : a != T(0)) qd_report_overflow("Shift left", where);
  return r;
}
