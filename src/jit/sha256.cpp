// src/jit/sha256.cpp: SHA-256 (FIPS 180-4), for verifying cached kernels before they are loaded.
#include "jit/sha256.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define QD_SHA_NI 1
#endif

namespace qd::jit {
namespace {

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(uint32_t state[8], const unsigned char block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 | uint32_t(block[4 * i + 2]) << 8 |
           uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  state[0] += a, state[1] += b, state[2] += c, state[3] += d;
  state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

void compress_portable(uint32_t state[8], const unsigned char* blocks, size_t count) {
  for (size_t k = 0; k < count; ++k) compress(state, blocks + 64 * k);
}

#ifdef QD_SHA_NI
// The same compression with the x86 SHA extensions (Intel since Ice Lake/Goldmont, AMD since Zen), about
// ten times the portable code's speed: a warm kernel load hashes its source (tens of kilobytes with the
// runtime header) for the cache key and the library's bytes for the manifest check.
// The registers hold the state as (A, B, E, F) and (C, D, G, H), the order SHA256RNDS2 takes.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_sha_ni(uint32_t state[8], const unsigned char* blocks,
                                                                  size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0xB1);
  __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4)), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);
  for (size_t k = 0; k < count; ++k) {
    const unsigned char* block = blocks + 64 * k;
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];  // the message schedule, four words per register, a window of 16
    for (int g = 0; g < 16; ++g) {  // four rounds each
      __m128i words;
      if (g < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * g)), byte_swap);
      } else {  // W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], for t = 4g .. 4g+3
        __m128i partial = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
        partial = _mm_add_epi32(partial, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
        words = _mm_sha256msg2_epu32(partial, w[(g + 3) % 4]);
      }
      w[g % 4] = words;
      __m128i sum = _mm_add_epi32(words, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRound + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sum);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sum, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

bool has_sha_ni() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return false;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

using CompressFn = void (*)(uint32_t*, const unsigned char*, size_t);

CompressFn chosen_compress() {
#ifdef QD_SHA_NI
  static const CompressFn fn = has_sha_ni() ? compress_sha_ni : compress_portable;
  return fn;
#else
  return compress_portable;
#endif
}

std::string digest_hex(std::string_view bytes, CompressFn compress_blocks) {
  // The first 32 bits of the fractional parts of the square roots of the first 8 primes.
  uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  size_t whole = bytes.size() / 64 * 64;
  compress_blocks(state, reinterpret_cast<const unsigned char*>(bytes.data()), whole / 64);
  // Padding: a 1 bit, zeros, then the message length in bits as a big-endian 64-bit number.
  unsigned char tail[128] = {};
  size_t rest = bytes.size() - whole;
  std::memcpy(tail, bytes.data() + whole, rest);
  tail[rest] = 0x80;
  size_t tail_size = rest < 56 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  compress_blocks(state, tail, tail_size / 64);
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (uint32_t word : state) {
    for (int shift = 28; shift >= 0; shift -= 4) hex += digits[(word >> shift) & 0xf];
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) { return digest_hex(bytes, chosen_compress()); }

std::string sha256_hex_portable(std::string_view bytes) { return digest_hex(bytes, compress_portable); }

}  // namespace qd::jit
