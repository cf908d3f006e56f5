// src/runtime/cuda/memory.cpp: device allocation, device arrays, pinned staging transfers, pointer queries.
#include "runtime/cuda/memory.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "quadrants/errors.h"

namespace qd::cuda {
namespace {

constexpr size_t kStagingChunk = size_t{4} << 20;       // bytes per half of the staging buffer
constexpr size_t kStagingThreshold = size_t{1} << 20;  // smaller transfers go straight from pageable memory

// Two pinned halves used alternately: the host fills (or drains) one while the other is in flight.
// events[h] is recorded after the last transfer that used half h.
struct Staging {
  std::mutex mutex;  // one transfer at a time per device
  char* buffer = nullptr;
  CUevent events[2] = {nullptr, nullptr};
};

Staging& staging(const Device& dev) {
  static std::mutex mutex;
  static Staging per_device[64];
  QD_ASSERT(dev.info.index < 64, "staging(): more than 64 CUDA devices");
  Staging& stage = per_device[dev.info.index];
  std::lock_guard<std::mutex> lock(mutex);
  if (!stage.buffer) {
    const DriverApi& api = driver();
    void* buffer = nullptr;
    check(api.cuMemAllocHost(&buffer, 2 * kStagingChunk), "cuMemAllocHost(pinned staging buffer)");
    for (CUevent& event : stage.events) check(api.cuEventCreate(&event, kEventDisableTiming), "cuEventCreate");
    stage.buffer = static_cast<char*>(buffer);
  }
  return stage;
}

void check_memcpy(CUresult result, const char* direction, size_t bytes) {
  check(result, std::string(direction) + "(" + std::to_string(bytes) + " bytes)");
}

}  // namespace

CUdeviceptr allocate_device(const Device& dev, size_t bytes, CUstream stream) {
  const DriverApi& api = driver();
  CUdeviceptr pointer = 0;
  bytes = std::max<size_t>(bytes, 1);  // zero-byte allocations are an error in the driver
  CUresult result = dev.info.memory_pools ? api.cuMemAllocAsync(&pointer, bytes, stream)
                                          : api.cuMemAlloc(&pointer, bytes);
  check(result, std::string(dev.info.memory_pools ? "cuMemAllocAsync" : "cuMemAlloc") + "(" +
                    std::to_string(bytes) + " bytes on CUDA device " + std::to_string(dev.info.index) + ")");
  return pointer;
}

void free_device(const Device& dev, CUdeviceptr pointer, CUstream stream) {
  const DriverApi& api = driver();
  if (dev.info.memory_pools) {
    check(api.cuMemFreeAsync(pointer, stream), "cuMemFreeAsync");
  } else {
    check(api.cuMemFree(pointer), "cuMemFree");  // synchronizes with the device itself
  }
}

void upload(const Device& dev, CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  const DriverApi& api = driver();
  if (bytes < kStagingThreshold) {
    check_memcpy(api.cuMemcpyHtoDAsync(dst, src, bytes, stream), "cuMemcpyHtoDAsync", bytes);
    check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");  // src may be freed on return
    return;
  }
  Staging& stage = staging(dev);
  std::lock_guard<std::mutex> lock(stage.mutex);
  const char* from = static_cast<const char*>(src);
  for (size_t offset = 0, chunk = 0; offset < bytes; offset += kStagingChunk, ++chunk) {
    size_t n = std::min(kStagingChunk, bytes - offset);
    char* half = stage.buffer + (chunk % 2) * kStagingChunk;
    check(api.cuEventSynchronize(stage.events[chunk % 2]), "cuEventSynchronize");
    std::memcpy(half, from + offset, n);
    check_memcpy(api.cuMemcpyHtoDAsync(dst + offset, half, n, stream), "cuMemcpyHtoDAsync", n);
    check(api.cuEventRecord(stage.events[chunk % 2], stream), "cuEventRecord");
  }
  // The staging buffer is free again once both halves are; the caller's src was read long ago.
  for (CUevent event : stage.events) check(api.cuEventSynchronize(event), "cuEventSynchronize");
}

void download(const Device& dev, void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  const DriverApi& api = driver();
  if (bytes < kStagingThreshold) {
    check_memcpy(api.cuMemcpyDtoHAsync(dst, src, bytes, stream), "cuMemcpyDtoHAsync", bytes);
    check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
    return;
  }
  Staging& stage = staging(dev);
  std::lock_guard<std::mutex> lock(stage.mutex);
  size_t chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
  auto enqueue = [&](size_t chunk) {
    size_t offset = chunk * kStagingChunk;
    size_t n = std::min(kStagingChunk, bytes - offset);
    char* half = stage.buffer + (chunk % 2) * kStagingChunk;
    check_memcpy(api.cuMemcpyDtoHAsync(half, src + offset, n, stream), "cuMemcpyDtoHAsync", n);
    check(api.cuEventRecord(stage.events[chunk % 2], stream), "cuEventRecord");
  };
  for (size_t chunk = 0; chunk < std::min<size_t>(chunks, 2); ++chunk) enqueue(chunk);
  char* to = static_cast<char*>(dst);
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    size_t offset = chunk * kStagingChunk;
    size_t n = std::min(kStagingChunk, bytes - offset);
    check(api.cuEventSynchronize(stage.events[chunk % 2]), "cuEventSynchronize");
    std::memcpy(to + offset, stage.buffer + (chunk % 2) * kStagingChunk, n);
    if (chunk + 2 < chunks) enqueue(chunk + 2);
  }
}

}  // namespace qd::cuda

