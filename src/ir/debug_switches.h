// src/ir/debug_switches.h: every debug switch of the compiler, read from the environment in one place.
#pragma once

namespace qd::ir {

struct DebugSwitches {
  bool dump_ir;    // QD_DUMP_IR=1: print the IR to stderr after each pass that changed it
  bool verify_ir;  // QD_VERIFY_IR=1 (default on in debug builds): run the verifier after every pass
};

// The environment is read once per process, on first use; qd.init(print_ir=True) also turns dump_ir on.
DebugSwitches debug_switches();
void set_ir_dump_requested(bool on);

}  // namespace qd::ir
