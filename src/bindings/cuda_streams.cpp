// src/bindings/cuda_streams.cpp: the stream of a CUDA launch from Python: explicit, torch's, CuPy's or the default.
#include "bindings/cuda_streams.h"

#include <nanobind/nanobind.h>

#include "quadrants/dlpack.h"

namespace nb = nanobind;

namespace qd::bindings {
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
