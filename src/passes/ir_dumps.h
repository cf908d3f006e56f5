// src/passes/ir_dumps.h: the pipeline's IR dumps: print_ir's text on stdout and QD_DUMP_IR's files.
#pragma once

#include <string>

#include "ir/debug_switches.h"
#include "ir/ir.h"

namespace qd::passes {

// One compile's dumps. With QD_DUMP_IR=1 it writes one file per stage into the debug switches' dump_path
// (created when missing), named NAME_SEQ_STEP_STAGE.ir: NAME the kernel's, SEQ this process's count of dumped
// compiles (so compiles of kernels with one name do not overwrite each other), STEP the stage's place in the
// pipeline, STAGE from_frontend (the parsed input), after_PASS for every pass, then after_offload (the kernel
// split into its tasks, src/ir/tasks.h). Each file starts with a `// IR ...` line naming its stage.
// With print_ir, the same text goes to stdout for the passes that changed the kernel, and for the tasks.
// A file that cannot be written is reported once on stderr; the compile goes on.
class IrDumps {
 public:
  IrDumps(const ir::DebugSwitches& debug, const ir::Kernel& input);
  void after_pass(const char* pass, const ir::Kernel& before, const ir::Kernel& after);
  void after_offload(const ir::Kernel& kernel);

 private:
  void write(const std::string& stage, const std::string& text);

  bool print_;
  bool dump_;
  std::string directory_;
  std::string prefix_;  // NAME_SEQ_
  int step_ = 0;
};

}  // namespace qd::passes
