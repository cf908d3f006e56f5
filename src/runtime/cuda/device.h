// src/runtime/cuda/device.h: per-device state: the retained primary context and the device's properties.
#pragma once

#include "quadrants/cuda.h"
#include "runtime/cuda/driver.h"

namespace qd::cuda {

struct Device {
  CudaDeviceInfo info;
  CUdevice handle = 0;
  CUcontext context = nullptr;  // the primary context, retained for the life of the process
};

// The device, initialized on first use (ValueError for an index the driver does not have).
const Device& device(int device_id);

// Makes device_id's primary context current on the calling thread (a context is per thread, and
// every driver call acts on the current one) and returns the device.
const Device& make_current(int device_id);

}  // namespace qd::cuda
