// src/codegen/cpu_simd.h: a CPU parallel loop's innermost index run QD_SIMD_W iterations at a time, as
// vector lanes with masks for control flow (cpu_simd.cpp, runtime/qd_simd.h).
#pragma once

#include <string>

#include "codegen/cstyle_renderer.h"

namespace qd::codegen {

// Whether the loop runs its innermost index in lanes: a release-mode loop whose body has a `while`
// (per-iteration trip counts the C++ compiler cannot vectorize) and only what lanes express: locals,
// arithmetic, loads and stores of 32/64-bit ints and floats, `if`, `while`, and `for` over bounds the
// same for every lane.
bool simd_applies(const ir::Kernel& kernel, const ir::ParallelFor& loop);

// Emits a loop over whole groups of QD_SIMD_W iterations: `counter` (a C++ variable of the loop
// variables' type `t`, the innermost index of the group's first lane) advances by QD_SIMD_W while at
// least that many iterations remain before `stop`; the caller runs the rest one by one.
void emit_simd_groups(CStyleRenderer& renderer, const ir::ParallelFor& loop, const std::string& counter,
                      const std::string& stop, const std::string& t);

}  // namespace qd::codegen
