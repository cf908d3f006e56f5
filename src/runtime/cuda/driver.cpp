// src/runtime/cuda/driver.cpp: dlopen of libcuda, entry point resolution, cuInit and error texts.
#include "runtime/cuda/driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace qd::cuda {
namespace {

// The last kernel launched in this process: a fault inside a kernel is reported by whichever call
// comes next, so its message names this kernel.
std::mutex last_kernel_mutex;
std::string last_kernel;

template <typename Fn>
bool resolve(void* library, const char* symbol, Fn& slot, std::string& missing) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!slot && missing.empty()) missing = symbol;
  return slot != nullptr;
}

// CUDA graphs (CUDA 10+) as one group, conditional nodes and the linker (12.3+) as another: a group with a
// missing entry point is left out whole, and graph kernels then launch task by task (src/runtime/cuda/graph.cpp).
void resolve_graph_api(void* library, DriverApi& api) {
  std::string missing;
  resolve(library, "cuGraphCreate", api.cuGraphCreate, missing);
  resolve(library, "cuGraphDestroy", api.cuGraphDestroy, missing);
  resolve(library, "cuGraphAddKernelNode_v2", api.cuGraphAddKernelNode, missing);
  resolve(library, "cuGraphInstantiateWithFlags", api.cuGraphInstantiateWithFlags, missing);
  resolve(library, "cuGraphLaunch", api.cuGraphLaunch, missing);
  resolve(library, "cuGraphExecDestroy", api.cuGraphExecDestroy, missing);
  if (!missing.empty()) {
    api.cuGraphCreate = nullptr;
    api.cuGraphDestroy = nullptr;
    api.cuGraphAddKernelNode = nullptr;
    api.cuGraphInstantiateWithFlags = nullptr;
    api.cuGraphLaunch = nullptr;
    api.cuGraphExecDestroy = nullptr;
  }
  std::string conditional;
  resolve(library, "cuGraphConditionalHandleCreate", api.cuGraphConditionalHandleCreate, conditional);
  std::string unused;
  if (!resolve(library, "cuGraphAddNode_v2", api.cuGraphAddNode, unused)) {
    resolve(library, "cuGraphAddNode", api.cuGraphAddNodeWithoutEdges, conditional);
  }
  resolve(library, "cuLinkCreate_v2", api.cuLinkCreate, conditional);
  resolve(library, "cuLinkAddData_v2", api.cuLinkAddData, conditional);
  resolve(library, "cuLinkAddFile_v2", api.cuLinkAddFile, conditional);
  resolve(library, "cuLinkComplete", api.cuLinkComplete, conditional);
  resolve(library, "cuLinkDestroy", api.cuLinkDestroy, conditional);
  if (!conditional.empty() || !missing.empty()) {
    api.cuGraphConditionalHandleCreate = nullptr;
    api.cuGraphAddNode = nullptr;
    api.cuGraphAddNodeWithoutEdges = nullptr;
    api.cuLinkCreate = nullptr;
    api.cuLinkAddData = nullptr;
    api.cuLinkAddFile = nullptr;
    api.cuLinkComplete = nullptr;
    api.cuLinkDestroy = nullptr;
  }
}

