// src/jit/sha256.h: SHA-256, the digest that cache manifests record for what they vouch for.
#pragma once

#include <string>
#include <string_view>

namespace qd::jit {

// The SHA-256 of `bytes` as 64 lowercase hex digits (with the CPU's SHA instructions where it has them).
std::string sha256_hex(std::string_view bytes);
// The same digest without them, for tests that both paths agree.
std::string sha256_hex_portable(std::string_view bytes);

}  // namespace qd::jit
