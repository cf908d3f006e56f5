// src/runtime/cuda/device.cpp: primary context retention, device properties and the per-thread current context.
#include "runtime/cuda/device.h"

#include <memory>
#include <mutex>
#include <vector>

#include "quadrants/errors.h"

namespace qd::cuda {
namespace {

std::unique_ptr<Device> open_device(const DriverApi& api, int device_id) {
  auto dev = std::make_unique<Device>();
  dev->info.index = device_id;
  check(api.cuDeviceGet(&dev->handle, device_id), "cuDeviceGet(" + std::to_string(device_id) + ")");
  int pools = 0;
  const std::pair<int, int*> attributes[] = {
      {kAttributeMultiprocessorCount, &dev->info.sm_count},
      {kAttributeComputeCapabilityMajor, &dev->info.compute_capability_major},
      {kAttributeComputeCapabilityMinor, &dev->info.compute_capability_minor},
      {kAttributeMemoryPoolsSupported, &pools},
      {kAttributeClockRate, &dev->info.clock_rate_khz},
  };
  for (const auto& [attribute, value] : attributes) {
    check(api.cuDeviceGetAttribute(value, attribute, dev->handle),
          "cuDeviceGetAttribute(" + std::to_string(attribute) + ", device " + std::to_string(device_id) + ")");
  }
  dev->info.memory_pools = pools != 0 && api.cuMemAllocAsync != nullptr;
  // Kept for the life of the process: arrays and modules on this device may outlive any owner we
  // could tie a release to, and the driver tears the context down at exit.
  check(api.cuDevicePrimaryCtxRetain(&dev->context, dev->handle),
        "cuDevicePrimaryCtxRetain(device " + std::to_string(device_id) + ")");
  return dev;
}

}  // namespace

const Device& device(int device_id) {
  const DriverApi& api = driver();
  int count = driver_load().device_count;
  if (device_id < 0 || device_id >= count) {
    throw ValueError("CUDA device_id must be between 0 and " + std::to_string(count - 1) +
                     " (the driver sees " + std::to_string(count) + " device" + (count == 1 ? "" : "s") +
                     "), but " + std::to_string(device_id) + " was given.");
  }
  static std::mutex mutex;
  static std::vector<std::unique_ptr<Device>> devices(static_cast<size_t>(count));
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Device>& slot = devices[static_cast<size_t>(device_id)];
  if (!slot) slot = open_device(api, device_id);
  return *slot;
}

const Device& make_current(int device_id) {
  const Device& dev = device(device_id);
  const DriverApi& api = driver();
  CUcontext current = nullptr;
  check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != dev.context) check(api.cuCtxSetCurrent(dev.context), "cuCtxSetCurrent");
  return dev;
}

}  // namespace qd::cuda
