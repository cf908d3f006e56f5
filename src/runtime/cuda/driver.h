// src/runtime/cuda/driver.h: the CUDA driver API entry points we use, loaded with dlopen (no cuda.h, no link).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quadrants/cuda.h"

namespace qd::cuda {

// Our own declarations of the few driver types we need; layouts and values follow cuda.h.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // cuda.h: unsigned long long on 64-bit hosts
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = ::CUevent;
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUlinkState = struct CUlinkState_st*;
using CUgraphConditionalHandle = unsigned long long;

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kErrorNoDevice = 100;
inline constexpr int kAttributeClockRate = 13;  // CU_DEVICE_ATTRIBUTE_CLOCK_RATE, in kHz
inline constexpr int kAttributeMultiprocessorCount = 16;
inline constexpr int kAttributeComputeCapabilityMajor = 75;
inline constexpr int kAttributeComputeCapabilityMinor = 76;
inline constexpr int kAttributeMemoryPoolsSupported = 115;
inline constexpr int kPointerAttributeMemoryType = 2;
inline constexpr int kPointerAttributeDeviceOrdinal = 9;
inline constexpr unsigned kMemoryTypeDevice = 2;
inline constexpr unsigned kEventDisableTiming = 0x2;
inline constexpr int kLimitStackSize = 0;  // CU_LIMIT_STACK_SIZE: bytes of stack per GPU thread

// cuda.h's CUDA_KERNEL_NODE_PARAMS (its _v2 layout, cuGraphAddKernelNode_v2's).
struct KernelNodeParams {
  CUfunction func;
  unsigned grid_x, grid_y, grid_z;
  unsigned block_x, block_y, block_z;
  unsigned shared_bytes;
  void** kernel_params;
  void** extra;
  void* kernel;      // CUkernel, used only when func is null
  CUcontext context;  // ignored when func is set
};

// cuda.h's CUDA_CONDITIONAL_NODE_PARAMS, inside CUgraphNodeParams (cuGraphAddNode's).
struct ConditionalNodeParams {
  CUgraphConditionalHandle handle;
  int type;       // CU_GRAPH_COND_TYPE_WHILE = 1
  unsigned size;  // body graphs: 1 for a while node
  CUgraph* bodies;  // filled by the driver, which owns the body graphs
  CUcontext context;
};

// cuda.h's CUgraphNodeParams: 256 bytes, every unused one zero.
struct GraphNodeParams {
  int type;  // CU_GRAPH_NODE_TYPE_CONDITIONAL = 13
  int reserved0[3];
  union {
    long long reserved1[29];
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(GraphNodeParams) == 256, "CUgraphNodeParams is 256 bytes in cuda.h");

inline constexpr int kGraphNodeTypeConditional = 13;
inline constexpr int kGraphConditionalWhile = 1;
inline constexpr unsigned kGraphConditionalAssignDefault = 1;  // CU_GRAPH_COND_ASSIGN_DEFAULT
inline constexpr int kJitInputCubin = 0;    // CU_JIT_INPUT_CUBIN
inline constexpr int kJitInputPtx = 1;      // CU_JIT_INPUT_PTX
inline constexpr int kJitInputLibrary = 4;  // CU_JIT_INPUT_LIBRARY
// Conditional graph nodes and cudaGraphSetConditional need a CUDA 12.4 driver (cuDriverGetVersion's 12040).
inline constexpr int kConditionalNodesDriverVersion = 12040;

// Function pointers, filled by dlsym under the versioned names cuda.h maps the plain ones to
// (cuMemAlloc -> cuMemAlloc_v2 and so on). Streams are the legacy-default-stream variants: we pass
// explicit streams, and stream 0 means the context's legacy default stream.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxGetCurrent)(CUcontext* context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuCtxSetLimit)(int limit, size_t value);
  CUresult (*cuCtxGetLimit)(size_t* value, int limit);
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemAllocAsync)(CUdeviceptr* pointer, size_t bytes, CUstream stream);  // may be null
  CUresult (*cuMemFreeAsync)(CUdeviceptr pointer, CUstream stream);                // may be null
  CUresult (*cuMemAllocHost)(void** pointer, size_t bytes);
  CUresult (*cuMemFreeHost)(void* pointer);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void* dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream);
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                             CUstream stream, void** params, void** extra);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuPointerGetAttribute)(void* value, int attribute, CUdeviceptr pointer);
  CUresult (*cuDriverGetVersion)(int* version);  // 12080 for CUDA 12.8
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int* blocks, CUfunction function, int block_size,
                                                          size_t dynamic_shared_bytes);
  // CUDA graphs (src/runtime/cuda/graph.cpp); all null when the driver lacks any of them.
  CUresult (*cuGraphCreate)(CUgraph* graph, unsigned flags);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                   size_t num_dependencies, const KernelNodeParams* params);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec* exec, CUgraph graph, unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  // Conditional nodes (CUDA 12.3+) and the linker that binds cudaGraphSetConditional from libcudadevrt; null
  // when missing. cuGraphAddNode is the _v2 entry point (edge data, null here) or, before 12.3, the first one.
  CUresult (*cuGraphConditionalHandleCreate)(CUgraphConditionalHandle* handle, CUgraph graph, CUcontext context,
                                             unsigned default_value, unsigned flags);
  CUresult (*cuGraphAddNode)(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                             const void* edge_data, size_t num_dependencies, GraphNodeParams* params);
  CUresult (*cuGraphAddNodeWithoutEdges)(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                         size_t num_dependencies, GraphNodeParams* params);
  CUresult (*cuLinkCreate)(unsigned num_options, int* options, void** values, CUlinkState* state);
  CUresult (*cuLinkAddData)(CUlinkState state, int type, void* data, size_t bytes, const char* name,
                            unsigned num_options, int* options, void** values);
  CUresult (*cuLinkAddFile)(CUlinkState state, int type, const char* path, unsigned num_options, int* options,
                            void** values);
  CUresult (*cuLinkComplete)(CUlinkState state, void** image, size_t* bytes);
  CUresult (*cuLinkDestroy)(CUlinkState state);
};

// The outcome of loading a driver library: api is usable only when error is empty.
struct DriverLoad {
  DriverApi api{};
  std::string error;  // "no driver library: ...", "cuInit failed (...)" or "no device"
  int device_count = 0;
};

// Opens library_path, resolves every entry point and runs cuInit. Never throws; each failure is
// described in the result. The handle stays open for the life of the process.
DriverLoad load_driver(const char* library_path);

// The process-wide driver from libcuda.so.1, loaded on first use.
const DriverLoad& driver_load();

// Tests without a GPU run the runtime over a host-memory imitation of the driver
// (tests/cpp/test_cuda_runtime_fake.cpp); nullptr goes back to libcuda. Devices, staging buffers
// and loaded modules made meanwhile belong to the imitation and must not be used afterwards.
void use_driver_for_tests(const DriverLoad* load);

// The driver table; throws std::runtime_error("CUDA is not available: ...") when unusable.
const DriverApi& driver();

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)", or the number when the
// driver cannot name it.
std::string error_text(const DriverApi& api, CUresult result);

// Throws CudaError naming the call when result is not success. what names the call, e.g.
// "cuMemAlloc(1024 bytes)".
void check(CUresult result, const char* what);
void check(CUresult result, const std::string& what);

// Errors after which the context is unusable (faults inside a kernel); messages then name the last
// kernel launched, since the fault surfaces at a later, unrelated call.
bool is_sticky_error(CUresult result);

// Records the kernel being launched, for the messages of sticky errors (cheap when unchanged).
void note_kernel_launch(const std::string& kernel);

}  // namespace qd::cuda
