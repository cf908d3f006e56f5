// src/codegen/runtime/qd_runtime.h: what generated kernels use: f16, Python-semantics arithmetic, math,
// atomics and bounds checks. Shared by the CPU and CUDA backends; the JIT inlines it.
//
// One file on purpose (past 800 lines): every generated kernel includes exactly this header, the JIT
// embeds it whole, and its sections depend on one another in order (the CPU and CUDA branches of the
// atomics, then the privatized and local updates built on them, then the checks that use those).
//
// Deliberately includes nothing but kernel_abi.h: every standard header costs compile time on each
// cold kernel compile. Math goes through compiler builtins on the CPU instead of <cmath>, and through
// CUDA's device math functions under NVRTC (which has no builtins and no standard headers).
#ifndef QD_RUNTIME_H
#define QD_RUNTIME_H

#include "kernel_abi.h"

#ifdef __CUDACC__
#define QD_FUNC static __device__ __forceinline__
#define QD_METHOD __device__ __forceinline__
#define QD_MATH(fn) fn
#define QD_BIT_COPY(dst, src, n) memcpy(dst, src, n)
#else
#define QD_FUNC static inline __attribute__((always_inline))
#define QD_METHOD
#define QD_MATH(fn) __builtin_##fn
#define QD_BIT_COPY(dst, src, n) __builtin_memcpy(dst, src, n)
#endif

// ---- a CUDA task's arguments by value (cuda_renderer.cpp): a kernel with few parameters takes its
// QdArgs as one __grid_constant__ kernel parameter, read in place, so a launch uploads nothing ----
template <int N>
struct QdArgs {
  QdArg a[N];
};
#ifdef __CUDACC__
#if __CUDA_ARCH__ >= 700
#define QD_ARGS_PARAM(N) const __grid_constant__ QdArgs<N> qd_args
#else  // before Volta, taking its address copies the parameter to each thread's local memory
#define QD_ARGS_PARAM(N) const QdArgs<N> qd_args
#endif
#define QD_ARGS_BY_VALUE(task)
#else
// The emulated driver (tests/cuda_emulator/) passes a launch's arguments by reference; the marker
// symbol tells it which tasks take them so.
#define QD_ARGS_PARAM(N) const QdArgs<N>& qd_args
#define QD_ARGS_BY_VALUE(task) extern "C" __attribute__((visibility("default"))) const int task##_args_by_value = 1;
#endif

// ---- f16: storage type; arithmetic happens in float ----
QD_FUNC uint32_t qd_float_bits(float f) { uint32_t u; QD_BIT_COPY(&u, &f, 4); return u; }
QD_FUNC float qd_bits_float(uint32_t u) { float f; QD_BIT_COPY(&f, &u, 4); return f; }
QD_FUNC double qd_bits_double(uint64_t u) { double d; QD_BIT_COPY(&d, &u, 8); return d; }

#ifdef __CUDACC__
// The GPU converts in one instruction each way (round to nearest even, like the CPU code below).
QD_FUNC uint16_t qd_float_to_half_bits(float value) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(value));
  return h;
}
QD_FUNC float qd_half_bits_to_float(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
  return f;
}
#else
QD_FUNC uint16_t qd_float_to_half_bits(float value) {
  uint32_t x = qd_float_bits(value);
  uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t out;
  if (x >= (143u << 23)) {  // >= 65536: inf, or nan kept quiet
    out = x > (255u << 23) ? 0x7e00u : 0x7c00u;
  } else if (x < (113u << 23)) {  // subnormal half: let a float add do the round-to-nearest-even
    const uint32_t magic = 126u << 23;
    out = qd_float_bits(qd_bits_float(x) + qd_bits_float(magic)) - magic;
  } else {
    uint32_t odd = (x >> 13) & 1u;
    x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    out = x >> 13;
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

QD_FUNC float qd_half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return qd_bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return qd_bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}
#endif

#ifdef __CUDACC__
QD_FUNC uint16_t qd_double_to_half_bits(double value) {
  unsigned short h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(value));
  return h;
}
#else
// f64 -> f16 in one rounding, as numpy does: a plain (float) first would round twice (1 + 2^-11 + 2^-30
// would become the tie 1 + 2^-11, then 1.0; 65519.99999 would become 65520, then inf). So the double
// goes to float rounded to odd (truncated, lowest bit set when inexact), which keeps the information
// the float -> f16 round-to-nearest-even needs. Bit compares, not ==, so fast-math flags cannot fold it.
QD_FUNC uint16_t qd_double_to_half_bits(double value) {
  float f = static_cast<float>(value);
  double back = static_cast<double>(f);
  uint64_t want, got;
  QD_BIT_COPY(&want, &value, 8);
  QD_BIT_COPY(&got, &back, 8);
  want &= 0x7fffffffffffffffull;
  got &= 0x7fffffffffffffffull;
  if (got != want) {
    uint32_t bits = qd_float_bits(f);
    if (got > want) bits -= 1;  // rounded away from zero: step back toward it
    f = qd_bits_float(bits | 1u);
  }
  return qd_float_to_half_bits(f);
}
#endif

struct qd_half {
  uint16_t bits;
  qd_half() = default;
  QD_FUNC qd_half from_bits(uint16_t b) { qd_half h; h.bits = b; return h; }
  QD_FUNC qd_half from_double(double d) { return from_bits(qd_double_to_half_bits(d)); }
  QD_METHOD qd_half(float f) : bits(qd_float_to_half_bits(f)) {}
  QD_METHOD operator float() const { return qd_half_bits_to_float(bits); }
};

