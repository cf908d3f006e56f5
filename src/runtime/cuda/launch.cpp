// src/runtime/cuda/launch.cpp: module loading (cached per kernel and device) and launching a kernel's tasks.
//
// Per launch, one device buffer holds [QdArg args | QdKernelError | error flag | pad | frame]: a slot
// of a per-device ring, filled from the slot's pinned twin with one asynchronous copy, so a launch
// neither allocates nor waits for the device unless the caller needs a result. The slot is free again
// once the event recorded after its last use has completed. A frame too large for a slot gets a
// buffer of its own, freed in stream order after the last task.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quadrants/cuda.h"
#include "quadrants/cuda_jit.h"
#include "quadrants/errors.h"
#include "runtime/cuda/graph.h"
#include "runtime/cuda/memory.h"
#include "runtime/kernel_error.h"
#include "runtime/kernel_profiler.h"
#include "runtime/launch.h"

namespace qd {
namespace {

constexpr int kSlots = 64;
// cuModuleLoadData results that mean the image does not suit this driver or GPU.
constexpr cuda::CUresult kNoBinaryForGpu = 209;
constexpr cuda::CUresult kInvalidPtx = 218;
constexpr cuda::CUresult kUnsupportedPtxVersion = 222;
// A slot holds the arguments a launch packs on its stack (kInlineKernelArgs QdArgs, 60 KB), the error record and
// flag, and a frame of up to 4 KB; a larger frame is cleared on the device instead, and more arguments go in a
// launch buffer of their own, uploaded from pageable memory (upload_large_arguments).
constexpr size_t kSlotBytes =
    (kInlineKernelArgs * sizeof(QdArg) + sizeof(QdKernelError) + 16 + 4096 + 4095) / 4096 * 4096;

// A ring of launch slots per device: slot i is kSlotBytes of pinned memory and as many of device
// memory, reusable once events[i] has completed.
struct SlotRing {
  std::mutex mutex;
  char* pinned = nullptr;
  cuda::CUdeviceptr device = 0;
  cuda::CUevent events[kSlots] = {};
  int next = 0;
};

SlotRing& slot_ring(int device_id) {
  static SlotRing rings[64];
  QD_ASSERT(device_id >= 0 && device_id < 64, "slot_ring(): more than 64 CUDA devices");
  return rings[device_id];
}

// The next slot of a device's ring, held (with the ring's lock) until the event recorded after its
// last use: a launch that fails midway records it too, since its earlier tasks may still read it.
class LaunchSlot {
 public:
  LaunchSlot(int device_id, CUstream stream) : ring_(slot_ring(device_id)), lock_(ring_.mutex), stream_(stream) {
    const cuda::DriverApi& api = cuda::driver();
    if (!ring_.pinned) {
      void* pinned = nullptr;
      cuda::check(api.cuMemAllocHost(&pinned, kSlots * kSlotBytes), "cuMemAllocHost(launch slots)");
      cuda::CUdeviceptr device = 0;
      cuda::CUresult result = api.cuMemAlloc(&device, kSlots * kSlotBytes);
      if (result != cuda::kSuccess) api.cuMemFreeHost(pinned);
      cuda::check(result, "cuMemAlloc(launch slots)");
      for (cuda::CUevent& event : ring_.events) {
        cuda::check(api.cuEventCreate(&event, cuda::kEventDisableTiming), "cuEventCreate");
      }
      ring_.pinned = static_cast<char*>(pinned);
      ring_.device = device;
    }
    slot_ = ring_.next;
    ring_.next = (ring_.next + 1) % kSlots;
    cuda::check(api.cuEventSynchronize(ring_.events[slot_]), "cuEventSynchronize(launch slot)");
  }
  ~LaunchSlot() { cuda::driver().cuEventRecord(ring_.events[slot_], stream_); }  // errors: the launch's own
  LaunchSlot(const LaunchSlot&) = delete;
  LaunchSlot& operator=(const LaunchSlot&) = delete;

