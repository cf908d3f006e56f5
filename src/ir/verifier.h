// src/ir/verifier.h: the one place that states the IR's invariants at each stage of the pipeline.
#pragma once

#include "ir/ir.h"

namespace qd::ir {

enum class Stage {
  parsed,   // well-formed nodes only; names and types are not yet checked
  checked,  // + every name resolves, index counts match, control flow is where it may be
  typed,    // + every expression has a type, and implicit conversions are explicit casts
};

// Throws qd::InternalError naming the first broken invariant: a pass or the frontend has a bug.
void verify(const Kernel& kernel, Stage stage);

}  // namespace qd::ir
