// src/ir/debug_switches.h: every debug switch of the compiler, read from the environment in one place.
#pragma once

#include <string>

namespace qd::ir {

struct DebugSwitches {
  bool print_ir;   // qd.init(print_ir=True): print the IR to stdout after each pass that changed it
  bool verify_ir;  // QD_VERIFY_IR=1 (default on in debug builds): run the verifier after every pass
  bool dump_ir = false;  // QD_DUMP_IR=1: write the IR after every pass to a file in dump_path (docs/IR.md)
  std::string dump_path = "/tmp/ir/";  // qd.init(debug_dump_path=...), upstream's default
};

// QD_VERIFY_IR is read once per process, on first use; QD_DUMP_IR at every call (upstream reads it at every
// compile, so a program may turn it on for some kernels only).
DebugSwitches debug_switches();
void set_print_ir(bool on);
void set_ir_dump_path(const std::string& path);

}  // namespace qd::ir
