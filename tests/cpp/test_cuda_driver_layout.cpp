// tests/cpp/test_cuda_driver_layout.cpp: the CUDA driver structs and constants that src/runtime/cuda/driver.h
// declares by hand (we load the driver with dlopen and ship no CUDA headers) against the real cuda.h, where the build
// machine has one (CMake's QD_REAL_CUDA_INCLUDE). A mismatch is a compile error: a wrong offset would make the
// driver read garbage on a GPU, which the driver emulation, built from the same declarations, cannot show.
#include <gtest/gtest.h>

#include <cstddef>

#if defined(QD_REAL_CUDA_H)
#include <cuda.h>
#endif

#include "runtime/cuda/driver.h"

namespace {

#if defined(QD_REAL_CUDA_H)
namespace q = qd::cuda;

static_assert(sizeof(q::KernelNodeParams) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2));
static_assert(offsetof(q::KernelNodeParams, func) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, func));
static_assert(offsetof(q::KernelNodeParams, grid_x) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, gridDimX));
static_assert(offsetof(q::KernelNodeParams, block_x) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, blockDimX));
static_assert(offsetof(q::KernelNodeParams, shared_bytes) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, sharedMemBytes));
static_assert(offsetof(q::KernelNodeParams, kernel_params) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams));
static_assert(offsetof(q::KernelNodeParams, extra) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, extra));
static_assert(offsetof(q::KernelNodeParams, kernel) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kern));
static_assert(offsetof(q::KernelNodeParams, context) == offsetof(CUDA_KERNEL_NODE_PARAMS_v2, ctx));
static_assert(sizeof(q::GraphNodeParams) == sizeof(CUgraphNodeParams));
static_assert(offsetof(q::GraphNodeParams, conditional) == offsetof(CUgraphNodeParams, conditional));
static_assert(sizeof(q::ConditionalNodeParams) == sizeof(CUDA_CONDITIONAL_NODE_PARAMS));
static_assert(offsetof(q::ConditionalNodeParams, handle) == offsetof(CUDA_CONDITIONAL_NODE_PARAMS, handle));
static_assert(offsetof(q::ConditionalNodeParams, type) == offsetof(CUDA_CONDITIONAL_NODE_PARAMS, type));
static_assert(offsetof(q::ConditionalNodeParams, size) == offsetof(CUDA_CONDITIONAL_NODE_PARAMS, size));
static_assert(offsetof(q::ConditionalNodeParams, bodies) == offsetof(CUDA_CONDITIONAL_NODE_PARAMS, phGraph_out));
static_assert(offsetof(q::ConditionalNodeParams, context) == offsetof(CUDA_CONDITIONAL_NODE_PARAMS, ctx));
static_assert(q::kGraphNodeTypeConditional == CU_GRAPH_NODE_TYPE_CONDITIONAL);
static_assert(q::kGraphConditionalWhile == CU_GRAPH_COND_TYPE_WHILE);
static_assert(q::kGraphConditionalAssignDefault == CU_GRAPH_COND_ASSIGN_DEFAULT);
static_assert(q::kJitInputCubin == CU_JIT_INPUT_CUBIN);
static_assert(q::kJitInputPtx == CU_JIT_INPUT_PTX);
static_assert(q::kJitInputLibrary == CU_JIT_INPUT_LIBRARY);
static_assert(q::kLimitStackSize == CU_LIMIT_STACK_SIZE);
static_assert(q::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(q::kMemoryTypeDevice == CU_MEMORYTYPE_DEVICE);
static_assert(q::kSuccess == CUDA_SUCCESS && q::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(q::kAttributeClockRate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(q::kAttributeMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(q::kAttributeComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(q::kAttributeComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(q::kAttributeMemoryPoolsSupported == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(q::kPointerAttributeMemoryType == CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
static_assert(q::kPointerAttributeDeviceOrdinal == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
#endif

TEST(CudaDriverLayout, HandDeclaredStructsMatchTheRealHeader) {
#if defined(QD_REAL_CUDA_H)
  SUCCEED() << "checked at compile time against cuda.h " << CUDA_VERSION;
#else
  GTEST_SKIP() << "no cuda.h on this build machine (CMake's QD_REAL_CUDA_INCLUDE): the layouts were not checked";
#endif
}

}  // namespace
