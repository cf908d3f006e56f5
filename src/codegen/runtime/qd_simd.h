// src/codegen/runtime/qd_simd.h: lanes of a parallel loop run together as vectors (src/codegen/cpu_simd.cpp).
//
// Host only. A CPU kernel whose innermost parallel loop qualifies runs QD_SIMD_W consecutive
// iterations at once, each local a vector of one lane per iteration (GCC/Clang vector extensions),
// with control flow turned into lane masks, as ISPC does: an `if` runs each side for the lanes that
// take it, a `while` repeats while any lane still loops. A mask is a qd_vmask of -1 (active) or 0.
#pragma once

#include <stdint.h>

// One 512-bit vector of 32-bit lanes where the CPU has AVX-512, else 256 bits' worth.
#if defined(__AVX512F__)
#define QD_SIMD_W 16
#else
#define QD_SIMD_W 8
#endif

typedef float qd_vf32 __attribute__((vector_size(4 * QD_SIMD_W)));
typedef double qd_vf64 __attribute__((vector_size(8 * QD_SIMD_W)));
typedef int32_t qd_vi32 __attribute__((vector_size(4 * QD_SIMD_W)));
typedef int64_t qd_vi64 __attribute__((vector_size(8 * QD_SIMD_W)));
typedef uint32_t qd_vu32 __attribute__((vector_size(4 * QD_SIMD_W)));
typedef uint64_t qd_vu64 __attribute__((vector_size(8 * QD_SIMD_W)));
typedef qd_vi32 qd_vmask;

// Whether any lane is active: one test instruction where the compiler has one (a loop over the lanes
// costs a third of a Mandelbrot's time), an OR of 64-bit words elsewhere.
QD_FUNC bool qd_vany(qd_vmask m) {
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
  return __builtin_ia32_ptestmd512(m, m, (unsigned short)-1) != 0;
#elif defined(__AVX__) && QD_SIMD_W == 8
  typedef long long qd_v4di __attribute__((vector_size(32)));
  return !__builtin_ia32_ptestz256((qd_v4di)m, (qd_v4di)m);
#else
  uint64_t words[QD_SIMD_W / 2];
  __builtin_memcpy(words, &m, sizeof m);
  uint64_t any = 0;
  for (int k = 0; k < QD_SIMD_W / 2; ++k) any |= words[k];
  return any != 0;
#endif
}

// Every lane `x` (of V's element type).
template <class V, class E>
QD_FUNC V qd_vsplat(E x) {
  return (V){} + x;
}

// Lane k holds start + k.
template <class V, class E>
QD_FUNC V qd_vlanes(E start) {
  V v;
  for (int k = 0; k < QD_SIMD_W; ++k) v[k] = (E)k;
  return v + start;
}

// The mask of the lanes where v is nonzero.
template <class V>
QD_FUNC qd_vmask qd_vtrue(V v) {
  return __builtin_convertvector(v != 0, qd_vmask);
}

// A comparison's lanes as the IR's i32 0/1.
template <class V>
QD_FUNC qd_vi32 qd_vbool(V compared) {
  return __builtin_convertvector(compared, qd_vi32) & 1;
}

// Lanes of a where m is active, of b elsewhere; 64-bit lanes take the mask widened.
QD_FUNC qd_vf32 qd_vsel(qd_vmask m, qd_vf32 a, qd_vf32 b) { return m ? a : b; }
QD_FUNC qd_vi32 qd_vsel(qd_vmask m, qd_vi32 a, qd_vi32 b) { return m ? a : b; }
QD_FUNC qd_vu32 qd_vsel(qd_vmask m, qd_vu32 a, qd_vu32 b) { return m ? a : b; }
QD_FUNC qd_vf64 qd_vsel(qd_vmask m, qd_vf64 a, qd_vf64 b) { return __builtin_convertvector(m, qd_vi64) ? a : b; }
QD_FUNC qd_vi64 qd_vsel(qd_vmask m, qd_vi64 a, qd_vi64 b) { return __builtin_convertvector(m, qd_vi64) ? a : b; }
QD_FUNC qd_vu64 qd_vsel(qd_vmask m, qd_vu64 a, qd_vu64 b) { return __builtin_convertvector(m, qd_vi64) ? a : b; }

// qd_min/qd_max lane by lane (the same comparison, so NaN picks the same operand).
template <class V>
QD_FUNC V qd_vmin(V a, V b) {
  return b < a ? b : a;
}
template <class V>
QD_FUNC V qd_vmax(V a, V b) {
  return a < b ? b : a;
}

// QD_SIMD_W consecutive elements from p, and into p (no alignment assumed).
template <class V, class E>
QD_FUNC V qd_vload(const E* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class V, class E>
QD_FUNC void qd_vstore(E* p, V v) {
  __builtin_memcpy(p, &v, sizeof v);
}

// An operation with no vector form, lane by lane: f(k) is lane k's value. The masked form leaves
// inactive lanes 0 and never calls f for them (f may read memory only active lanes may touch).
template <class V, class F>
QD_FUNC V qd_vmap(F f) {
  V v;
  for (int k = 0; k < QD_SIMD_W; ++k) v[k] = f(k);
  return v;
}
template <class V, class F>
QD_FUNC V qd_vmap_masked(qd_vmask m, F f) {
  V v = {};
  for (int k = 0; k < QD_SIMD_W; ++k) {
    if (m[k]) v[k] = f(k);
  }
  return v;
}
