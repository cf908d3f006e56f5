// src/jit/hash.cpp: hex digest of Hasher.
#include "jit/hash.h"

#include "jit/sha256.h"

namespace qd::jit {

std::string Hasher::hex() const { return sha256_hex(bytes_).substr(0, 32); }

}  // namespace qd::jit