  char* pinned() const { return ring_.pinned + static_cast<size_t>(slot_) * kSlotBytes; }
  cuda::CUdeviceptr device() const { return ring_.device + static_cast<size_t>(slot_) * kSlotBytes; }

 private:
  SlotRing& ring_;
  std::lock_guard<std::mutex> lock_;
  CUstream stream_;
  int slot_ = 0;
};

// Enqueues the copy of args_bytes of args followed by zeros, bytes in all, through the slot's pinned
// memory to dst (from pageable memory the driver could wait for the stream first).
void upload_arguments(const LaunchSlot& slot, cuda::CUdeviceptr dst, const void* args, size_t args_bytes,
                      size_t bytes, CUstream stream) {
  char* pinned = slot.pinned();
  if (args_bytes > 0) std::memcpy(pinned, args, args_bytes);  // args may be null for a kernel without any
  std::memset(pinned + args_bytes, 0, bytes - args_bytes);
  cuda::check(cuda::driver().cuMemcpyHtoDAsync(dst, pinned, bytes, stream), "cuMemcpyHtoDAsync(kernel arguments)");
}

// As upload_arguments, for more arguments than a slot holds: from a pageable copy, which the driver has taken by
// the time the call returns, so the copy may go when it does.
void upload_large_arguments(cuda::CUdeviceptr dst, const void* args, size_t args_bytes, size_t bytes,
                            CUstream stream) {
  std::vector<char> host(bytes, 0);
  std::memcpy(host.data(), args, args_bytes);
  cuda::check(cuda::driver().cuMemcpyHtoDAsync(dst, host.data(), bytes, stream), "cuMemcpyHtoDAsync(kernel arguments)");
}

using cuda::LoadedTask;
using Layout = cuda::LaunchLayout;

// A loaded module and its task functions, kept while the kernel that owns the image lives; for a graph=True
// kernel also its CUDA graph, built on its first launch (or the reason it launches task by task instead).
struct LoadedModule {
  std::weak_ptr<const CudaCompiledKernel> kernel;
  int device_id = 0;
  cuda::CUmodule module = nullptr;
  std::vector<LoadedTask> tasks;
  std::unique_ptr<cuda::KernelGraph> graph;
  bool graph_tried = false;
  std::string graph_unavailable;
};

// Parallel tasks are grid-stride loops, so any grid is correct; as many blocks as the SMs can hold
// at once (given the function's registers) keeps every SM full without depending on the loop's
// extent, which only the device knows for some loops.
LoadedTask plan_task(const CudaTask& task, cuda::CUfunction function, const cuda::Device& dev) {
  if (!task.parallel) return {function, 1, 1};
  unsigned block = static_cast<unsigned>(task.block_dim > 0 ? task.block_dim : 128);
  int per_sm = 0;
  cuda::check(cuda::driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function, static_cast<int>(block), 0),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor(task '" + task.function + "', " + std::to_string(block) +
                  " threads)");
  if (per_sm <= 0) {
    throw CudaError("Task '" + task.function + "' cannot run with blocks of " + std::to_string(block) +
                        " threads on CUDA device " + std::to_string(dev.info.index) +
                        " (too many registers per thread); choose a smaller qd.loop_config(block_dim=...).",
                    0);
  }
  return {function, static_cast<unsigned>(per_sm * dev.info.sm_count), block};
}

std::mutex module_mutex;
// Never destroyed: at exit the driver may be gone before a graph's destructor would call it.
std::map<std::pair<const void*, int>, LoadedModule>& modules = *new std::map<std::pair<const void*, int>, LoadedModule>;

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
    it->second.graph.reset();  // its nodes call the module's functions
    cuda::check(api.cuModuleUnload(it->second.module), "cuModuleUnload");
    it = modules.erase(it);
  }
}

