// src/codegen/codegen.h: turns a typed kernel into one self-contained C++ translation unit.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace qd::codegen {

struct GeneratedSource {
  std::string source;                        // includes "qd_runtime.h" (the JIT inlines it)
  std::vector<std::string> assert_messages;  // debug mode: error code 2's arg_index indexes this
};

// Requires a kernel at ir::Stage::typed (after passes::run_pipeline).
GeneratedSource generate_cpu_source(const ir::Kernel& kernel);

}  // namespace qd::codegen