// ---- Python-semantics integer and float arithmetic ----
// Integer division by zero gives 0 and MIN // -1 wraps, instead of a SIGFPE that kills the process.
template <class T>
QD_FUNC T qd_floordiv(T a, T b) {
  if (b == 0) return 0;
  if (T(-1) < T(0) && b == T(-1)) return static_cast<T>(0ull - static_cast<unsigned long long>(a));
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
QD_FUNC float qd_floordiv(float a, float b) { return QD_MATH(floorf)(a / b); }
QD_FUNC double qd_floordiv(double a, double b) { return QD_MATH(floor)(a / b); }

template <class T>
QD_FUNC T qd_mod(T a, T b) {
  if (b == 0 || (T(-1) < T(0) && b == T(-1))) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
QD_FUNC float qd_mod(float a, float b) {
  float r = QD_MATH(fmodf)(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
QD_FUNC double qd_mod(double a, double b) {
  double r = QD_MATH(fmod)(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// C semantics (qd.raw_div, qd.raw_mod): the quotient truncates toward zero and the remainder takes the
// dividend's sign; with the same guards as above (division by zero gives 0, MIN / -1 wraps, MIN % -1 is 0).
template <class T>
QD_FUNC T qd_raw_div(T a, T b) {
  if (b == 0) return 0;
  if (T(-1) < T(0) && b == T(-1)) return static_cast<T>(0ull - static_cast<unsigned long long>(a));
  return a / b;
}
QD_FUNC float qd_raw_div(float a, float b) { return a / b; }
QD_FUNC double qd_raw_div(double a, double b) { return a / b; }

template <class T>
QD_FUNC T qd_raw_mod(T a, T b) {
  if (b == 0 || (T(-1) < T(0) && b == T(-1))) return 0;
  return a % b;
}
QD_FUNC float qd_raw_mod(float a, float b) { return QD_MATH(fmodf)(a, b); }
QD_FUNC double qd_raw_mod(double a, double b) { return QD_MATH(fmod)(a, b); }

// The unsigned type of T's own width (a left shift wraps in it).
template <class T> struct qd_unsigned { typedef T type; };
template <> struct qd_unsigned<int8_t> { typedef uint8_t type; };
template <> struct qd_unsigned<int16_t> { typedef uint16_t type; };
template <> struct qd_unsigned<int32_t> { typedef uint32_t type; };
template <> struct qd_unsigned<int64_t> { typedef uint64_t type; };

// Integer + - * and negation wrap modulo 2^bits, as upstream's LLVM add/sub/mul (no nsw) do: they are
// computed in an unsigned type of at least unsigned int's width (so u16 * u16 is not promoted to a
// signed int that can overflow) and converted back. C, C++ and CUDA define all of that for every
// input; -fwrapv would do it too, but NVRTC has no such flag. The renderer uses these only where an
// operation can overflow (int_ranges.h); floats and qd_half go through their own arithmetic.
template <class T> struct qd_wrapping { typedef T type; };
template <> struct qd_wrapping<int8_t> { typedef unsigned int type; };
template <> struct qd_wrapping<uint8_t> { typedef unsigned int type; };
template <> struct qd_wrapping<int16_t> { typedef unsigned int type; };
template <> struct qd_wrapping<uint16_t> { typedef unsigned int type; };
template <> struct qd_wrapping<int32_t> { typedef uint32_t type; };
template <> struct qd_wrapping<int64_t> { typedef uint64_t type; };
template <> struct qd_wrapping<qd_half> { typedef float type; };
template <class T>
QD_FUNC T qd_wrapping_add(T a, T b) {
  typedef typename qd_wrapping<T>::type U;
  return T((U)a + (U)b);
}
template <class T>
QD_FUNC T qd_wrapping_sub(T a, T b) {
  typedef typename qd_wrapping<T>::type U;
  return T((U)a - (U)b);
}
template <class T>
QD_FUNC T qd_wrapping_mul(T a, T b) {
  typedef typename qd_wrapping<T>::type U;
  return T((U)a * (U)b);
}
template <class T>
QD_FUNC T qd_wrapping_neg(T a) {
  typedef typename qd_wrapping<T>::type U;
  return T(U(0) - (U)a);
}

// Shifts by an amount outside [0, bits) give what shifting one bit at a time would: 0, or -1 for an
// arithmetic right shift of a negative value (C leaves them undefined). A left shift wraps.
template <class T>
QD_FUNC T qd_shl(T a, T n) {
  if (n < T(0) || n >= T(8 * sizeof(T))) return T(0);
  return static_cast<T>(static_cast<typename qd_unsigned<T>::type>(a) << n);
}
template <class T>
QD_FUNC T qd_shr(T a, T n) {
  if (n < T(0) || n >= T(8 * sizeof(T))) return a < T(0) ? T(-1) : T(0);
  return static_cast<T>(a >> n);
}
template <class T>
QD_FUNC T qd_lshr(T a, T n) {  // zeros shift in: the shift of a's bit pattern as the unsigned type
  if (n < T(0) || n >= T(8 * sizeof(T))) return T(0);
  return static_cast<T>(static_cast<typename qd_unsigned<T>::type>(a) >> n);
}

// Float -> integer: truncation toward zero; NaN gives 0 and a value beyond the type's range its
// nearest end, as CUDA's conversions do, so no input is undefined behaviour.
// The common case costs one pair of compares in x's own type (the bounds are powers of two, exact
// in float and double; NaN fails both), so histogram-style index casts stay cheap.
template <class T, class F>
QD_FUNC T qd_float_to_int(F x) {
  const bool is_signed = T(-1) < T(0);
  const unsigned long long sign_bit = 1ull << (8 * sizeof(T) - 1);
  const F past_top = is_signed ? static_cast<F>(sign_bit) : F(2) * static_cast<F>(sign_bit);
  const F past_bottom = is_signed ? -past_top : F(-1);
  if (__builtin_expect(x > past_bottom && x < past_top, 1)) return static_cast<T>(x);
  if (!(x == x)) return T(0);
  if (x < F(0)) return is_signed ? static_cast<T>(sign_bit) : T(0);
  return static_cast<T>(is_signed ? sign_bit - 1 : ~0ull);
}

// int ** int: by squaring; a negative exponent gives 0 (1 for a base of 1, +-1 for -1), as integers do.
// The products are taken modulo 2^64, so an overflowing power wraps as in numpy: signed overflow would
// be undefined, and the compiler could then assume a nonzero base never gives 0.
template <class T>
QD_FUNC T qd_pow(T base, T exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == static_cast<T>(-1) ? ((exponent & 1) ? base : 1) : 0;
  uint64_t result = 1, square = static_cast<uint64_t>(base);
  for (; exponent; exponent >>= 1, square *= square) {
    if (exponent & 1) result *= square;
  }
  return static_cast<T>(result);
}
QD_FUNC float qd_pow(float a, float b) { return QD_MATH(powf)(a, b); }
// float ** int, as upstream lowers it (its demote_operations pass): squaring and multiplying in the base's type,
// then the reciprocal for an exponent <= 0, so x ** 2 is x * x exactly, where powf may differ in the last place.
template <class F, class I>
QD_FUNC F qd_powi(F base, I exponent) {
  unsigned long long n = exponent < 0 ? 0ull - static_cast<unsigned long long>(exponent)
                                      : static_cast<unsigned long long>(exponent);
  F result = F(1);
  for (F a = base; n; n >>= 1, a *= a) {
    if (n & 1) result *= a;
  }
  return exponent <= 0 ? F(1) / result : result;
}
QD_FUNC double qd_pow(double a, double b) { return QD_MATH(pow)(a, b); }

template <class T>
QD_FUNC T qd_min(T a, T b) { return b < a ? b : a; }
template <class T>
QD_FUNC T qd_max(T a, T b) { return a < b ? b : a; }
// abs(MIN) wraps to MIN, as numpy's and upstream's do.
template <class T>
QD_FUNC T qd_abs(T a) { return a < 0 ? qd_wrapping_neg(a) : a; }
QD_FUNC float qd_abs(float a) { return QD_MATH(fabsf)(a); }
QD_FUNC double qd_abs(double a) { return QD_MATH(fabs)(a); }

// ---- math on float and double ----
#define QD_MATH1(name, fn)                                         \
  QD_FUNC float qd_##name(float a) { return QD_MATH(fn##f)(a); } \
  QD_FUNC double qd_##name(double a) { return QD_MATH(fn)(a); }
QD_MATH1(sqrt, sqrt)
QD_MATH1(sin, sin)
QD_MATH1(cos, cos)
QD_MATH1(tan, tan)
QD_MATH1(asin, asin)
QD_MATH1(acos, acos)
QD_MATH1(atan, atan)
QD_MATH1(tanh, tanh)
QD_MATH1(exp, exp)
QD_MATH1(log, log)
QD_MATH1(floor, floor)
QD_MATH1(ceil, ceil)
QD_MATH1(round, round)
QD_MATH1(log2, log2)
QD_MATH1(exp2, exp2)
#undef QD_MATH1
QD_FUNC float qd_rsqrt(float a) { return 1.0f / QD_MATH(sqrtf)(a); }
QD_FUNC double qd_rsqrt(double a) { return 1.0 / QD_MATH(sqrt)(a); }
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): a bijection of
// the 128-bit counter (counter, 0) under the 64-bit key, so distinct (key, counter) pairs give
// independent-looking outputs without any state. Returns the first two output words.
QD_FUNC uint64_t qd_rand_bits(uint64_t key, uint64_t counter) {
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ((uint64_t)c1 << 32) | c0;
}

QD_FUNC float qd_atan2(float a, float b) { return QD_MATH(atan2f)(a, b); }
QD_FUNC double qd_atan2(double a, double b) { return QD_MATH(atan2)(a, b); }

// qd.bit_cast: the same bytes read as another type of the same size (checked by infer_types).
template <class To, class From>
QD_FUNC To qd_bit_cast(From value) {
  static_assert(sizeof(To) == sizeof(From), "qd_bit_cast between types of different sizes");
  To out;
  QD_BIT_COPY(&out, &value, sizeof(To));
  return out;
}

// isnan/isinf test the bits, so they keep working when fast_math lets the compiler assume no NaN
// or inf; an integer is neither.
QD_FUNC int32_t qd_isnan(float a) { return (qd_float_bits(a) & 0x7fffffffu) > 0x7f800000u; }
QD_FUNC int32_t qd_isinf(float a) { return (qd_float_bits(a) & 0x7fffffffu) == 0x7f800000u; }
QD_FUNC uint64_t qd_double_bits(double d) { uint64_t u; QD_BIT_COPY(&u, &d, 8); return u; }
QD_FUNC int32_t qd_isnan(double a) { return (qd_double_bits(a) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
QD_FUNC int32_t qd_isinf(double a) { return (qd_double_bits(a) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
template <class T>
QD_FUNC int32_t qd_isnan(T) { return 0; }
template <class T>
QD_FUNC int32_t qd_isinf(T) { return 0; }

// popcnt/clz/ffs count over the operand's own bit pattern (infer_types admits integers only): a narrow
// value is zero-extended first, so clz(i8 -1) is 0 and clz(0) is the width. ffs is 1 + the index of the
// lowest set bit, 0 for 0 (CUDA's __ffs).
#ifdef __CUDACC__
QD_FUNC int32_t qd_popcount_bits(uint32_t x) { return __popc(x); }
QD_FUNC int32_t qd_popcount_bits(uint64_t x) { return __popcll(x); }
QD_FUNC int32_t qd_clz_bits(uint32_t x) { return __clz((int)x); }
QD_FUNC int32_t qd_clz_bits(uint64_t x) { return __clzll((long long)x); }
QD_FUNC int32_t qd_ffs_bits(uint32_t x) { return __ffs((int)x); }
QD_FUNC int32_t qd_ffs_bits(uint64_t x) { return __ffsll((long long)x); }
#else
QD_FUNC int32_t qd_popcount_bits(uint32_t x) { return __builtin_popcount(x); }
QD_FUNC int32_t qd_popcount_bits(uint64_t x) { return __builtin_popcountll(x); }
QD_FUNC int32_t qd_clz_bits(uint32_t x) { return x ? __builtin_clz(x) : 32; }
QD_FUNC int32_t qd_clz_bits(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
QD_FUNC int32_t qd_ffs_bits(uint32_t x) { return __builtin_ffs((int)x); }
QD_FUNC int32_t qd_ffs_bits(uint64_t x) { return __builtin_ffsll((long long)x); }
#endif
// The operand's bits, zero-extended to 32 or 64 bits.
template <class T>
QD_FUNC auto qd_unsigned_bits(T x) {
  if constexpr (sizeof(T) == 8) {
    return (uint64_t)x;
  } else {
    return (uint32_t)x & (uint32_t)(0xffffffffull >> (32 - 8 * sizeof(T)));
  }
}
template <class T>
QD_FUNC int32_t qd_popcnt(T x) { return qd_popcount_bits(qd_unsigned_bits(x)); }
template <class T>
QD_FUNC int32_t qd_clz(T x) {
  return qd_clz_bits(qd_unsigned_bits(x)) - (sizeof(T) < 4 ? 32 - 8 * (int32_t)sizeof(T) : 0);
}
template <class T>
QD_FUNC int32_t qd_ffs(T x) { return qd_ffs_bits(qd_unsigned_bits(x)); }

// ---- print: declared here because the generated code includes no standard header ----
// The CPU writes each print straight to file descriptor 1 in one call (no stdio buffer to flush, and
// lines from different threads do not mix); CUDA's device printf is flushed at synchronization.
#ifdef __CUDACC__
extern "C" __device__ int printf(const char* format, ...);
#define qd_printf(...) printf(__VA_ARGS__)
#else
extern "C" int dprintf(int fd, const char* format, ...);
#define qd_printf(...) dprintf(1, __VA_ARGS__)
#endif

// ---- the identities of min and max: every type's lowest and highest value ----
template <class T>
struct QdLimits;
#define QD_LIMITS(T, low, high)                     \
  template <>                                       \
  struct QdLimits<T> {                              \
    static QD_METHOD T lowest() { return low; }     \
    static QD_METHOD T highest() { return high; }   \
  };
QD_LIMITS(int32_t, -2147483647 - 1, 2147483647)
QD_LIMITS(int64_t, -9223372036854775807ll - 1, 9223372036854775807ll)
QD_LIMITS(uint32_t, 0u, 4294967295u)
QD_LIMITS(uint64_t, 0ull, 18446744073709551615ull)
QD_LIMITS(float, -qd_bits_float(0x7f800000u), qd_bits_float(0x7f800000u))
QD_LIMITS(double, -qd_bits_double(0x7ff0000000000000ull), qd_bits_double(0x7ff0000000000000ull))
#undef QD_LIMITS

// Whether two array arguments may share memory: their byte ranges, spanned by every dim's extent
// and stride (either may be negative or zero), intersect. An empty array shares nothing.
QD_FUNC void qd_arg_bytes(const QdArg* a, int dims, int64_t size, uintptr_t* lo, uintptr_t* hi) {
  int64_t first = 0, last = 0;
  for (int d = 0; d < dims; ++d) {
    if (a->shape[d] <= 0) {
      *lo = *hi = 0;
      return;
    }
    int64_t reach = (a->shape[d] - 1) * a->strides[d];
    if (reach < 0) first += reach;
    if (reach > 0) last += reach;
  }
  *lo = (uintptr_t)a->data + (uintptr_t)(first * size);
  *hi = (uintptr_t)a->data + (uintptr_t)((last + 1) * size);
}
QD_FUNC bool qd_args_overlap(const QdArg* a, int a_dims, int64_t a_size, const QdArg* b, int b_dims, int64_t b_size) {
  uintptr_t a_lo, a_hi, b_lo, b_hi;
  qd_arg_bytes(a, a_dims, a_size, &a_lo, &a_hi);
  qd_arg_bytes(b, b_dims, b_size, &b_lo, &b_hi);
  return a_lo < a_hi && b_lo < b_hi && a_lo < b_hi && b_lo < a_hi;
}

// ---- atomics (CPU: __atomic builtins); each returns the old value ----
#ifndef __CUDACC__
template <class T>
QD_FUNC T qd_atomic_add(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
template <class T>
QD_FUNC T qd_atomic_sub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
template <class T>
QD_FUNC T qd_atomic_and(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T>
QD_FUNC T qd_atomic_or(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T>
QD_FUNC T qd_atomic_xor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }

// Read-modify-write by compare-and-swap, for floats, f16 and min/max.
template <class T, class F>
QD_FUNC T qd_atomic_cas_loop(T* p, F combine) {
  T old = *p;  // a torn first read only costs one more lap
  T next = combine(old);
  while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) next = combine(old);
  return old;
}
#define QD_ATOMIC_FLOAT(T)                                                                                  \
  QD_FUNC T qd_atomic_add(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return T(o + v); }); } \
  QD_FUNC T qd_atomic_sub(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return T(o - v); }); }
QD_ATOMIC_FLOAT(float)
QD_ATOMIC_FLOAT(double)
#undef QD_ATOMIC_FLOAT
QD_FUNC qd_half qd_atomic_add(qd_half* p, qd_half v) {
  return qd_atomic_cas_loop(p, [v](qd_half o) { return qd_half(float(o) + float(v)); });
}
QD_FUNC qd_half qd_atomic_sub(qd_half* p, qd_half v) {
  return qd_atomic_cas_loop(p, [v](qd_half o) { return qd_half(float(o) - float(v)); });
}
template <class T>
QD_FUNC T qd_atomic_min(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return v < o ? v : o; }); }
template <class T>
QD_FUNC T qd_atomic_max(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return o < v ? v : o; }); }
// qd_half multiplies through float (its operator float), then rounds back on construction.
template <class T>
QD_FUNC T qd_atomic_mul(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return qd_wrapping_mul(o, v); }); }
template <class T>
QD_FUNC T qd_atomic_xchg(T* p, T v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
// Stores desired where *p equals expected; the old value either way (a failed exchange writes it to expected).
// Any integer of 1 to 8 bytes: the CPU has native 1- and 2-byte compare-and-swap.
template <class T>
QD_FUNC T qd_atomic_cas(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

// ---- privatized atomics (passes/privatize_atomics.cpp): per-chunk copies, merged once per chunk ----
// A chunk privatizes its loop's arrays when the copies (all of them together, on the chunk's stack)
// take at most QD_PRIVATE_MAX_BYTES and the chunk runs at least one iteration per copied element,
// which pays for filling, scanning and merging them; otherwise it keeps the atomics. Measured on 2
// cores (benchmarks/peers/RESULTS.md): below one iteration per element privatizing loses, above it
// wins 1.6x (1 MiB of bins) to 15x (1 KiB); 256 KiB keeps the copies in a core's L2 and well
// inside a thread's stack.
#define QD_PRIVATE_MAX_BYTES 262144
QD_FUNC bool qd_private_pays(int64_t elements, int64_t bytes, int64_t iterations) {
  return bytes <= QD_PRIVATE_MAX_BYTES && elements <= iterations;
}
template <class T>
QD_FUNC void qd_private_fill(T* copy, int64_t n, T identity) {
  for (int64_t k = 0; k < n; ++k) copy[k] = identity;
}
// An update of element k of the private copy; an offset outside the array (a bad index, undefined in
// release mode) goes to the real array as before, never outside the copy.
#define QD_PRIVATE_UPDATE(op, combine)                                          \
  template <class T>                                                          \
  QD_FUNC void qd_private_##op(T* copy, int64_t n, int64_t k, T v, T* real) { \
    if ((uint64_t)k < (uint64_t)n) {                                          \
      copy[k] = combine;                                                      \
    } else {                                                                  \
      qd_atomic_##op(real + k, v);                                            \
    }                                                                         \
  }
QD_PRIVATE_UPDATE(add, qd_wrapping_add(copy[k], v))
QD_PRIVATE_UPDATE(sub, qd_wrapping_sub(copy[k], v))
QD_PRIVATE_UPDATE(min, qd_min(copy[k], v))
QD_PRIVATE_UPDATE(max, qd_max(copy[k], v))
#undef QD_PRIVATE_UPDATE
// One atomic per element that the chunk changed; skipping the identity changes no result.
#define QD_PRIVATE_MERGE(op, identity)                                               \
  template <class T>                                                                 \
  QD_FUNC void qd_private_merge_##op(T* real, const T* copy, int64_t n) {            \
    for (int64_t k = 0; k < n; ++k) {                                                \
      if (copy[k] != identity) qd_atomic_##op(real + k, copy[k]);                    \
    }                                                                                \
  }
QD_PRIVATE_MERGE(add, T(0))
QD_PRIVATE_MERGE(min, QdLimits<T>::highest())
QD_PRIVATE_MERGE(max, QdLimits<T>::lowest())
#undef QD_PRIVATE_MERGE

// ---- debug-mode errors: the first one wins, later ones are dropped ----
QD_FUNC bool qd_error_raised(const QdLaunchContext* ctx) { return __atomic_load_n(ctx->error_flag, __ATOMIC_RELAXED) != 0; }

QD_FUNC bool qd_claim_error(const QdLaunchContext* ctx) {
  int32_t expected = 0;
  return __atomic_compare_exchange_n(ctx->error_flag, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

// Hands a C++ lambda to the C ABI's parallel_for as a (function, closure) pair.
template <class F>
static void qd_run_task(void* closure, int64_t begin, int64_t end) { (*static_cast<F*>(closure))(begin, end); }
#else
// ---- atomics (CUDA): the native instruction where CUDA has one, compare-and-swap otherwise ----
// Read-modify-write by compare-and-swap on the value's bits (so a NaN never loops forever); 1- and
// 2-byte values swap the aligned 32-bit word that holds them (little-endian lanes).
template <int Bytes>
struct qd_cas_word { typedef unsigned int type; };
template <>
struct qd_cas_word<8> { typedef unsigned long long type; };
template <class T, class F>
QD_FUNC T qd_atomic_cas_loop(T* p, F combine) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using Word = typename qd_cas_word<sizeof(T)>::type;
    Word* word = (Word*)p;
    Word seen = *word, assumed;
    T old;
    do {
      assumed = seen;
      QD_BIT_COPY(&old, &assumed, sizeof(T));
      T next = combine(old);
      Word bits;
      QD_BIT_COPY(&bits, &next, sizeof(T));
      seen = atomicCAS(word, assumed, bits);
    } while (seen != assumed);
    return old;
  } else {
    unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
    unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned int seen = *word, assumed;
    T old;
    do {
      assumed = seen;
      unsigned int lane = (assumed & mask) >> shift;
      QD_BIT_COPY(&old, &lane, sizeof(T));
      T next = combine(old);
      unsigned int bits = 0;
      QD_BIT_COPY(&bits, &next, sizeof(T));
      seen = atomicCAS(word, assumed, (assumed & ~mask) | ((bits << shift) & mask));
    } while (seen != assumed);
    return old;
  }
}
template <class T>
QD_FUNC T qd_atomic_add(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return qd_wrapping_add(o, v); }); }
template <class T>
QD_FUNC T qd_atomic_sub(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return qd_wrapping_sub(o, v); }); }
template <class T>
QD_FUNC T qd_atomic_min(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return v < o ? v : o; }); }
template <class T>
QD_FUNC T qd_atomic_max(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return o < v ? v : o; }); }
template <class T>
QD_FUNC T qd_atomic_and(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return T(o & v); }); }
template <class T>
QD_FUNC T qd_atomic_or(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return T(o | v); }); }
template <class T>
QD_FUNC T qd_atomic_xor(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return T(o ^ v); }); }
template <class T>
QD_FUNC T qd_atomic_mul(T* p, T v) { return qd_atomic_cas_loop(p, [v](T o) { return qd_wrapping_mul(o, v); }); }
template <class T>
QD_FUNC T qd_atomic_xchg(T* p, T v) { return qd_atomic_cas_loop(p, [v](T) { return v; }); }