LoadedModule load_module(const std::shared_ptr<const CudaCompiledKernel>& kernel, int device_id) {
  const cuda::DriverApi& api = cuda::driver();
  // Current again: unloading expired modules may have switched to another device's context.
  const cuda::Device& dev = cuda::make_current(device_id);
  LoadedModule loaded{kernel, device_id, nullptr, {}, nullptr, false, {}};
  std::string ptx;  // PTX must be NUL-terminated text
  const void* image = kernel->image.data();
  if (kernel->is_ptx) {
    ptx.assign(kernel->image.begin(), kernel->image.end());
    image = ptx.c_str();
  }
  cuda::CUresult result = api.cuModuleLoadData(&loaded.module, image);
  std::string what = "cuModuleLoadData(kernel '" + kernel->name + "', " + (kernel->is_ptx ? "PTX" : "CUBIN") + ")";
  if (result == kUnsupportedPtxVersion || result == kNoBinaryForGpu || result == kInvalidPtx) {
    // Most often NVRTC belongs to a newer CUDA than the driver: its images need a newer driver.
    int version = 0;
    api.cuDriverGetVersion(&version);
    what += " with a driver for CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) +
            " (NVRTC must not be newer than the driver: install the matching one, e.g. `pip install "
            "nvidia-cuda-nvrtc-cu" + std::to_string(version / 1000) + "`, or set QD_NVRTC_PATH)";
  }
  cuda::check(result, what);
  for (const CudaTask& task : kernel->tasks) {
    cuda::CUfunction function = nullptr;
    cuda::CUresult result = api.cuModuleGetFunction(&function, loaded.module, task.function.c_str());
    if (result != cuda::kSuccess) {
      api.cuModuleUnload(loaded.module);
      cuda::check(result, "cuModuleGetFunction(kernel '" + kernel->name + "', task '" + task.function + "')");
    }
    try {
      loaded.tasks.push_back(plan_task(task, function, dev));
    } catch (...) {
      api.cuModuleUnload(loaded.module);
      throw;
    }
  }
  return loaded;
}

LoadedModule& module_of(const std::shared_ptr<const CudaCompiledKernel>& kernel, int device_id) {
  std::lock_guard<std::mutex> lock(module_mutex);
  auto key = std::make_pair(static_cast<const void*>(kernel.get()), device_id);
  auto it = modules.find(key);
  if (it != modules.end() && it->second.kernel.lock() == kernel) return it->second;
  unload_expired();  // also drops an entry whose address a new kernel now reuses
  return modules.insert_or_assign(key, load_module(kernel, device_id)).first->second;
}

Layout layout_for(int num_args, int64_t frame_bytes) {
  Layout layout;
  layout.error = static_cast<size_t>(num_args) * sizeof(QdArg);
  layout.flag = layout.error + sizeof(QdKernelError);
  layout.frame = (layout.flag + sizeof(int32_t) + 15) / 16 * 16;
  layout.total = layout.frame + static_cast<size_t>(frame_bytes);
  return layout;
}