// Resolves every entry point; returns the first missing required symbol, or "".
std::string resolve_all(void* library, DriverApi& api) {
  std::string missing;
  resolve(library, "cuInit", api.cuInit, missing);
  resolve(library, "cuDeviceGetCount", api.cuDeviceGetCount, missing);
  resolve(library, "cuDeviceGet", api.cuDeviceGet, missing);
  resolve(library, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, missing);
  resolve(library, "cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain, missing);
  resolve(library, "cuCtxSetCurrent", api.cuCtxSetCurrent, missing);
  resolve(library, "cuCtxGetCurrent", api.cuCtxGetCurrent, missing);
  resolve(library, "cuCtxSynchronize", api.cuCtxSynchronize, missing);
  resolve(library, "cuCtxSetLimit", api.cuCtxSetLimit, missing);
  resolve(library, "cuCtxGetLimit", api.cuCtxGetLimit, missing);
  resolve(library, "cuMemAlloc_v2", api.cuMemAlloc, missing);
  resolve(library, "cuMemFree_v2", api.cuMemFree, missing);
  resolve(library, "cuMemAllocHost_v2", api.cuMemAllocHost, missing);
  resolve(library, "cuMemFreeHost", api.cuMemFreeHost, missing);
  resolve(library, "cuMemcpyHtoDAsync_v2", api.cuMemcpyHtoDAsync, missing);
  resolve(library, "cuMemcpyDtoHAsync_v2", api.cuMemcpyDtoHAsync, missing);
  resolve(library, "cuMemcpyDtoDAsync_v2", api.cuMemcpyDtoDAsync, missing);
  resolve(library, "cuMemsetD8Async", api.cuMemsetD8Async, missing);
  resolve(library, "cuStreamCreate", api.cuStreamCreate, missing);
  resolve(library, "cuStreamDestroy_v2", api.cuStreamDestroy, missing);
  resolve(library, "cuStreamSynchronize", api.cuStreamSynchronize, missing);
  resolve(library, "cuStreamWaitEvent", api.cuStreamWaitEvent, missing);
  resolve(library, "cuEventCreate", api.cuEventCreate, missing);
  resolve(library, "cuEventRecord", api.cuEventRecord, missing);
  resolve(library, "cuEventSynchronize", api.cuEventSynchronize, missing);
  resolve(library, "cuEventDestroy_v2", api.cuEventDestroy, missing);
  resolve(library, "cuModuleLoadData", api.cuModuleLoadData, missing);
  resolve(library, "cuModuleGetFunction", api.cuModuleGetFunction, missing);
  resolve(library, "cuModuleUnload", api.cuModuleUnload, missing);
  resolve(library, "cuLaunchKernel", api.cuLaunchKernel, missing);
  resolve(library, "cuGetErrorName", api.cuGetErrorName, missing);
  resolve(library, "cuGetErrorString", api.cuGetErrorString, missing);
  resolve(library, "cuPointerGetAttribute", api.cuPointerGetAttribute, missing);
  resolve(library, "cuDriverGetVersion", api.cuDriverGetVersion, missing);
  resolve(library, "cuOccupancyMaxActiveBlocksPerMultiprocessor", api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
          missing);
  // Stream-ordered allocation needs a CUDA 11.2 driver; older ones fall back to cuMemAlloc.
  std::string optional;
  resolve(library, "cuMemAllocAsync", api.cuMemAllocAsync, optional);
  resolve(library, "cuMemFreeAsync", api.cuMemFreeAsync, optional);
  if (!api.cuMemAllocAsync || !api.cuMemFreeAsync) {
    api.cuMemAllocAsync = nullptr;
    api.cuMemFreeAsync = nullptr;
  }
  resolve_graph_api(library, api);
  return missing;
}

}  // namespace

DriverLoad load_driver(const char* library_path) {
  DriverLoad load;
  void* library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* reason = dlerror();
    load.error = std::string("no driver library (") + library_path + " could not be loaded: " +
                 (reason ? reason : "unknown reason") + ")";
    return load;
  }
  std::string missing = resolve_all(library, load.api);
  if (!missing.empty()) {
    load.error = std::string("no driver library (") + library_path + " lacks the entry point " + missing +
                 "; the NVIDIA driver is too old or this is not the driver library)";
    load.api = DriverApi{};
    return load;
  }
  CUresult result = load.api.cuInit(0);
  if (result == kErrorNoDevice) {
    load.error = "no device (the driver reports no CUDA-capable device)";
  } else if (result != kSuccess) {
    load.error = "cuInit failed (" + error_text(load.api, result) + ")";
  } else if (load.api.cuDeviceGetCount(&load.device_count) != kSuccess || load.device_count <= 0) {
    load.error = "no device (the driver reports no CUDA-capable device)";
    load.device_count = 0;
  }
  if (!load.error.empty()) load.api = DriverApi{};
  return load;
}

namespace {
std::atomic<const DriverLoad*> replacement{nullptr};
}  // namespace

const DriverLoad& driver_load() {
  if (const DriverLoad* load = replacement.load(std::memory_order_acquire)) return *load;
  // QD_CUDA_DRIVER_PATH names another driver library: a driver outside the loader's path, or the
  // CPU emulation the tests use where there is no GPU (tests/cuda_emulator/).
  static const DriverLoad load = [] {
    const char* path = std::getenv("QD_CUDA_DRIVER_PATH");
    return load_driver(path && *path ? path : "libcuda.so.1");
  }();
  return load;
}

void use_driver_for_tests(const DriverLoad* load) { replacement.store(load, std::memory_order_release); }

const DriverApi& driver() {
  const DriverLoad& load = driver_load();
  if (!load.error.empty()) throw CudaError("CUDA is not available: " + load.error + ".", 0);
  return load.api;
}

std::string error_text(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text) out += std::string(" (") + text + ")";
  return out;
}

bool is_sticky_error(CUresult result) {
  switch (result) {
    case 700: case 702: case 710: case 714: case 715: case 716: case 717: case 718: case 719:
      return true;
    default:
      return false;
  }
}

void note_kernel_launch(const std::string& kernel) {
  std::lock_guard<std::mutex> lock(last_kernel_mutex);
  if (last_kernel != kernel) last_kernel = kernel;
}

void check(CUresult result, const char* what) {
  if (result == kSuccess) return;
  std::string message = std::string(what) + " failed: " + error_text(driver_load().api, result) + ".";
  if (is_sticky_error(result)) {
    std::lock_guard<std::mutex> lock(last_kernel_mutex);
    if (!last_kernel.empty()) {
      message += " The fault happened in a kernel, most likely '" + last_kernel +
                 "' (the last one launched); the CUDA context cannot be used again in this process.";
    }
  }
  throw CudaError(message, result);
}

void check(CUresult result, const std::string& what) { check(result, what.c_str()); }

}  // namespace qd::cuda
