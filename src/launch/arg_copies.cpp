// src/launch/arg_copies.cpp: device copies of host arrays and aligned copies of misaligned ones, around a launch.
#include "launch/arg_copies.h"

namespace qd {

ArrayView HostStaging::stage(const ArrayView& host, int element_ndim, int device, size_t param, LaunchHooks& hooks) {
  int outer = host.ndim - element_ndim;
  std::vector<int64_t> shape(host.shape, host.shape + outer);
  std::vector<int64_t> element_shape(host.shape + outer, host.shape + host.ndim);
  std::shared_ptr<Array> copy = create_cuda_array(host.dtype, shape, element_shape, device);
  ArrayView device_view = copy->view();
  device_view.writable = host.writable;
  {
    Released released(hooks);
    copy_view_cuda(device_view, host, nullptr);
  }
  entries_.push_back({host, std::move(copy), param});
  return device_view;
}

void HostStaging::copy_back(CUstream stream, const std::vector<bool>& written) {
  for (const Entry& entry : entries_) {
    bool writes = entry.param < written.size() && written[entry.param];
    if (entry.host.writable && writes) copy_view_cuda(entry.host, entry.device->view(), stream);
  }
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

}  // namespace qd
