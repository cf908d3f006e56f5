// src/bindings/cuda_launch.cpp: host staging and stream choice for kernels launched on the CUDA target.
#include "bindings/cuda_launch.h"

#include <nanobind/nanobind.h>

#include "quadrants/dlpack.h"

namespace nb = nanobind;

namespace qd::bindings {

Target& current_target() {
  static Target target;
  return target;
}

ArrayView HostStaging::stage(const ArrayView& host, int element_ndim, int device, size_t param) {
  int outer = host.ndim - element_ndim;
  std::vector<int64_t> shape(host.shape, host.shape + outer);
  std::vector<int64_t> element_shape(host.shape + outer, host.shape + host.ndim);
  std::shared_ptr<Array> copy = create_cuda_array(host.dtype, shape, element_shape, device);
  ArrayView device_view = copy->view();
  device_view.writable = host.writable;
  {
    nb::gil_scoped_release release;
    copy_view_cuda(device_view, host, nullptr);
  }
  entries_.push_back({host, std::move(copy), param});
  return device_view;
}

void HostStaging::copy_back(CUstream stream, const std::vector<bool>& written) {
  nb::gil_scoped_release release;
  for (const Entry& entry : entries_) {
    bool writes = entry.param < written.size() && written[entry.param];
    if (entry.host.writable && writes) copy_view_cuda(entry.host, entry.device->view(), stream);
  }
}

namespace {

CUstream launch_stream(const ArgSlot* slots, size_t n, const uintptr_t* explicit_stream, int device) {
  if (explicit_stream) return reinterpret_cast<CUstream>(*explicit_stream);
  for (size_t i = 0; i < n; ++i) {
    auto* api = static_cast<const DLPackExchangeAPI*>(slots[i].exchange_api);
    if (api && api->current_work_stream) {
      void* stream = nullptr;
      if (api->current_work_stream(kDLCUDA, device, &stream) != 0) throw nb::python_error();
      return static_cast<CUstream>(stream);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (slots[i].from_torch) return torch_current_stream(device);
  }
  for (size_t i = 0; i < n; ++i) {
    if (slots[i].from_cupy) return cupy_current_stream();
  }
  return nullptr;
}

}  // namespace

CUstream choose_stream(const ArgSlot* slots, size_t n, const uintptr_t* explicit_stream, int device) {
  CUstream stream = launch_stream(slots, n, explicit_stream, device);
  for (size_t i = 0; i < n; ++i) {
    if (slots[i].has_producer_stream) make_stream_wait(stream, slots[i].producer_stream, device);
  }
  return stream;
}

}  // namespace qd::bindings
