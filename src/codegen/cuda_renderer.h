// src/codegen/cuda_renderer.h: turns a typed kernel into CUDA C++: one __global__ function per task.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "quadrants/cuda_jit.h"

namespace qd::codegen {

struct GeneratedCudaSource {
  std::string source;                        // includes "qd_runtime.h" (the JIT inlines it)
  std::vector<std::string> assert_messages;  // debug mode: error code 2's arg_index indexes this
  std::vector<CudaTask> tasks;               // in launch order
  int64_t frame_bytes = 0;                   // return value, return flag and locals shared by tasks
  bool args_by_value = false;                // tasks take the QdArgs as their first kernel parameter
  std::vector<bool> param_written;           // per kernel parameter: an array that a store or atomic writes
  std::vector<std::pair<int, int>> i32_extents;  // checked by the launcher on the host (see i32_extents())
};

// Requires a kernel at ir::Stage::typed (after passes::run_pipeline). Each top-level parallel_for
// becomes a parallel task; each run of other top-level statements becomes a serial task.
GeneratedCudaSource generate_cuda_source(const ir::Kernel& kernel);

}  // namespace qd::codegen
