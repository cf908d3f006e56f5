// tests/cuda_emulator/emulated_driver.cpp: a CPU stand-in for libcuda.so.1, so the CUDA backend runs end to end without a GPU.
//
// Loaded through QD_CUDA_DRIVER_PATH. It implements the driver entry points quadrants uses, strictly:
// - "Device" memory is host memory mapped PROT_NONE except while the driver itself copies, sets or
//   runs a kernel, so host code that dereferences a device pointer faults at once, with a message.
// - Copies check their direction: a device address where host memory belongs (or the reverse) is
//   CUDA_ERROR_INVALID_VALUE, as are ranges that overrun an allocation.
// - Every call that needs a context fails with CUDA_ERROR_INVALID_CONTEXT on a thread without one.
// - Modules are host shared objects that the emulated NVRTC (emulated_nvrtc.cpp) wraps in an image;
//   a launch calls the task once per (block, thread), in order, with blockIdx/threadIdx set; a module
//   that uses block or warp intrinsics has each block's threads run as fibers instead
//   (emulated_simt.cpp), which also checks that the intrinsics are used as CUDA requires.
// - A fault inside a kernel becomes the sticky CUDA_ERROR_ILLEGAL_ADDRESS, reported by later calls.
// - Graphs (emulated_graph.cpp) run their nodes in dependency order at cuGraphLaunch, conditional WHILE nodes
//   included, whose condition the module's cudaGraphSetConditional sets (relocatable code the emulated linker
//   has bound to an emulated libcudadevrt).
// What it cannot show: concurrency between streams (everything completes before the call returns),
// host access to pinned memory races, and anything about real GPU code generation (NVRTC checks that).
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "emulated_driver.h"
#include "emulated_image.h"
#include "emulated_simt.h"

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kLaunchOutOfResources = 701;
constexpr CUresult kLaunchFailed = 719;

struct Context {
  int device = 0;
};
Context primary_context;
thread_local Context* current_context = nullptr;

struct Module {
  void* library = nullptr;
  EmulatedDim3* thread_idx = nullptr;
  EmulatedDim3* block_idx = nullptr;
  EmulatedDim3* block_dim = nullptr;
  EmulatedDim3* grid_dim = nullptr;
  bool uses_simt = false;  // blocks run as fibers (emulated_simt.cpp)
  std::map<std::string, void*> functions;
};

struct Function {
  Module* module;
  EmulatedTask task;
  bool args_by_value;  // its first parameter is the launch's QdArgs (by reference here), not a device pointer
};

// One lock for the whole driver: device memory is opened for the duration of a call, and launches
// set the modules' index globals.
std::recursive_mutex driver_mutex;
bool initialized = false;
CUresult sticky_error = kSuccess;
std::map<uintptr_t, size_t> device_allocations;  // start -> requested bytes
std::map<uintptr_t, size_t> mapped_bytes;         // start -> bytes mapped (whole pages)
std::set<uintptr_t> pinned_allocations;
std::set<Module*> modules;
std::set<Function*> functions;
std::set<uintptr_t> events;
std::set<uintptr_t> streams;  // made by cuStreamCreate, until cuStreamDestroy

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// ---- device memory protection ----

void protect_all(int protection) {
  for (const auto& [start, bytes] : mapped_bytes) mprotect(reinterpret_cast<void*>(start), bytes, protection);
}

// Device memory is readable and writable only while one of these is alive.
struct DeviceAccess {
  DeviceAccess() { protect_all(PROT_READ | PROT_WRITE); }
  ~DeviceAccess() { protect_all(PROT_NONE); }
};

// The allocation holding [address, address + bytes), or none.
bool in_device_memory(uintptr_t address, size_t bytes) {
  auto it = device_allocations.upper_bound(address);
  if (it == device_allocations.begin()) return false;
  --it;
  return address >= it->first && address + bytes <= it->first + std::max<size_t>(it->second, 1) &&
         address + bytes >= address;
}

