// src/passes/passes.h: the entry function of every pass, and the whole pipeline (pipeline.cpp).
#pragma once

#include "ir/debug_switches.h"
#include "ir/ir.h"

namespace qd::passes {

// Each pass takes a kernel and returns it transformed; see each file's Requires/Ensures/Rejects.
ir::Kernel check_control_flow(const ir::Kernel& kernel);
ir::Kernel check_names(const ir::Kernel& kernel);
ir::Kernel infer_types(const ir::Kernel& kernel);
ir::Kernel simplify(const ir::Kernel& kernel);
ir::Kernel debug_checks(const ir::Kernel& kernel);
ir::Kernel validate_access(const ir::Kernel& kernel);
ir::Kernel reverse_ad(const ir::Kernel& kernel);
ir::Kernel forward_ad(const ir::Kernel& kernel);
ir::Kernel privatize_atomics(const ir::Kernel& kernel);

// Runs every pass in order, verifying and dumping between passes as the debug switches say.
ir::Kernel run_pipeline(const ir::Kernel& kernel);
ir::Kernel run_pipeline(const ir::Kernel& kernel, const ir::DebugSwitches& debug);

}  // namespace qd::passes
