// src/ir/debug_switches.cpp: reads the QD_* debug environment variables.
#include "ir/debug_switches.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace qd::ir {
namespace {

bool env_flag(const char* name, bool fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strcmp(value, "0") != 0;
}

std::atomic<bool> g_print_requested{false};  // set by qd.init(print_ir=...); read by compiles in any thread
std::mutex g_dump_path_mutex;                 // guards g_dump_path: compiles read it in any thread
std::string g_dump_path = "/tmp/ir/";

}  // namespace

DebugSwitches debug_switches() {
#ifdef NDEBUG
  constexpr bool kDebugBuild = false;
#else
  constexpr bool kDebugBuild = true;
#endif
  static const bool verify_from_environment = env_flag("QD_VERIFY_IR", kDebugBuild);
  DebugSwitches switches{g_print_requested.load(std::memory_order_relaxed), verify_from_environment};
  switches.dump_ir = env_flag("QD_DUMP_IR", false);
  std::lock_guard<std::mutex> lock(g_dump_path_mutex);
  switches.dump_path = g_dump_path;
  return switches;
}

void set_print_ir(bool on) { g_print_requested.store(on, std::memory_order_relaxed); }

void set_ir_dump_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_dump_path_mutex);
  g_dump_path = path;
}

}  // namespace qd::ir
