// src/bindings/realigned_args.cpp: aligned copies of misaligned host arrays around a CPU launch.
#include "bindings/realigned_args.h"

#include <cstdint>

namespace qd::bindings {

bool is_misaligned(const ArrayView& view) {
  // Sizes are powers of two: a mask, not a division (which cost 2% of a launch).
  return (reinterpret_cast<uintptr_t>(view.data) & static_cast<uintptr_t>(dtype_size(view.dtype) - 1)) != 0;
}

ArrayView RealignedArgs::stage(const ArrayView& host, int element_ndim) {
  int outer = host.ndim - element_ndim;
  std::vector<int64_t> shape(host.shape, host.shape + outer);
  std::vector<int64_t> element_shape(host.shape + outer, host.shape + host.ndim);
  std::shared_ptr<Array> copy = Array::create(host.dtype, shape, element_shape);
  ArrayView aligned = copy->view();
  copy_view(aligned, host);
  aligned.writable = host.writable;
  entries_.push_back({host, std::move(copy)});
  return aligned;
}

void RealignedArgs::copy_back() {
  for (const Entry& entry : entries_) {
    if (entry.original.writable) copy_view(entry.original, entry.copy->view());
  }
}

}  // namespace qd::bindings
