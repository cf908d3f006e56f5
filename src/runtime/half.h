// src/runtime/half.h: IEEE binary16 <-> float conversion for host-side copies of f16 data.
#pragma once

#include <cstdint>
#include <cstring>

namespace qd {

struct Half {
  uint16_t bits;
};

inline float half_to_float(Half h) {
  uint32_t sign = (h.bits & 0x8000u) << 16;
  uint32_t exponent = (h.bits >> 10) & 0x1f;
  uint32_t mantissa = h.bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf or nan
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {  // subnormal half: normalize
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    out = sign | ((113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

// Round to nearest even, as numpy and CUDA do.
inline Half float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return {static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0))};
  }
  if (abs >= 0x477ff000u) return {static_cast<uint16_t>(sign | 0x7c00u)};  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal or zero
    if (abs < 0x33000000u) return {sign};
    uint32_t exponent = abs >> 23;
    uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exponent;
    uint32_t half_mantissa = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mantissa & 1))) ++half_mantissa;
    return {static_cast<uint16_t>(sign | half_mantissa)};
  }
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return {static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
}

// f64 -> f16 in one rounding, as numpy does: through float rounded to odd (see qd_double_to_half_bits
// in src/codegen/runtime/qd_runtime.h), since float_to_half(float(d)) rounds twice.
inline Half double_to_half(double d) {
  float f = static_cast<float>(d);
  double back = f;
  uint64_t want, got;
  std::memcpy(&want, &d, sizeof want);
  std::memcpy(&got, &back, sizeof got);
  want &= 0x7fffffffffffffffull;
  got &= 0x7fffffffffffffffull;
  if (got != want) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (got > want) bits -= 1;  // rounded away from zero: step back toward it
    bits |= 1u;
    std::memcpy(&f, &bits, sizeof f);
  }
  return float_to_half(f);
}

}  // namespace qd
