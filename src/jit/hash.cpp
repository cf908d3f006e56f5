// src/jit/hash.cpp: hex digest of Hasher.
#include "jit/hash.h"

#include <cstdio>

namespace qd::jit {

std::string Hasher::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high_),
                static_cast<unsigned long long>(low_));
  return buf;
}

}  // namespace qd::jit