bool touches_device_memory(uintptr_t address, size_t bytes) {
  auto it = device_allocations.upper_bound(address + (bytes ? bytes - 1 : 0));
  if (it == device_allocations.begin()) return false;
  --it;
  return it->first + mapped_bytes[it->first] > address;
}

// ---- faults: inside a launch they end the launch; elsewhere a device address gets named ----

sigjmp_buf* launch_jump = nullptr;
struct sigaction previous_segv, previous_bus;

void on_fault(int signal, siginfo_t* info, void* context) {
  if (launch_jump) siglongjmp(*launch_jump, 1);
  uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (touches_device_memory(address, 1)) {
    char text[160];
    int n = snprintf(text, sizeof text,
                     "emulated CUDA driver: host code touched device memory at %p outside any driver call\n",
                     info->si_addr);
    if (n > 0) (void)!write(2, text, static_cast<size_t>(n));
  }
  // Hand the fault to whoever handled it before us (Python's faulthandler, or the default action).
  const struct sigaction& previous = signal == SIGSEGV ? previous_segv : previous_bus;
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else {
    sigaction(signal, &previous, nullptr);  // returning re-runs the faulting access under it
  }
}

void install_fault_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_segv);
  sigaction(SIGBUS, &action, &previous_bus);
}

// ---- common checks ----

// Every entry point that works on the context starts here.
CUresult ready() {
  if (!initialized) return kNotInitialized;
  if (sticky_error != kSuccess) return sticky_error;
  if (!current_context) return kInvalidContext;
  return kSuccess;
}

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::atoi(text) : fallback;
}

CUresult allocate(CUdeviceptr* pointer, size_t bytes) {
  if (!pointer || bytes == 0) return kInvalidValue;
  size_t mapped = (bytes + page_size() - 1) / page_size() * page_size();
  void* memory = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return kOutOfMemory;
  uintptr_t start = reinterpret_cast<uintptr_t>(memory);
  device_allocations[start] = bytes;
  mapped_bytes[start] = mapped;
  *pointer = start;
  return kSuccess;
}

CUresult release(CUdeviceptr pointer) {
  auto it = mapped_bytes.find(pointer);
  if (it == mapped_bytes.end()) return kInvalidValue;
  munmap(reinterpret_cast<void*>(pointer), it->second);
  mapped_bytes.erase(it);
  device_allocations.erase(pointer);
  return kSuccess;
}

CUresult copy(void* dst, const void* src, size_t bytes) {
  DeviceAccess access;
  std::memmove(dst, src, bytes);
  return kSuccess;
}

bool host_side(const void* pointer, size_t bytes) {
  return pointer && !touches_device_memory(reinterpret_cast<uintptr_t>(pointer), bytes);
}

// One block of a module that uses block or warp intrinsics; a misuse of them ends the launch with the
// sticky CUDA_ERROR_LAUNCH_FAILED and a message naming the block.
void run_simt_block(Function& function, const unsigned block[3], void* const pointers[4]) {
  Module& module = *function.module;
  EmulatedSimtLaunch launch{module.thread_idx, {block[0], block[1], block[2]}, function.task,
                            {pointers[0], pointers[1], pointers[2], pointers[3]}};
  std::string error;
  if (emulated_run_simt_block(launch, &error)) return;
  const EmulatedDim3& b = *module.block_idx;
  std::fprintf(stderr, "emulated CUDA driver: block (%u, %u, %u) of a kernel failed: %s\n", b.x, b.y, b.z,
               error.c_str());
  sticky_error = kLaunchFailed;
}

