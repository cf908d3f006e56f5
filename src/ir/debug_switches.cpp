// src/ir/debug_switches.cpp: reads the QD_* debug environment variables.
#include "ir/debug_switches.h"

#include <cstdlib>
#include <cstring>

namespace qd::ir {
namespace {

bool env_flag(const char* name, bool fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strcmp(value, "0") != 0;
}

}  // namespace

const DebugSwitches& debug_switches() {
#ifdef NDEBUG
  constexpr bool kDebugBuild = false;
#else
  constexpr bool kDebugBuild = true;
#endif
  static const DebugSwitches switches{env_flag("QD_DUMP_IR", false), env_flag("QD_VERIFY_IR", kDebugBuild)};
  return switches;
}

}  // namespace qd::ir
