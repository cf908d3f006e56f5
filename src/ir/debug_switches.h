// src/ir/debug_switches.h: every debug switch of the compiler, read from the environment in one place.
#pragma once

namespace qd::ir {

struct DebugSwitches {
  bool dump_ir;    // QD_DUMP_IR=1: print the IR to stderr after each pass that changed it
  bool verify_ir;  // QD_VERIFY_IR=1 (default on in debug builds): run the verifier after every pass
};

// Read once per process, on first use.
const DebugSwitches& debug_switches();

}  // namespace qd::ir