CUresult run_launch(Function& function, const unsigned grid[3], const unsigned block[3], void** params) {
  Module& module = *function.module;
  void* pointers[4];
  for (int i = 0; i < 4; ++i) {
    if (i == 0 && function.args_by_value) {  // the parameter's bytes, which a GPU copies at the launch
      pointers[0] = params[0];
      continue;
    }
    CUdeviceptr value = *static_cast<CUdeviceptr*>(params[i]);
    // Task arguments are device pointers, possibly one past the end (an empty frame).
    if (value != 0 && !in_device_memory(value, 0)) return kInvalidValue;
    pointers[i] = reinterpret_cast<void*>(value);
  }
  *module.grid_dim = {grid[0], grid[1], grid[2]};
  *module.block_dim = {block[0], block[1], block[2]};
  DeviceAccess access;
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    launch_jump = nullptr;
    emulated_simt_reset();
    sticky_error = kIllegalAddress;
    return kSuccess;  // like the hardware, the fault surfaces at the next call
  }
  launch_jump = &jump;
  // A failed simt block sets the sticky error, which ends the launch (ready() held at its start).
  for (unsigned bz = 0; bz < grid[2] && sticky_error == kSuccess; ++bz)
    for (unsigned by = 0; by < grid[1] && sticky_error == kSuccess; ++by)
      for (unsigned bx = 0; bx < grid[0] && sticky_error == kSuccess; ++bx) {
        *module.block_idx = {bx, by, bz};
        if (module.uses_simt) {
          run_simt_block(function, block, pointers);
          continue;
        }
        for (unsigned tz = 0; tz < block[2]; ++tz)
          for (unsigned ty = 0; ty < block[1]; ++ty)
            for (unsigned tx = 0; tx < block[0]; ++tx) {
              *module.thread_idx = {tx, ty, tz};
              function.task(pointers[0], pointers[1], pointers[2], pointers[3]);
            }
      }
  launch_jump = nullptr;
  return kSuccess;
}

CUresult load_module(Module** out, const void* image) {
  if (!out || !image) return kInvalidValue;
  EmulatedImageHeader header;
  std::memcpy(&header, image, sizeof header);
  // Relocatable code still calls libcudadevrt: only the linker's output loads (as unresolved externs fail).
  if (std::memcmp(header.magic, kEmulatedImageMagic, sizeof header.magic) != 0) return kInvalidImage;
  char path[] = "/tmp/qd-emulated-module-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return kOutOfMemory;
  const char* bytes = static_cast<const char*>(image) + sizeof header;
  bool written = write(fd, bytes, header.library_bytes) == static_cast<ssize_t>(header.library_bytes);
  close(fd);
  void* library = written ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  unlink(path);  // the mapping stays valid after the name is gone
  if (!library) return kInvalidImage;
  auto* module = new Module;
  module->library = library;
  module->thread_idx = static_cast<EmulatedDim3*>(dlsym(library, "threadIdx"));
  module->block_idx = static_cast<EmulatedDim3*>(dlsym(library, "blockIdx"));
  module->block_dim = static_cast<EmulatedDim3*>(dlsym(library, "blockDim"));
  module->grid_dim = static_cast<EmulatedDim3*>(dlsym(library, "gridDim"));
  // Images from before block intrinsics were emulated have neither symbol, and use none of them.
  auto* set_conditional = static_cast<EmulatedSetConditional*>(dlsym(library, "qd_emulated_set_conditional"));
  if (set_conditional) *set_conditional = &emulated_set_conditional;
  auto* simt_call = static_cast<EmulatedSimtCall*>(dlsym(library, "qd_emulated_simt"));
  auto* uses_simt = static_cast<int*>(dlsym(library, "qd_emulated_uses_simt"));
  if (simt_call) *simt_call = &emulated_simt_call;
  module->uses_simt = simt_call && uses_simt && *uses_simt;
  if (!module->thread_idx || !module->block_idx || !module->block_dim || !module->grid_dim) {
    dlclose(library);
    delete module;
    return kInvalidImage;
  }
  modules.insert(module);
  *out = module;
  return kSuccess;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (flags != 0) return kInvalidValue;
  if (!initialized) install_fault_handler();
  initialized = true;
  return kSuccess;
}

