// src/ir/debug_switches.cpp: reads the QD_* debug environment variables.
#include "ir/debug_switches.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace qd::ir {
namespace {

bool env_flag(const char* name, bool fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strcmp(value, "0") != 0;
}

std::atomic<bool> g_dump_requested{false};  // set by qd.init(print_ir=...); read by compiles in any thread

}  // namespace

DebugSwitches debug_switches() {
#ifdef NDEBUG
  constexpr bool kDebugBuild = false;
#else
  constexpr bool kDebugBuild = true;
#endif
  static const DebugSwitches from_environment{env_flag("QD_DUMP_IR", false), env_flag("QD_VERIFY_IR", kDebugBuild)};
  DebugSwitches switches = from_environment;
  switches.dump_ir = switches.dump_ir || g_dump_requested.load(std::memory_order_relaxed);
  return switches;
}

void set_ir_dump_requested(bool on) { g_dump_requested.store(on, std::memory_order_relaxed); }

}  // namespace qd::ir