namespace qd {

std::shared_ptr<Array> create_cuda_array(DtypeCode dtype, const std::vector<int64_t>& shape,
                                         const std::vector<int64_t>& element_shape, int device_id) {
  size_t bytes = 0;
  ArrayView view = new_array_view(dtype, shape, element_shape, &bytes);
  const cuda::Device& dev = cuda::make_current(device_id);
  const cuda::DriverApi& api = cuda::driver();
  // Allocated and zeroed on the legacy default stream, then waited for: the array may be used on
  // any stream next, and none of them is ordered after this one.
  cuda::CUdeviceptr pointer = cuda::allocate_device(dev, bytes, nullptr);
  if (bytes > 0) cuda::check(api.cuMemsetD8Async(pointer, 0, bytes, nullptr), "cuMemsetD8Async");
  cuda::check(api.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  view.data = reinterpret_cast<void*>(pointer);
  view.device = {DeviceId::Kind::cuda, device_id};
  // Work on other streams may still use the memory when the last owner goes, and a stream-ordered
  // free only waits for its own stream, so the whole context is synchronized first. Errors are
  // dropped: deleters must not throw, and at exit the driver may already be shut down.
  std::shared_ptr<void> owner(view.data, [device_id](void* data) {
    try {
      const cuda::Device& owner_dev = cuda::make_current(device_id);
      cuda::driver().cuCtxSynchronize();
      cuda::free_device(owner_dev, cuda::device_pointer(data), nullptr);
    } catch (const std::exception&) {
    }
  });
  return Array::wrap(view, static_cast<int>(element_shape.size()), std::move(owner));
}

std::optional<int> cuda_pointer_device(const void* pointer) {
  if (!cuda::driver_load().error.empty()) return std::nullopt;
  const cuda::DriverApi& api = cuda::driver();
  unsigned memory_type = 0;
  // Host memory the driver never saw is CUDA_ERROR_INVALID_VALUE here, which simply means "host".
  if (api.cuPointerGetAttribute(&memory_type, cuda::kPointerAttributeMemoryType, cuda::device_pointer(pointer)) !=
          cuda::kSuccess ||
      memory_type != cuda::kMemoryTypeDevice) {
    return std::nullopt;
  }
  int ordinal = 0;
  cuda::check(api.cuPointerGetAttribute(&ordinal, cuda::kPointerAttributeDeviceOrdinal, cuda::device_pointer(pointer)),
              "cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)");
  return ordinal;
}

}  // namespace qd