// QD_EMULATED_DRIVER_VERSION (12080, CUDA 12.8, by default) lets tests take paths for older drivers.
CUresult cuDriverGetVersion(int* version) {
  if (!version) return kInvalidValue;
  *version = env_int("QD_EMULATED_DRIVER_VERSION", 12080);
  return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  if (!initialized) return kNotInitialized;
  if (!count) return kInvalidValue;
  *count = 1;
  return kSuccess;
}

CUresult cuDeviceGet(int* device, int ordinal) {
  if (!initialized) return kNotInitialized;
  if (!device) return kInvalidValue;
  if (ordinal != 0) return kInvalidDevice;
  *device = 0;
  return kSuccess;
}

// QD_EMULATED_CC ("90" by default) and QD_EMULATED_MEMORY_POOLS ("1") let tests take the PTX
// fallback and the cuMemAlloc path.
CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  if (!initialized) return kNotInitialized;
  if (!value) return kInvalidValue;
  if (device != 0) return kInvalidDevice;
  int cc = env_int("QD_EMULATED_CC", 90);
  switch (attribute) {
    case 13: *value = 1980000; return kSuccess;  // clock rate in kHz (an H100's 1.98 GHz)
    case 16: *value = 2; return kSuccess;  // multiprocessors
    case 75: *value = cc / 10; return kSuccess;
    case 76: *value = cc % 10; return kSuccess;
    case 115: *value = env_int("QD_EMULATED_MEMORY_POOLS", 1); return kSuccess;
    default: return kInvalidValue;
  }
}

CUresult cuDevicePrimaryCtxRetain(Context** context, int device) {
  if (!initialized) return kNotInitialized;
  if (!context) return kInvalidValue;
  if (device != 0) return kInvalidDevice;
  *context = &primary_context;
  return kSuccess;
}

CUresult cuCtxSetCurrent(Context* context) {
  if (!initialized) return kNotInitialized;
  if (context && context != &primary_context) return kInvalidContext;
  current_context = context;
  return kSuccess;
}

CUresult cuCtxGetCurrent(Context** context) {
  if (!initialized) return kNotInitialized;
  if (!context) return kInvalidValue;
  *context = current_context;
  return kSuccess;
}

// Recorded only: emulated threads run on host stacks. Real drivers accept sizes up to about 512 KB per thread.
static size_t stack_limit = 1024;

CUresult cuCtxSetLimit(int limit, size_t value) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (limit != 0 || value > (size_t{512} << 10)) return kInvalidValue;
  stack_limit = value;
  return kSuccess;
}

CUresult cuCtxGetLimit(size_t* value, int limit) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (limit != 0 || !value) return kInvalidValue;
  *value = stack_limit;
  return kSuccess;
}

CUresult cuCtxSynchronize() {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  return ready();
}

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  return allocate(pointer, bytes);
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  return release(pointer);
}

CUresult cuMemAllocAsync(CUdeviceptr* pointer, size_t bytes, void*) { return cuMemAlloc_v2(pointer, bytes); }
CUresult cuMemFreeAsync(CUdeviceptr pointer, void*) { return cuMemFree_v2(pointer); }

CUresult cuMemAllocHost_v2(void** pointer, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!pointer || bytes == 0) return kInvalidValue;
  *pointer = std::calloc(bytes, 1);
  if (!*pointer) return kOutOfMemory;
  pinned_allocations.insert(reinterpret_cast<uintptr_t>(*pointer));
  return kSuccess;
}

CUresult cuMemFreeHost(void* pointer) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (pinned_allocations.erase(reinterpret_cast<uintptr_t>(pointer)) == 0) return kInvalidValue;
  std::free(pointer);
  return kSuccess;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, void*) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (bytes == 0) return kSuccess;
  if (!in_device_memory(dst, bytes) || !host_side(src, bytes)) return kInvalidValue;
  return copy(reinterpret_cast<void*>(dst), src, bytes);
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, void*) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (bytes == 0) return kSuccess;
  if (!in_device_memory(src, bytes) || !host_side(dst, bytes)) return kInvalidValue;
  return copy(dst, reinterpret_cast<const void*>(src), bytes);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void*) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (bytes == 0) return kSuccess;
  if (!in_device_memory(dst, bytes) || !in_device_memory(src, bytes)) return kInvalidValue;
  return copy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, void*) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (count == 0) return kSuccess;
  if (!in_device_memory(dst, count)) return kInvalidValue;
  DeviceAccess access;
  std::memset(reinterpret_cast<void*>(dst), value, count);
  return kSuccess;
}

