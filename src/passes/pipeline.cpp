// src/passes/pipeline.cpp: the order of the passes, one line each, and what runs between them.
#include "ir/debug_switches.h"
#include "ir/verifier.h"
#include "passes/ir_dumps.h"
#include "passes/passes.h"

namespace qd::passes {
namespace {

struct PassEntry {
  const char* name;
  ir::Kernel (*run)(const ir::Kernel&);
  ir::Stage ensures;  // the stage the verifier checks after the pass
};

constexpr PassEntry kPipeline[] = {
    {"check_control_flow", check_control_flow, ir::Stage::parsed},
    {"check_names", check_names, ir::Stage::checked},
    {"infer_types", infer_types, ir::Stage::typed},
    {"simplify", simplify, ir::Stage::typed},
    {"debug_checks", debug_checks, ir::Stage::typed},  // only kernels compiled with (debug 1)
    {"validate_access", validate_access, ir::Stage::typed},  // only kernels with a (validate ...) clause
    {"reverse_ad", reverse_ad, ir::Stage::typed},  // only kernels with an (adjoint ...) clause
    {"forward_ad", forward_ad, ir::Stage::typed},  // only kernels with a (tangent ...) clause
    {"privatize_atomics", privatize_atomics, ir::Stage::typed},  // last: sees the atomics autodiff wrote
};

}  // namespace

ir::Kernel run_pipeline(const ir::Kernel& input) { return run_pipeline(input, ir::debug_switches()); }

ir::Kernel run_pipeline(const ir::Kernel& input, const ir::DebugSwitches& debug) {
  if (debug.verify_ir) ir::verify(input, ir::Stage::parsed);
  IrDumps dumps(debug, input);
  ir::Kernel kernel = input;
  for (const PassEntry& pass : kPipeline) {
    ir::Kernel next = pass.run(kernel);
    if (debug.verify_ir) ir::verify(next, pass.ensures);
    dumps.after_pass(pass.name, kernel, next);
    kernel = std::move(next);
  }
  // The renderers launch the result task by task (src/ir/tasks.h); the dump shows that split, upstream's offload.
  dumps.after_offload(kernel);
  return kernel;
}

}  // namespace qd::passes
