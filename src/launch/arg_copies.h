// src/launch/arg_copies.h: the copies a launch makes of arguments that cannot run where they are: host
// arrays given to a CUDA kernel, and host arrays whose data is not aligned to their elements.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "quadrants/array.h"
#include "quadrants/cuda.h"
#include "quadrants/launch.h"

namespace qd {

// Host arrays given to a CUDA kernel are copied to the device before the launch and back after, as
// Quadrants does (slow, so the launcher warns once per parameter).
class HostStaging {
 public:
  // A device copy of host (kernel parameter `param`), remembered so copy_back can return the kernel's
  // writes. The copy runs between hooks.release() and hooks.reacquire().
  ArrayView stage(const ArrayView& host, int element_ndim, int device, size_t param, LaunchHooks& hooks);
  // Copies back the staged arrays of the parameters the kernel writes (written[param]); returns when the
  // host may read them. Arrays it only reads are left untouched. The caller has released its locks.
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

// Generated kernels address elements through typed pointers, which C++ requires to be aligned, so a
// misaligned host array (numpy over a byte buffer at an odd offset, as dask and pickle-5 deserialize) runs
// on an aligned copy, and the kernel's writes are copied back into the original after the launch.
class RealignedArgs {
 public:
  // An aligned, contiguous copy of `host`, kept until copy_back.
  ArrayView stage(const ArrayView& host, int element_ndim);
  // Copies each staged copy back into its original, unless the original is read-only.
  void copy_back();
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    ArrayView original;
    std::shared_ptr<Array> copy;
  };
  std::vector<Entry> entries_;
};

// Whether view's data address is not a multiple of its element size. Sizes are powers of two: a mask, not a
// division (which cost 2% of a launch).
inline bool is_misaligned(const ArrayView& view) {
  return (reinterpret_cast<uintptr_t>(view.data) & static_cast<uintptr_t>(dtype_size(view.dtype) - 1)) != 0;
}

// Releases the caller's locks (LaunchHooks::release) for its lifetime.
class Released {
 public:
  explicit Released(LaunchHooks& hooks) : hooks_(hooks) { hooks_.release(); }
  ~Released() { hooks_.reacquire(); }
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;

 private:
  LaunchHooks& hooks_;
};

}  // namespace qd