// Streams are opaque: every operation has completed when its call returns. Created streams are tracked so that
// destroying one twice, or one never created, is the driver's error it is.
CUresult cuStreamCreate(void** stream, unsigned flags) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!stream || flags > 1) return kInvalidValue;  // CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING
  *stream = std::malloc(1);
  streams.insert(reinterpret_cast<uintptr_t>(*stream));
  return kSuccess;
}

CUresult cuStreamDestroy_v2(void* stream) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (streams.erase(reinterpret_cast<uintptr_t>(stream)) == 0) return kInvalidHandle;
  std::free(stream);
  return kSuccess;
}

CUresult cuStreamSynchronize(void*) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  return ready();
}

CUresult cuEventCreate(void** event, unsigned) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!event) return kInvalidValue;
  *event = std::malloc(1);
  events.insert(reinterpret_cast<uintptr_t>(*event));
  return kSuccess;
}

CUresult event_call(void* event) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  return events.count(reinterpret_cast<uintptr_t>(event)) ? kSuccess : kInvalidHandle;
}

CUresult cuEventRecord(void* event, void*) { return event_call(event); }
CUresult cuEventSynchronize(void* event) { return event_call(event); }
CUresult cuStreamWaitEvent(void*, void* event, unsigned flags) { return flags ? kInvalidValue : event_call(event); }

CUresult cuEventDestroy_v2(void* event) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (events.erase(reinterpret_cast<uintptr_t>(event)) == 0) return kInvalidHandle;
  std::free(event);
  return kSuccess;
}

CUresult cuModuleLoadData(Module** module, const void* image) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  return load_module(module, image);
}

CUresult cuModuleGetFunction(Function** function, Module* module, const char* name) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!function || !name) return kInvalidValue;
  if (!modules.count(module)) return kInvalidHandle;
  void* symbol = dlsym(module->library, name);
  if (!symbol) return kNotFound;
  bool by_value = dlsym(module->library, (std::string(name) + "_args_by_value").c_str()) != nullptr;
  auto* made = new Function{module, reinterpret_cast<EmulatedTask>(symbol), by_value};
  functions.insert(made);
  *function = made;
  return kSuccess;
}

CUresult cuModuleUnload(Module* module) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (!modules.erase(module)) return kInvalidHandle;
  for (auto it = functions.begin(); it != functions.end();) {
    if ((*it)->module != module) {
      ++it;
      continue;
    }
    delete *it;
    it = functions.erase(it);
  }
  dlclose(module->library);
  delete module;
  return kSuccess;
}

// Every quadrants task takes four device pointers (include/quadrants/cuda_jit.h); that is the only
// signature this emulator can call.
CUresult cuLaunchKernel(Function* function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                        unsigned block_y, unsigned block_z, unsigned shared_bytes, void*, void** params,
                        void** extra) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  const unsigned grid[3] = {grid_x, grid_y, grid_z};
  const unsigned block[3] = {block_x, block_y, block_z};
  return emulated_launch(function, grid, block, shared_bytes, params, extra);
}

}  // extern "C"

// ---- what emulated_graph.cpp shares (emulated_driver.h) ----

std::recursive_mutex& emulated_driver_mutex() { return driver_mutex; }
int emulated_ready() { return ready(); }
bool emulated_context_current() { return current_context != nullptr; }
bool emulated_is_device_memory(unsigned long long address, size_t bytes) { return in_device_memory(address, bytes); }
int emulated_allocate(unsigned long long* pointer, size_t bytes) { return allocate(pointer, bytes); }
int emulated_release(unsigned long long pointer) { return release(pointer); }
void emulated_fail_launch(int error) { sticky_error = error; }

