// src/runtime/cuda/launch.cpp: module loading (cached per kernel and device) and launching a kernel's tasks.
//
// Per launch, one device buffer holds [QdArg args | QdKernelError | error flag | pad | frame]. It is
// filled from a pinned slot with one asynchronous copy, so a launch never waits for the device
// unless the caller needs a result, and freed in stream order after the last task.
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "runtime/cuda/memory.h"

namespace qd {
namespace {

constexpr int kSlots = 64;
constexpr size_t kSlotBytes = 16 << 10;  // 64 arguments (9 KB) plus the error record and a small frame

// A ring of pinned upload slots per device; slot i may be refilled once events[i] has completed.
struct ArgumentRing {
  std::mutex mutex;
  char* buffer = nullptr;
  cuda::CUevent events[kSlots] = {};
  int next = 0;
};

ArgumentRing& argument_ring(int device_id) {
  static ArgumentRing rings[64];
  QD_ASSERT(device_id >= 0 && device_id < 64, "argument_ring(): more than 64 CUDA devices");
  return rings[device_id];
}

// Enqueues the copy of args_bytes of args followed by zeros, bytes in all, to dst through the next
// free slot (from pageable memory the driver could wait for the stream first).
void upload_arguments(int device_id, cuda::CUdeviceptr dst, const void* args, size_t args_bytes, size_t bytes,
                      CUstream stream) {
  const cuda::DriverApi& api = cuda::driver();
  ArgumentRing& ring = argument_ring(device_id);
  std::lock_guard<std::mutex> lock(ring.mutex);
  if (!ring.buffer) {
    void* buffer = nullptr;
    cuda::check(api.cuMemAllocHost(&buffer, kSlots * kSlotBytes), "cuMemAllocHost(argument slots)");
    for (cuda::CUevent& event : ring.events) {
      cuda::check(api.cuEventCreate(&event, cuda::kEventDisableTiming), "cuEventCreate");
    }
    ring.buffer = static_cast<char*>(buffer);
  }
  int slot = ring.next;
  ring.next = (ring.next + 1) % kSlots;
  cuda::check(api.cuEventSynchronize(ring.events[slot]), "cuEventSynchronize(argument slot)");
  char* pinned = ring.buffer + static_cast<size_t>(slot) * kSlotBytes;
  if (args_bytes > 0) std::memcpy(pinned, args, args_bytes);  // args may be null for a kernel without any
  std::memset(pinned + args_bytes, 0, bytes - args_bytes);
  cuda::check(api.cuMemcpyHtoDAsync(dst, pinned, bytes, stream), "cuMemcpyHtoDAsync(kernel arguments)");
  cuda::check(api.cuEventRecord(ring.events[slot], stream), "cuEventRecord(argument slot)");
}

// A loaded module and its task functions, kept while the kernel that owns the image lives.
struct LoadedModule {
  std::weak_ptr<const CudaCompiledKernel> kernel;
  int device_id = 0;
  cuda::CUmodule module = nullptr;
  std::vector<cuda::CUfunction> functions;  // one per task
};

std::mutex module_mutex;
std::map<std::pair<const void*, int>, LoadedModule> modules;

// Unloads modules of kernels that are gone; the context is synchronized first since a launch of
// theirs may still be running. Called with module_mutex held.
void unload_expired() {
  for (auto it = modules.begin(); it != modules.end();) {
    if (!it->second.kernel.expired()) {
      ++it;
      continue;
    }
    cuda::make_current(it->second.device_id);
    const cuda::DriverApi& api = cuda::driver();
    cuda::check(api.cuCtxSynchronize(), "cuCtxSynchronize");
    cuda::check(api.cuModuleUnload(it->second.module), "cuModuleUnload");
    it = modules.erase(it);
  }
}

LoadedModule load_module(const std::shared_ptr<const CudaCompiledKernel>& kernel, int device_id) {
  const cuda::DriverApi& api = cuda::driver();
  LoadedModule loaded{kernel, device_id, nullptr, {}};
  std::string ptx;  // PTX must be NUL-terminated text
  const void* image = kernel->image.data();
  if (kernel->is_ptx) {
    ptx.assign(kernel->image.begin(), kernel->image.end());
    image = ptx.c_str();
  }
  cuda::check(api.cuModuleLoadData(&loaded.module, image),
              "cuModuleLoadData(kernel '" + kernel->name + "', " + (kernel->is_ptx ? "PTX" : "CUBIN") + ")");
  for (const CudaTask& task : kernel->tasks) {
    cuda::CUfunction function = nullptr;
    cuda::CUresult result = api.cuModuleGetFunction(&function, loaded.module, task.function.c_str());
    if (result != cuda::kSuccess) {
      api.cuModuleUnload(loaded.module);
      cuda::check(result, "cuModuleGetFunction(kernel '" + kernel->name + "', task '" + task.function + "')");
    }
    loaded.functions.push_back(function);
  }
  return loaded;
}

const std::vector<cuda::CUfunction>& functions_of(const std::shared_ptr<const CudaCompiledKernel>& kernel,
                                                  int device_id) {
  std::lock_guard<std::mutex> lock(module_mutex);
  auto key = std::make_pair(static_cast<const void*>(kernel.get()), device_id);
  auto it = modules.find(key);
  if (it != modules.end() && it->second.kernel.lock() == kernel) return it->second.functions;
  unload_expired();  // also drops an entry whose address a new kernel now reuses
  return modules.insert_or_assign(key, load_module(kernel, device_id)).first->second.functions;
}

// Where each part of the launch buffer lives, in bytes from its start.
struct Layout {
  size_t error = 0;
  size_t flag = 0;
  size_t frame = 0;
  size_t total = 0;
};

Layout layout_for(int num_args, int64_t frame_bytes) {
  Layout layout;
  layout.error = static_cast<size_t>(num_args) * sizeof(QdArg);
  layout.flag = layout.error + sizeof(QdKernelError);
  layout.frame = (layout.flag + sizeof(int32_t) + 15) / 16 * 16;
  layout.total = layout.frame + static_cast<size_t>(frame_bytes);
  return layout;
}

// Frees the launch buffer in stream order however the launch ends.
struct LaunchBuffer {
  const cuda::Device& dev;
  CUstream stream;
  cuda::CUdeviceptr pointer;
  ~LaunchBuffer() {
    try {
      if (!dev.info.memory_pools) cuda::check(cuda::driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
      cuda::free_device(dev, pointer, stream);
    } catch (const std::exception&) {
      // A fault already reported by the launch leaves nothing more to say here.
    }
  }
};

}  // namespace

namespace {

std::string index_text(const int64_t* values, int n) {
  std::ostringstream out;
  out << "(";
  for (int d = 0; d < n; ++d) out << (d ? ", " : "") << values[d];
  out << (n == 1 ? ",)" : ")");
  return out.str();
}

// The texts of run_entry (src/runtime/launch.cpp), so CPU and CUDA kernels fail alike.
[[noreturn]] void raise_kernel_error(const CudaCompiledKernel& kernel, const QdKernelError& error,
                                     const QdArg* args, int num_args, const std::vector<std::string>& arg_names) {
  if (error.code == 2) {
    const std::vector<std::string>& messages = kernel.assert_messages;
    bool known = error.arg_index >= 0 && error.arg_index < static_cast<int>(messages.size());
    throw AssertionError("Kernel '" + kernel.name + "': assertion failed: " +
                         (known ? messages[error.arg_index] : std::string("(no message)")));
  }
  QD_ASSERT(error.arg_index >= 0 && error.arg_index < num_args && error.ndim >= 0 && error.ndim <= QD_MAX_NDIM,
            "launch_cuda(): malformed kernel error record");
  std::string name = error.arg_index < static_cast<int>(arg_names.size()) ? "'" + arg_names[error.arg_index] + "'"
                                                                          : "#" + std::to_string(error.arg_index);
  throw IndexError("Kernel '" + kernel.name + "': index " + index_text(error.index, error.ndim) +
                   " is out of bounds for " + name + " of shape " +
                   index_text(args[error.arg_index].shape, error.ndim) + " in dimension " +
                   std::to_string(error.dim) + ".");
}

void launch_task(const CudaCompiledKernel& kernel, size_t task, cuda::CUfunction function, int sm_count,
                 void** params, CUstream stream) {
  const CudaTask& spec = kernel.tasks[task];
  // Parallel tasks are grid-stride loops: a few blocks per SM keep every SM busy without
  // depending on the loop's extent, which only the device knows for some loops.
  unsigned block = spec.parallel ? static_cast<unsigned>(spec.block_dim > 0 ? spec.block_dim : 128) : 1;
  unsigned grid = spec.parallel ? static_cast<unsigned>(4 * sm_count) : 1;
  cuda::check(cuda::driver().cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr),
              "cuLaunchKernel(kernel '" + kernel.name + "', task '" + spec.function + "', " + std::to_string(grid) +
                  " blocks of " + std::to_string(block) + " threads)");
}

}  // namespace

std::optional<QdArg> launch_cuda(const std::shared_ptr<const CudaCompiledKernel>& kernel, const QdArg* args,
                                 int num_args, CUstream stream, int device_id,
                                 const std::vector<std::string>& arg_names) {
  QD_ASSERT(kernel != nullptr, "launch_cuda(): null kernel");
  QD_ASSERT(!kernel->returns || kernel->frame_bytes >= 8, "launch_cuda(): no frame room for the return value");
  const cuda::Device& dev = cuda::make_current(device_id);
  const std::vector<cuda::CUfunction>& functions = functions_of(kernel, device_id);
  Layout layout = layout_for(num_args, kernel->frame_bytes);
  LaunchBuffer buffer{dev, stream, cuda::allocate_device(dev, layout.total, stream)};
  const cuda::DriverApi& api = cuda::driver();
  // Arguments, a cleared error record and a zeroed frame, uploaded together when they fit a slot.
  size_t upload_bytes = layout.total <= kSlotBytes ? layout.total : layout.frame;
  upload_arguments(device_id, buffer.pointer, args, layout.error, upload_bytes, stream);
  if (upload_bytes < layout.total) {
    cuda::check(api.cuMemsetD8Async(buffer.pointer + layout.frame, 0, layout.total - layout.frame, stream),
                "cuMemsetD8Async(kernel frame)");
  }
  cuda::CUdeviceptr pointers[4] = {buffer.pointer, buffer.pointer + layout.frame, buffer.pointer + layout.error,
                                   buffer.pointer + layout.flag};
  void* params[4] = {&pointers[0], &pointers[1], &pointers[2], &pointers[3]};
  cuda::note_kernel_launch(kernel->name);
  for (size_t task = 0; task < functions.size(); ++task) {
    launch_task(*kernel, task, functions[task], dev.info.sm_count, params, stream);
  }
  if (!kernel->returns && !kernel->debug) return std::nullopt;
  // Error record, flag and the return value at frame offset 0 lie together; one copy reads them.
  size_t read_end = kernel->returns ? layout.frame + sizeof(QdArg::scalar) : layout.flag + sizeof(int32_t);
  std::vector<char> result(read_end - layout.error);
  cuda::check(api.cuMemcpyDtoHAsync(result.data(), buffer.pointer + layout.error, result.size(), stream),
              "cuMemcpyDtoHAsync(result of kernel '" + kernel->name + "')");
  cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(after kernel '" + kernel->name + "')");
  QdKernelError error;
  int32_t flag = 0;
  std::memcpy(&error, result.data(), sizeof(error));
  std::memcpy(&flag, result.data() + (layout.flag - layout.error), sizeof(flag));
  if (flag != 0) raise_kernel_error(*kernel, error, args, num_args, arg_names);
  if (!kernel->returns) return std::nullopt;
  QdArg value{};
  std::memcpy(&value.scalar, result.data() + (layout.frame - layout.error), sizeof(value.scalar));
  return value;
}

}  // namespace qd
