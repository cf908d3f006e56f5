// src/jit/hash.h: cache keys: SHA-256 over length-prefixed parts, so distinct inputs never share a key.
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
    bytes_.append(reinterpret_cast<const char*>(&n), sizeof n);
    bytes_.append(part);
    return *this;
  }
  // The first 128 bits of the SHA-256 of the parts, as 32 hex digits.
  std::string hex() const;

 private:
  std::string bytes_;
};

}  // namespace qd::jit
