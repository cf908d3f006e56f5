// src/bindings/realigned_args.h: host arrays whose data is not aligned to their elements, copied to aligned
// buffers around a CPU launch.
#pragma once

#include <memory>
#include <vector>

#include "quadrants/array.h"

namespace qd::bindings {

// Generated kernels address elements through typed pointers, which C++ requires to be aligned, so a
// misaligned array (numpy over a byte buffer at an odd offset, as dask and pickle-5 deserialize) runs
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

bool is_misaligned(const ArrayView& view);

}  // namespace qd::bindings