void emulated_write_device(unsigned long long address, const void* data, size_t bytes) {
  DeviceAccess access;
  std::memcpy(reinterpret_cast<void*>(address), data, bytes);
}

void emulated_read_device(unsigned long long address, void* data, size_t bytes) {
  DeviceAccess access;
  std::memcpy(data, reinterpret_cast<const void*>(address), bytes);
}

bool emulated_is_function(void* function, bool* args_by_value) {
  auto* f = static_cast<Function*>(function);
  if (!functions.count(f)) return false;
  *args_by_value = f->args_by_value;
  return true;
}

int emulated_launch(void* handle, const unsigned grid[3], const unsigned block[3], unsigned shared_bytes,
                    void** params, void** extra) {
  auto* function = static_cast<Function*>(handle);
  if (!functions.count(function)) return kInvalidHandle;
  if (!params || extra || shared_bytes > 48 * 1024) return kInvalidValue;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0) return kInvalidValue;
  }
  if (block[0] > 1024 || block[1] > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535) return kInvalidValue;
  if (static_cast<unsigned long long>(block[0]) * block[1] * block[2] > 1024) return kLaunchOutOfResources;
  return run_launch(*function, grid, block, params);
}

extern "C" {

// 2048 resident threads per SM, as on recent GPUs; registers never limit the emulation.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Function* function, int block_size, size_t) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!blocks || block_size <= 0) return kInvalidValue;
  if (!functions.count(function)) return kInvalidHandle;
  *blocks = block_size > 1024 ? 0 : std::min(32, 2048 / block_size);
  return kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  if (!name) return kInvalidValue;
  switch (error) {
    case kSuccess: *name = "CUDA_SUCCESS"; return kSuccess;
    case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
    case kOutOfMemory: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
    case kNotInitialized: *name = "CUDA_ERROR_NOT_INITIALIZED"; return kSuccess;
    case kInvalidDevice: *name = "CUDA_ERROR_INVALID_DEVICE"; return kSuccess;
    case kInvalidImage: *name = "CUDA_ERROR_INVALID_IMAGE"; return kSuccess;
    case kInvalidContext: *name = "CUDA_ERROR_INVALID_CONTEXT"; return kSuccess;
    case kInvalidHandle: *name = "CUDA_ERROR_INVALID_HANDLE"; return kSuccess;
    case kNotFound: *name = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
    case kIllegalAddress: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return kSuccess;
    case kLaunchOutOfResources: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return kSuccess;
    case kLaunchFailed: *name = "CUDA_ERROR_LAUNCH_FAILED"; return kSuccess;
    default: *name = nullptr; return kInvalidValue;
  }
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  if (!text) return kInvalidValue;
  *text = error == kIllegalAddress ? "an illegal memory access was encountered (emulated)" : "emulated CUDA driver";
  return kSuccess;
}

// Memory type (2) and device ordinal (9) of device allocations; pinned host memory is type 1; other
// host memory is unknown to the driver, hence CUDA_ERROR_INVALID_VALUE.
CUresult cuPointerGetAttribute(void* value, int attribute, CUdeviceptr pointer) {
  std::lock_guard<std::recursive_mutex> lock(driver_mutex);
  if (CUresult r = ready()) return r;
  if (!value) return kInvalidValue;
  bool device = in_device_memory(pointer, 1);
  bool pinned = pinned_allocations.count(pointer) != 0;
  if (!device && !pinned) return kInvalidValue;
  if (attribute == 2) {
    *static_cast<unsigned*>(value) = device ? 2u : 1u;
    return kSuccess;
  }
  if (attribute == 9) {
    *static_cast<int*>(value) = 0;
    return kSuccess;
  }
  return kInvalidValue;
}

}  // extern "C"
