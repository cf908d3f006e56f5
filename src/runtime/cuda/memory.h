// src/runtime/cuda/memory.h: device allocations and host<->device transfers through pinned staging.
#pragma once

#include <cstddef>

#include "runtime/cuda/device.h"

namespace qd::cuda {

// Stream-ordered on devices with memory pools (cuMemAllocAsync), plain cuMemAlloc otherwise. The
// context of dev must be current.
CUdeviceptr allocate_device(const Device& dev, size_t bytes, CUstream stream);
// Frees in stream order: later work on stream may reuse the memory, earlier work still sees it.
void free_device(const Device& dev, CUdeviceptr pointer, CUstream stream);

// Copy bytes between host memory and the current context's device memory, ordered on stream.
// Both return once the host buffer may be read (download) or reused (upload). Large transfers go
// through a pinned staging buffer of the device in chunks, so the DMA engine never waits on pageable
// memory and the host copies one chunk while the next is in flight.
void upload(const Device& dev, CUdeviceptr dst, const void* src, size_t bytes, CUstream stream);
void download(const Device& dev, void* dst, CUdeviceptr src, size_t bytes, CUstream stream);

inline CUdeviceptr device_pointer(const void* pointer) { return reinterpret_cast<CUdeviceptr>(pointer); }

}  // namespace qd::cuda
