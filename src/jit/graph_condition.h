// src/jit/graph_condition.h: compiles the condition kernel of qd.graph.do_while's CUDA graph WHILE nodes.
#pragma once

#include "quadrants/cuda_jit.h"

namespace qd::jit {

// The kernel's CUDA C++ (its contract: src/runtime/cuda/graph_condition.h).
const char* graph_condition_source();

// Compiles it with NVRTC as relocatable device code for sm_<major><minor> (through the disk cache, as kernels
// are) and finds the libcudadevrt.a to link it with. Never throws: a failure is the result's `unavailable`.
CudaConditionImage compile_graph_condition(int cc_major, int cc_minor);

// Where libcudadevrt.a is: $QD_CUDADEVRT_PATH when set; else beside the NVRTC library in use, in $CUDA_HOME/lib64,
// /usr/local/cuda/lib64 or the pip package nvidia-cuda-runtime's folder beside NVRTC's; "" when none holds it.
std::string cudadevrt_path();

}  // namespace qd::jit