// Native overloads (exact matches beat the templates above). Signed 64-bit adds and bitwise ops go
// through the unsigned instruction: two's complement makes them the same bits.
typedef unsigned long long qd_u64_word;
#define QD_ATOMIC_NATIVE(op, T, call) \
  QD_FUNC T qd_atomic_##op(T* p, T v) { return (T)(call); }
QD_ATOMIC_NATIVE(add, int32_t, atomicAdd(p, v))
QD_ATOMIC_NATIVE(add, uint32_t, atomicAdd(p, v))
QD_ATOMIC_NATIVE(add, int64_t, atomicAdd((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_NATIVE(add, uint64_t, atomicAdd((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_NATIVE(add, float, atomicAdd(p, v))
QD_ATOMIC_NATIVE(add, double, atomicAdd(p, v))
QD_ATOMIC_NATIVE(sub, int32_t, atomicSub(p, v))
QD_ATOMIC_NATIVE(sub, uint32_t, atomicSub(p, v))
QD_ATOMIC_NATIVE(sub, int64_t, atomicAdd((qd_u64_word*)p, 0ull - (qd_u64_word)v))
QD_ATOMIC_NATIVE(sub, uint64_t, atomicAdd((qd_u64_word*)p, 0ull - (qd_u64_word)v))
QD_ATOMIC_NATIVE(sub, float, atomicAdd(p, -v))
QD_ATOMIC_NATIVE(sub, double, atomicAdd(p, -v))
QD_ATOMIC_NATIVE(min, int32_t, atomicMin(p, v))
QD_ATOMIC_NATIVE(min, uint32_t, atomicMin(p, v))
QD_ATOMIC_NATIVE(min, int64_t, atomicMin((long long*)p, (long long)v))
QD_ATOMIC_NATIVE(min, uint64_t, atomicMin((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_NATIVE(max, int32_t, atomicMax(p, v))
QD_ATOMIC_NATIVE(max, uint32_t, atomicMax(p, v))
QD_ATOMIC_NATIVE(max, int64_t, atomicMax((long long*)p, (long long)v))
QD_ATOMIC_NATIVE(max, uint64_t, atomicMax((qd_u64_word*)p, (qd_u64_word)v))
#define QD_ATOMIC_BITWISE(op, fn)                                                           \
  QD_ATOMIC_NATIVE(op, int32_t, fn(p, v))                                                   \
  QD_ATOMIC_NATIVE(op, uint32_t, fn(p, v))                                                  \
  QD_ATOMIC_NATIVE(op, int64_t, fn((qd_u64_word*)p, (qd_u64_word)v))                        \
  QD_ATOMIC_NATIVE(op, uint64_t, fn((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_BITWISE(and, atomicAnd)
QD_ATOMIC_BITWISE(or, atomicOr)
QD_ATOMIC_BITWISE(xor, atomicXor)
QD_ATOMIC_NATIVE(xchg, int32_t, atomicExch(p, v))
QD_ATOMIC_NATIVE(xchg, uint32_t, atomicExch(p, v))
QD_ATOMIC_NATIVE(xchg, int64_t, atomicExch((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_NATIVE(xchg, uint64_t, atomicExch((qd_u64_word*)p, (qd_u64_word)v))
QD_ATOMIC_NATIVE(xchg, float, atomicExch(p, v))
#undef QD_ATOMIC_BITWISE
#undef QD_ATOMIC_NATIVE
// compare-and-swap of the integers qd.atomic_cas takes (infer_types refuses the others)
QD_FUNC int32_t qd_atomic_cas(int32_t* p, int32_t e, int32_t d) { return atomicCAS(p, e, d); }
QD_FUNC uint32_t qd_atomic_cas(uint32_t* p, uint32_t e, uint32_t d) { return atomicCAS(p, e, d); }
QD_FUNC int64_t qd_atomic_cas(int64_t* p, int64_t e, int64_t d) {
  return (int64_t)atomicCAS((qd_u64_word*)p, (qd_u64_word)e, (qd_u64_word)d);
}
QD_FUNC uint64_t qd_atomic_cas(uint64_t* p, uint64_t e, uint64_t d) {
  return (uint64_t)atomicCAS((qd_u64_word*)p, (qd_u64_word)e, (qd_u64_word)d);
}
// A 1- or 2-byte compare-and-swap swaps the aligned 32-bit word that holds the lane (16-bit atomicCAS needs
// sm_70; this works on every architecture), as qd_atomic_cas_loop does for the other 1- and 2-byte atomics.
// The word never faults: it holds the lane's valid byte(s) and, aligned, never straddles a page. Our CUDA arrays
// are each one cuMemAlloc(Async), aligned to at least 256 bytes, so the word of an array's last element ends
// before the next allocation could start. Bytes of the other lanes (of the same array, or of a neighbouring
// view's memory) are written back unchanged in the same atomic swap, so nobody sees them change.
// Each try assumes the lane holds `expected` and the other lanes what was last seen: the swap succeeds, or
// returns the word's current bits, and the loop retries only while the lane still equals `expected` (another
// lane moved). A failed swap's old value is thus always one that atomicCAS read, never a stale plain load.
template <class T>
QD_FUNC T qd_lane_cas(T* p, T expected, T desired) {
  unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
  unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
  unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned int want = 0, put = 0;
  QD_BIT_COPY(&want, &expected, sizeof(T));
  QD_BIT_COPY(&put, &desired, sizeof(T));
  want = (want << shift) & mask;
  put = (put << shift) & mask;
  unsigned int seen = *(volatile unsigned int*)word;
  for (;;) {
    unsigned int assumed = (seen & ~mask) | want;
    seen = atomicCAS(word, assumed, (assumed & ~mask) | put);
    if (seen == assumed || (seen & mask) != want) break;
  }
  unsigned int lane = (seen & mask) >> shift;
  T old;
  QD_BIT_COPY(&old, &lane, sizeof(T));
  return old;
}
QD_FUNC int8_t qd_atomic_cas(int8_t* p, int8_t e, int8_t d) { return qd_lane_cas(p, e, d); }
QD_FUNC uint8_t qd_atomic_cas(uint8_t* p, uint8_t e, uint8_t d) { return qd_lane_cas(p, e, d); }
QD_FUNC int16_t qd_atomic_cas(int16_t* p, int16_t e, int16_t d) { return qd_lane_cas(p, e, d); }
QD_FUNC uint16_t qd_atomic_cas(uint16_t* p, uint16_t e, uint16_t d) { return qd_lane_cas(p, e, d); }

QD_FUNC bool qd_error_raised(const QdLaunchContext* ctx) { return *(volatile const int32_t*)ctx->error_flag != 0; }
QD_FUNC bool qd_claim_error(const QdLaunchContext* ctx) { return atomicCAS(ctx->error_flag, 0, 1) == 0; }
#endif

// ---- an atomic on a local that only its thread can see, done plainly (CUDA's atomics cannot address a
// thread's local memory): the combine step of the atomics above; each returns the old value ----
#define QD_LOCAL_UPDATE(op, combine)       \
  template <class T>                       \
  QD_FUNC T qd_local_##op(T* p, T v) {     \
    T o = *p;                              \
    *p = combine;                          \
    return o;                              \
  }
QD_LOCAL_UPDATE(add, qd_wrapping_add(o, v))
QD_LOCAL_UPDATE(sub, qd_wrapping_sub(o, v))
QD_LOCAL_UPDATE(mul, qd_wrapping_mul(o, v))
QD_LOCAL_UPDATE(min, v < o ? v : o)
QD_LOCAL_UPDATE(max, o < v ? v : o)
QD_LOCAL_UPDATE(and, T(o & v))
QD_LOCAL_UPDATE(or, T(o | v))
QD_LOCAL_UPDATE(xor, T(o ^ v))
QD_LOCAL_UPDATE(xchg, v)
#undef QD_LOCAL_UPDATE
template <class T>
QD_FUNC T qd_local_cas(T* p, T expected, T desired) {
  T o = *p;
  if (o == expected) *p = desired;
  return o;
}

// ---- CUDA privatized arrays (cuda_renderer.cpp): an update of element k of a block's shared copy, by
// an atomic only the block's threads contend for; an offset outside the copy (a bad index, undefined in
// release mode) goes to the real array as before ----
#define QD_SHARED_UPDATE(op)                                                  \
  template <class T>                                                          \
  QD_FUNC void qd_shared_##op(T* copy, int64_t n, int64_t k, T v, T* real) { \
    qd_atomic_##op((uint64_t)k < (uint64_t)n ? copy + k : real + k, v);       \
  }
QD_SHARED_UPDATE(add)
QD_SHARED_UPDATE(sub)
QD_SHARED_UPDATE(min)
QD_SHARED_UPDATE(max)
#undef QD_SHARED_UPDATE

// Where a debug-mode atomic goes: the element, or a scratch cell once the access is known to be out
// of bounds (the task stops right after, and the scratch value is never read).
template <class T>
QD_FUNC T* qd_checked_ptr(T* data, int64_t offset) {
  static T scratch;
  return offset < 0 ? &scratch : data + offset;
}


// Offset of an element in a debug-mode access, or -1 (and the error recorded) when an index is out
// of bounds. `index` holds every dim's index, outer dims then element dims.
template <int N>
QD_FUNC int64_t qd_checked_offset(const QdLaunchContext* ctx, const QdArg* arg, int32_t arg_index,
                                  const int64_t (&index)[N]) {
  int64_t offset = 0;
  for (int d = 0; d < N; ++d) {
    if (index[d] < 0 || index[d] >= arg->shape[d]) {
      if (qd_claim_error(ctx)) {
        ctx->error->code = 1;
        ctx->error->arg_index = arg_index;
        ctx->error->ndim = N;
        ctx->error->dim = d;
        for (int k = 0; k < N; ++k) ctx->error->index[k] = index[k];
      }
      return -1;
    }
    offset += index[d] * arg->strides[d];
  }
  return offset;
}

// Offset of a debug-mode qd.simt shared array element (row-major over the constant extents), or -1
// with code 6 recorded: arg_index is the array's description among the kernel's assert messages.
template <int N>
QD_FUNC int64_t qd_shared_checked_offset(const QdLaunchContext* ctx, int32_t which, const int64_t (&index)[N],
                                         const int64_t (&extent)[N]) {
  int64_t offset = 0;
  for (int d = 0; d < N; ++d) {
    if (index[d] < 0 || index[d] >= extent[d]) {
      if (qd_claim_error(ctx)) {
        ctx->error->code = 6;
        ctx->error->arg_index = which;
        ctx->error->ndim = N < QD_MAX_NDIM ? N : QD_MAX_NDIM;
        ctx->error->dim = d;
        for (int k = 0; k < ctx->error->ndim; ++k) ctx->error->index[k] = index[k];
      }
      return -1;
    }
    offset = offset * extent[d] + index[d];
  }
  return offset;
}

// A failed (assert ...) in debug mode: code 2, arg_index says which assert (CompiledKernel::assert_messages).
QD_FUNC void qd_report_assert(const QdLaunchContext* ctx, int32_t assert_index) {
  if (!qd_claim_error(ctx)) return;
  ctx->error->code = 2;
  ctx->error->arg_index = assert_index;
  ctx->error->ndim = 0;
  ctx->error->dim = 0;
}

// A failed assert whose message shows runtime values: as qd_report_assert, with the n values (each
// already a long long, unsigned long long or double: see ir::assert_conversion) as bits in index[0..n).
QD_FUNC void qd_report_assert_values(const QdLaunchContext* ctx, int32_t assert_index, int32_t n,
                                     const int64_t* values) {
  if (!qd_claim_error(ctx)) return;
  ctx->error->code = 2;
  ctx->error->arg_index = assert_index;
  ctx->error->ndim = n;
  ctx->error->dim = 0;
  for (int32_t k = 0; k < n; ++k) ctx->error->index[k] = values[k];
}

// An array extent the kernel reads as an i32 (its index type) but that does not fit one: code 3, so the
// launcher raises instead of letting the extent wrap and a loop silently run zero times.
QD_FUNC bool qd_check_i32_extent(const QdLaunchContext* ctx, int32_t arg_index, int32_t dim, int64_t extent) {
  if (extent <= 2147483647) return true;
  if (qd_claim_error(ctx)) {
    ctx->error->code = 3;
    ctx->error->arg_index = arg_index;
    ctx->error->ndim = 1;
    ctx->error->dim = dim;
    ctx->error->index[0] = extent;
  }
  return false;
}

// ---- reverse-mode autodiff's per-thread stacks ((ad_stack NAME TYPE N) in the IR) ----
// A fixed-size local array (CUDA local memory) and its depth; reverse_ad pops only what it pushed.
template <class T, int64_t N>
struct QdAdStack {
  int64_t depth = 0;
  T slots[N];
  QD_METHOD T top() const { return slots[depth - 1]; }
  QD_METHOD void pop() { --depth; }
};
// A push onto a full stack records error code 5 (index[0]: the capacity) and answers false: the
// caller stops its task, so the overflow is reported, never a slot overwritten.
template <class T, int64_t N>
QD_FUNC bool qd_ad_push(const QdLaunchContext* ctx, QdAdStack<T, N>& stack, T value) {
  if (stack.depth < N) {
    stack.slots[stack.depth++] = value;
    return true;
  }
  if (qd_claim_error(ctx)) {
    ctx->error->code = 5;
    ctx->error->arg_index = 0;
    ctx->error->ndim = 1;
    ctx->error->dim = 0;
    ctx->error->index[0] = N;
  }
  return false;
}

template <class T>
QD_FUNC T qd_load_checked(const T* data, int64_t offset) { return offset < 0 ? T() : data[offset]; }

// qd.volatile_load: a read the compiler must perform every time (spin-waits on another thread's store).
// It reads an unsigned integer of T's size, in one access, and reinterprets it: f16 may be a class type
// (CUDA's __half), which cannot be copied out of a volatile object.
template <int Bytes> struct QdVolatileBits;
template <> struct QdVolatileBits<1> { typedef uint8_t type; };
template <> struct QdVolatileBits<2> { typedef uint16_t type; };
template <> struct QdVolatileBits<4> { typedef uint32_t type; };
template <> struct QdVolatileBits<8> { typedef uint64_t type; };
template <class T>
QD_FUNC T qd_volatile_load(const T* data, int64_t offset) {
  typedef typename QdVolatileBits<sizeof(T)>::type Bits;
  return qd_bit_cast<T>(*(const volatile Bits*)(data + offset));
}
template <class T>
QD_FUNC T qd_volatile_load_checked(const T* data, int64_t offset) { return offset < 0 ? T() : qd_volatile_load(data, offset); }

// A runtime element index in release mode: kept inside [0, extent), so a wrong one cannot leave the array.
QD_FUNC int64_t qd_clamp_index(int64_t index, int64_t extent) {
  return index < 0 ? 0 : index >= extent ? extent - 1 : index;
}

// ---- qd.clock_counter() (IR `(clock_counter)`): raw ticks, as upstream's readcyclecounter/clock64 ----
// CUDA: the SM's 64-bit cycle counter. x86-64: the timestamp counter (constant rate on current CPUs, the
// same on every core). aarch64: the virtual count register. volatile asm / the rdtsc builtin keep the
// compiler from merging or moving reads; other CPUs read 0, as upstream's unsupported backends do.
#if defined(__CUDACC__)
QD_FUNC int64_t qd_clock_counter() { return (int64_t)clock64(); }
#elif defined(__x86_64__)
QD_FUNC int64_t qd_clock_counter() { return (int64_t)__builtin_ia32_rdtsc(); }
#elif defined(__aarch64__)
QD_FUNC int64_t qd_clock_counter() {
  int64_t ticks;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(ticks));
  return ticks;
}
#else
QD_FUNC int64_t qd_clock_counter() { return 0; }
#endif

#endif  // QD_RUNTIME_H
