// include/quadrants/cuda_jit.h: compiles a kernel from its IR text (docs/IR.md) to a CUDA module image with NVRTC.
//
// The contract with the CUDA launcher (src/runtime/cuda/): every task function has the signature
//   extern "C" __global__ void NAME(const QdArg* args, char* frame, QdKernelError* error, int32_t* error_flag)
// `args` is the packed QdArg array in device memory; `frame` is frame_bytes of device scratch that holds
// the returned values (QdArg.scalar k at offset 8k) and the top-level locals that later tasks read. Tasks run
// in order on one stream; parallel tasks loop grid-stride over their own extent, so the launcher may pick
// any grid. In debug mode a task that finds *error_flag set returns at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quadrants/dtype.h"
#include "quadrants/jit.h"

namespace qd {

// A qd.graph.do_while loop whose last task is the one holding this: after that task, the launcher reads the
// i32 element of argument `cond_param` (a 0-d device array) and, while it is nonzero, goes back to task
// `first_task`. It also stops once a task ran a `return` or failed a debug check (the frame's returned flag,
// the error flag), which would otherwise leave the condition as it is forever.
struct CudaLoopEnd {
  int first_task;
  int cond_param;
};

struct CudaTask {
  std::string function;  // extern "C" __global__ symbol in the module
  bool parallel;         // true: grid-stride loop over the task's iteration space; false: <<<1,1>>>
  int block_dim;         // threads per block for parallel tasks (loop_config block_dim, default 128)
  std::vector<CudaLoopEnd> loop_ends = {};  // the loops that end with this task, innermost first
};

// The condition kernel of a graph kernel's qd.graph.do_while loops (src/jit/graph_condition.cpp), which the
// launcher links with libcudadevrt (for cudaGraphSetConditional) and loads beside the kernel's module.
struct CudaConditionImage {
  std::vector<char> image;  // relocatable CUBIN, or PTX text when is_ptx; empty: none (see unavailable)
  bool is_ptx = false;
  std::string cudadevrt;    // the libcudadevrt.a to link it with; "": none found (CUDA 13 drivers need none)
  std::string unavailable;  // why there is no image (NVRTC failed): the loops then run on the host
};

struct CudaCompiledKernel {
  std::string name;
  std::vector<char> image;  // CUBIN for the requested arch, or PTX text (then is_ptx) as fallback
  bool is_ptx = false;
  std::vector<CudaTask> tasks;       // run in order on one stream, looping back where a task says (CudaLoopEnd)
  std::vector<DtypeCode> returns;  // value k is stored as a QdArg.scalar at frame offset 8k
  int64_t frame_bytes = 0;         // device scratch the launcher allocates per launch (>= 8 per returned value)
  bool args_by_value = false;      // tasks take the QdArgs themselves as a kernel parameter, not a pointer
  std::vector<std::string> assert_messages;  // same meaning as CompiledKernel's
  std::vector<KernelWarning> warnings;       // same meaning as CompiledKernel's
  std::string source;                        // generated CUDA C++
  int num_params = 0;
  std::vector<KernelParam> params;
  std::vector<bool> param_written;  // per parameter: the kernel may write this array
  std::vector<std::pair<int, int>> i32_extents;  // (param, dim) read as i32: the launcher rejects larger ones
  bool debug = false;  // debug mode or an AD stack: the launcher reads the error record after each launch
  // @qd.kernel(graph=True): launches replay a CUDA graph of the tasks (src/runtime/cuda/graph.h); its tasks
  // take their QdArgs through a pointer (args_by_value is false).
  bool graph = false;
  CudaConditionImage condition;  // a graph kernel with qd.graph.do_while loops: their condition kernel
};

// Parses, runs the same passes as the CPU path, generates CUDA C++, compiles with NVRTC for
// sm_<cc_major><cc_minor> (CUBIN; PTX for compute_XY if CUBIN is unavailable), with a disk cache
// keyed like CPU modules plus the arch and the NVRTC version. Throws CompileError with NVRTC's log
// and the Python line when NVRTC rejects the code, and a qd::CompileError saying NVRTC was not
// found (and where it looked) when it is missing.
std::shared_ptr<const CudaCompiledKernel> compile_kernel_cuda(const std::string& ir_text, int cc_major, int cc_minor);

// Only generates the CUDA C++ (for text tests).
std::string generate_cuda_source(const std::string& ir_text);

// Whether NVRTC can be loaded: from $QD_NVRTC_PATH when set, else the library search path, $CUDA_HOME,
// /usr/local/cuda and the pip package nvidia-cuda-nvrtc beside the quadrants package.
bool nvrtc_available();

}  // namespace qd
