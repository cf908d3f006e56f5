// src/bindings/cuda_launch.h: what a kernel launch needs on the CUDA target: the target, host staging, streams.
#pragma once

#include <memory>
#include <vector>

#include "bindings/arg_adapters.h"
#include "quadrants/array.h"
#include "quadrants/cuda.h"

namespace qd::bindings {

// Where kernels run, set by qd.init(); kernels are recompiled after every init.
struct Target {
  bool cuda = false;
  int device = 0;
};
Target& current_target();

// Host arrays given to a CUDA kernel are copied to the device before the launch and back after,
// as Quadrants does (slow, so the launcher warns once per parameter).
class HostStaging {
 public:
  // A device copy of host (kernel parameter `param`), remembered so copy_back can return the kernel's writes.
  ArrayView stage(const ArrayView& host, int element_ndim, int device, size_t param);
  // Copies back the staged arrays of the parameters the kernel writes (written[param]); returns when
  // the host may read them. Arrays it only reads are left untouched.
  void copy_back(CUstream stream, const std::vector<bool>& written);
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    ArrayView host;
    std::shared_ptr<Array> device;
    size_t param;
  };
  std::vector<Entry> entries_;
};

// The stream a CUDA launch runs on: `explicit_stream` if given; else torch's current stream for the
// device when a torch CUDA tensor is among the arguments (through the DLPack exchange API or, on
// torch without it, marked by the adapters), so the second seed's rule about PyTorch's stream holds
// with no user code; else CuPy's current stream when a CuPy array is; else the legacy default
// stream. Before returning it, makes that stream wait for every argument's producer stream
// (__cuda_array_interface__ v3 streams, streams handed to __dlpack__) without blocking the host.
CUstream choose_stream(const ArgSlot* slots, size_t n, const uintptr_t* explicit_stream, int device);

}  // namespace qd::bindings