// The launch buffer of a launch whose frame does not fit a slot, freed in stream order however the
// launch ends; none (pointer 0) otherwise.
struct LaunchBuffer {
  const cuda::Device& dev;
  CUstream stream;
  cuda::CUdeviceptr pointer;
  ~LaunchBuffer() {
    if (!pointer) return;
    try {
      if (!dev.info.memory_pools) cuda::check(cuda::driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
      cuda::free_device(dev, pointer, stream);
    } catch (const std::exception&) {
      // A fault already reported by the launch leaves nothing more to say here.
    }
  }
};

void launch_task(const CudaCompiledKernel& kernel, size_t task, const LoadedTask& loaded, void** params,
                 CUstream stream) {
  cuda::CUresult result =
      cuda::driver().cuLaunchKernel(loaded.function, loaded.grid, 1, 1, loaded.block, 1, 1, 0, stream, params, nullptr);
  if (result == cuda::kSuccess) return;  // the message is built only for a failure: launches are hot
  cuda::check(result, "cuLaunchKernel(kernel '" + kernel.name + "', task '" + kernel.tasks[task].function + "', " +
                          std::to_string(loaded.grid) + " blocks of " + std::to_string(loaded.block) + " threads)");
}

// What a qd.graph.do_while loop reads on the host after its last task: the condition arrays (in the
// arguments) and, where the launch has them, the frame's returned flag and the debug error flag (0: none).
struct LoopReadback {
  const QdArg* args;
  cuda::CUdeviceptr returned_flag;
  cuda::CUdeviceptr error_flag;
};

// Whether the loop goes back to its first task: its condition is nonzero, and no task ran a `return` or
// failed a debug check (those skip the statements that would end the loop). The host waits for the stream:
// the condition is device memory the iteration's tasks just wrote.
bool repeats(const CudaCompiledKernel& kernel, const CudaLoopEnd& end, const LoopReadback& readback,
             CUstream stream) {
  const cuda::DriverApi& api = cuda::driver();
  int32_t values[3] = {0, 0, 0};
  const auto cond = reinterpret_cast<cuda::CUdeviceptr>(readback.args[end.cond_param].data);
  std::string what = "cuMemcpyDtoHAsync(qd.graph.do_while condition of kernel '" + kernel.name + "')";
  cuda::check(api.cuMemcpyDtoHAsync(&values[0], cond, sizeof(int32_t), stream), what);
  if (readback.returned_flag) {
    cuda::check(api.cuMemcpyDtoHAsync(&values[1], readback.returned_flag, sizeof(int32_t), stream), what);
  }
  if (readback.error_flag) {
    cuda::check(api.cuMemcpyDtoHAsync(&values[2], readback.error_flag, sizeof(int32_t), stream), what);
  }
  cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(qd.graph.do_while of kernel '" + kernel.name + "')");
  return values[0] != 0 && values[1] == 0 && values[2] == 0;
}

// Runs the tasks in order; after a task that ends qd.graph.do_while loops, the innermost one that repeats
// sends the launch back to its first task (an enclosing loop ending there is asked only once it is done).
void run_tasks(const CudaCompiledKernel& kernel, const std::vector<LoadedTask>& tasks, void** params,
               CUstream stream, const LoopReadback& readback) {
  size_t task = 0;
  while (task < tasks.size()) {
    launch_task(kernel, task, tasks[task], params, stream);
    size_t next = task + 1;
    for (const CudaLoopEnd& end : kernel.tasks[task].loop_ends) {
      if (!repeats(kernel, end, readback, stream)) continue;
      next = static_cast<size_t>(end.first_task);
      break;
    }
    task = next;
  }
}

// Enqueues the kernel's tasks on the stream, after the copies into qd arrays (enqueued on the legacy
// default stream) and before later copies, host reads and DLPack consumers, which order themselves
// after the legacy default stream (include/quadrants/cuda.h), all without blocking the host (except where
// a qd.graph.do_while reads its condition back).
template <typename Run>
void run_profiled(const CudaCompiledKernel& kernel, CUstream stream, Run run) {
  if (!kernel_profiling()) {
    run();
  } else {
    // The profiler times the kernel alone: earlier work on the stream finishes first, then the host
    // waits for this kernel (as upstream's profiler does, launches are synchronous while it is on).
    const cuda::DriverApi& api = cuda::driver();
    cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(before profiling '" + kernel.name + "')");
    auto start = std::chrono::steady_clock::now();
    run();
    cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(after kernel '" + kernel.name + "')");
    record_kernel_time(kernel.name,
                       std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  // Named only once enqueued: a fault that an earlier kernel left surfaces at these calls.
  cuda::note_kernel_launch(kernel.name);
}

void launch_tasks(const CudaCompiledKernel& kernel, const std::vector<LoadedTask>& tasks, void** params,
                  CUstream stream, int device_id, const LoopReadback& readback) {
  if (stream != nullptr) make_stream_wait(stream, nullptr, device_id);
  run_profiled(kernel, stream, [&] { run_tasks(kernel, tasks, params, stream, readback); });
  if (stream != nullptr) make_stream_wait(nullptr, stream, device_id);
}

// The bytes a launch reads back from its buffer: error record and flag, then the returned values at the frame's
// start, which lie together so that one copy reads them.
size_t result_bytes(const CudaCompiledKernel& kernel, const Layout& layout) {
  const size_t returned = kernel.returns.size();
  size_t read_end = returned ? layout.frame + returned * sizeof(QdArg::scalar) : layout.flag + sizeof(int32_t);
  return read_end - layout.error;
}

// Raises the launch's kernel error, if any; else its returned values.
std::vector<QdArg> finish_launch(const CudaCompiledKernel& kernel, const std::vector<char>& result,
                                 const Layout& layout, const QdArg* args, int num_args,
                                 const std::vector<std::string>& arg_names) {
  QdKernelError error;
  int32_t flag = 0;
  std::memcpy(&error, result.data(), sizeof(error));
  std::memcpy(&flag, result.data() + (layout.flag - layout.error), sizeof(flag));
  if (flag != 0) raise_kernel_error(kernel.name, error, args, num_args, arg_names, &kernel.assert_messages);
  std::vector<QdArg> values(kernel.returns.size());
  for (size_t k = 0; k < values.size(); ++k) {
    std::memcpy(&values[k].scalar, result.data() + (layout.frame - layout.error) + k * sizeof(QdArg::scalar),
                sizeof(QdArg::scalar));
  }
  return values;
}

// Why the last graph=True launch ran task by task ("" when it replayed its graph), for cuda_graph_fallback_reason().
std::mutex last_fallback_mutex;
std::string last_fallback;

void note_fallback(const std::string& why) {
  std::lock_guard<std::mutex> lock(last_fallback_mutex);
  if (last_fallback != why) last_fallback = why;
}

// graph=True: the module's graph, built on the kernel's first launch on the device; null where the kernel
// launches task by task (no graph entry points, or do_while loops without conditional nodes).
cuda::KernelGraph* graph_of(LoadedModule& loaded, const CudaCompiledKernel& kernel, const cuda::Device& dev,
                            int num_args) {
  std::lock_guard<std::mutex> lock(module_mutex);
  if (loaded.graph_tried) return loaded.graph.get();
  loaded.graph_tried = true;
  if (!cuda::graphs_available()) {
    loaded.graph_unavailable = "the driver lacks the CUDA graph entry points";
    return nullptr;
  }
  Layout layout = layout_for(num_args, kernel.frame_bytes);
  if (layout.frame > kSlotBytes) {  // every replay refills the graph's buffer through a slot
    loaded.graph_unavailable = "the kernel has more arguments (" + std::to_string(num_args) + ") than a launch " +
                               "slot holds (" + std::to_string(kInlineKernelArgs) + ")";
    return nullptr;
  }
  loaded.graph = cuda::KernelGraph::build(kernel, loaded.tasks, dev, layout, &loaded.graph_unavailable);
  return loaded.graph.get();
}

// One replay of a kernel's graph: the arguments, a cleared error record and a zeroed frame go into the graph's
// own buffer, then cuGraphLaunch, then (when the kernel returns values or checks errors) the read back; all
// enqueued under one lock, since every launch of the graph refills the same buffer.
std::vector<QdArg> launch_graph(const CudaCompiledKernel& kernel, const cuda::KernelGraph& graph, const QdArg* args,
                                int num_args, CUstream stream, int device_id,
                                const std::vector<std::string>& arg_names) {
  static std::mutex graph_buffers;
  const Layout& layout = graph.layout();
  const cuda::DriverApi& api = cuda::driver();
  const bool fits = layout.total <= kSlotBytes;
  const bool reads = !kernel.returns.empty() || kernel.debug;
  std::vector<char> result(reads ? result_bytes(kernel, layout) : 0);
  std::optional<LaunchSlot> slot(std::in_place, device_id, stream);
  {
    std::lock_guard<std::mutex> lock(graph_buffers);
    if (stream != nullptr) make_stream_wait(stream, nullptr, device_id);
    upload_arguments(*slot, graph.buffer(), args, layout.error, fits ? layout.total : layout.frame, stream);
    if (!fits) {
      cuda::check(api.cuMemsetD8Async(graph.buffer() + layout.frame, 0, layout.total - layout.frame, stream),
                  "cuMemsetD8Async(kernel frame)");
    }
    run_profiled(kernel, stream, [&] { graph.launch(stream, kernel.name); });
    if (reads) {
      cuda::check(api.cuMemcpyDtoHAsync(result.data(), graph.buffer() + layout.error, result.size(), stream),
                  "cuMemcpyDtoHAsync(result of kernel '" + kernel.name + "')");
    }
    if (stream != nullptr) make_stream_wait(nullptr, stream, device_id);
  }
  cuda::note_graph_launch(graph.num_nodes());
  if (!reads) return {};
  slot.reset();
  cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(after kernel '" + kernel.name + "')");
  return finish_launch(kernel, result, layout, args, num_args, arg_names);
}

// A device's error record and flag for launches that never read them, allocated on first use; later
// launches read it without a lock (it is on every by-value launch's path).
cuda::CUdeviceptr error_scratch(const cuda::Device& dev) {
  static std::atomic<cuda::CUdeviceptr> scratch[64];
  QD_ASSERT(dev.info.index >= 0 && dev.info.index < 64, "error_scratch(): more than 64 CUDA devices");
  std::atomic<cuda::CUdeviceptr>& mine = scratch[dev.info.index];
  if (cuda::CUdeviceptr ready = mine.load(std::memory_order_acquire)) return ready;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!mine.load(std::memory_order_relaxed)) {
    cuda::CUdeviceptr made = 0;
    cuda::check(cuda::driver().cuMemAlloc(&made, sizeof(QdKernelError) + 16), "cuMemAlloc(error scratch)");
    mine.store(made, std::memory_order_release);
  }
  return mine.load(std::memory_order_relaxed);
}

}  // namespace

std::vector<QdArg> launch_cuda(const std::shared_ptr<const CudaCompiledKernel>& kernel, const QdArg* args,
                               int num_args, CUstream stream, int device_id,
                               const std::vector<std::string>& arg_names) {
  QD_ASSERT(kernel != nullptr, "launch_cuda(): null kernel");
  const size_t returned = kernel->returns.size();
  QD_ASSERT(kernel->frame_bytes >= static_cast<int64_t>(8 * returned),
            "launch_cuda(): no frame room for the returned values");
  for (const auto& [param, dim] : kernel->i32_extents) {
    if (args[param].shape[dim] <= INT32_MAX) continue;
    QdKernelError error{3, param, 1, dim, {args[param].shape[dim]}};
    raise_kernel_error(kernel->name, error, args, num_args, arg_names, &kernel->assert_messages);
  }
  const cuda::Device& dev = cuda::make_current(device_id);
  LoadedModule& loaded = module_of(kernel, device_id);
  if (kernel->graph) {
    QD_ASSERT(!kernel->args_by_value && num_args == kernel->num_params, "launch_cuda(): a graph kernel's arguments");
    if (const cuda::KernelGraph* graph = graph_of(loaded, *kernel, dev, num_args)) {
      note_fallback("");
      return launch_graph(*kernel, *graph, args, num_args, stream, device_id, arg_names);
    }
  }
  if (kernel->graph) note_fallback(loaded.graph_unavailable);
  cuda::note_graph_launch(0);
  const std::vector<LoadedTask>& tasks = loaded.tasks;
  QD_ASSERT(!kernel->args_by_value || num_args == kernel->num_params, "launch_cuda(): argument count mismatch");
  // Tasks that take their arguments by value, in release mode, with no frame, need no launch buffer:
  // nothing is uploaded and their error pointers go to a scratch record that nobody reads.
  if (kernel->args_by_value && kernel->frame_bytes == 0 && !kernel->debug) {
    cuda::CUdeviceptr scratch = error_scratch(dev);
    cuda::CUdeviceptr pointers[3] = {scratch, scratch, scratch + sizeof(QdKernelError)};
    void* params[4] = {const_cast<QdArg*>(args), &pointers[0], &pointers[1], &pointers[2]};
    launch_tasks(*kernel, tasks, params, stream, device_id, {args, 0, 0});  // no frame, no return, no checks
    return {};
  }
  Layout layout = layout_for(kernel->args_by_value ? 0 : num_args, kernel->frame_bytes);
  bool fits = layout.total <= kSlotBytes;
  std::optional<LaunchSlot> slot(std::in_place, device_id, stream);
  LaunchBuffer own{dev, stream, fits ? 0 : cuda::allocate_device(dev, layout.total, stream)};
  const cuda::CUdeviceptr base = fits ? slot->device() : own.pointer;
  const cuda::DriverApi& api = cuda::driver();
  // Arguments, a cleared error record and a zeroed frame, uploaded together when they fit a slot.
  size_t upload_bytes = fits ? layout.total : layout.frame;
  if (upload_bytes <= kSlotBytes) {
    upload_arguments(*slot, base, args, layout.error, upload_bytes, stream);
  } else {
    upload_large_arguments(base, args, layout.error, upload_bytes, stream);
  }
  if (!fits) {
    cuda::check(api.cuMemsetD8Async(base + layout.frame, 0, layout.total - layout.frame, stream),
                "cuMemsetD8Async(kernel frame)");
  }
  cuda::CUdeviceptr pointers[4] = {base, base + layout.frame, base + layout.error, base + layout.flag};
  void* params[4] = {kernel->args_by_value ? const_cast<QdArg*>(args) : static_cast<void*>(&pointers[0]),
                     &pointers[1], &pointers[2], &pointers[3]};
  // The frame's returned flag (cuda_renderer.cpp) exists where the frame reaches past it.
  const int64_t returned_flag = 8 * std::max<int64_t>(1, static_cast<int64_t>(returned));
  LoopReadback readback{args, kernel->frame_bytes >= returned_flag + 4 ? base + layout.frame + returned_flag : 0,
                        kernel->debug ? base + layout.flag : 0};
  launch_tasks(*kernel, tasks, params, stream, device_id, readback);
  if (returned == 0 && !kernel->debug) return {};
  std::vector<char> result(result_bytes(*kernel, layout));
  cuda::check(api.cuMemcpyDtoHAsync(result.data(), base + layout.error, result.size(), stream),
              "cuMemcpyDtoHAsync(result of kernel '" + kernel->name + "')");
  slot.reset();  // its last use is enqueued: other launches may go on while this one is waited for
  cuda::check(api.cuStreamSynchronize(stream), "cuStreamSynchronize(after kernel '" + kernel->name + "')");
  return finish_launch(*kernel, result, layout, args, num_args, arg_names);
}

void cuda_graph_cache_clear() {
  std::lock_guard<std::mutex> lock(module_mutex);
  for (auto& [key, loaded] : modules) {
    loaded.graph_tried = false;
    loaded.graph_unavailable.clear();
    if (!loaded.graph) continue;
    cuda::make_current(loaded.device_id);
    cuda::check(cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize");
    loaded.graph.reset();
  }
  cuda::reset_graph_counters();
}

CudaGraphCounters cuda_graph_counters() {
  int cached = 0;
  {
    std::lock_guard<std::mutex> lock(module_mutex);
    for (const auto& entry : modules) cached += entry.second.graph && !entry.second.kernel.expired();
  }
  return {cuda::graph_nodes_on_last_call(), cuda::graph_used_on_last_call(), cuda::graph_total_builds(), cached};
}

std::string cuda_graph_fallback_reason() {
  std::lock_guard<std::mutex> lock(last_fallback_mutex);
  return last_fallback;
}
}  // namespace qd
