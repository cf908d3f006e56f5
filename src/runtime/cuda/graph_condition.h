// src/runtime/cuda/graph_condition.h: loads the condition kernel of qd.graph.do_while's conditional WHILE nodes.
//
// The kernel (src/jit/graph_condition.cpp compiles it) is
//   qd_graph_loop_condition(handle, flag_slot, returned_flag, error_flag)
// and sets the WHILE node's condition to whether the i32 that *flag_slot points at is nonzero and, where those
// flags are given (non-null), no task ran a `return` and no debug check failed. flag_slot is the address of the
// flag argument's QdArg::data in the graph's launch buffer, so each launch's flag array is read. A flag_slot that
// points at a constant 1 re-arms a nested loop's condition before its WHILE node.
#pragma once

#include <string>

#include "quadrants/cuda_jit.h"
#include "runtime/cuda/driver.h"

namespace qd::cuda {

struct ConditionModule {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string unavailable;  // why conditional nodes cannot be used; empty when function is set
};

// Links `image` with its libcudadevrt.a (the driver's linker) and loads it on the current context. Never throws:
// a driver older than CUDA 12.4, one without conditional nodes, no image, or a failed link or load is the
// result's reason. The caller unloads the module.
ConditionModule load_graph_condition(const CudaConditionImage& image);

}  // namespace qd::cuda
