// src/jit/hash.h: a 128-bit non-cryptographic hash (two FNV-1a lanes) for cache keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qd::jit {

class Hasher {
 public:
  // Every part is length-prefixed, so ("ab", "c") and ("a", "bc") hash differently.
  Hasher& add(std::string_view part) {
    uint64_t n = part.size();
    mix(std::string_view(reinterpret_cast<const char*>(&n), sizeof n));
    mix(part);
    return *this;
  }
  std::string hex() const;

 private:
  void mix(std::string_view bytes) {
    for (unsigned char c : bytes) {
      low_ = (low_ ^ c) * 0x100000001b3ull;
      high_ = (high_ ^ c ^ (high_ >> 29)) * 0x100000001b3ull;
    }
  }
  uint64_t low_ = 0xcbf29ce484222325ull;
  uint64_t high_ = 0x84222325cbf29ce4ull;
};

}  // namespace qd::jit
