// src/runtime/cuda/copy.cpp: copies between any mix of host and CUDA views, with strides and dtype conversion.
//
// Contiguous same-dtype copies are one transfer. Everything else is staged through host memory and
// converted by qd::copy_view: only the span of memory a strided view touches is transferred, and a
// non-contiguous device destination is read, updated and written back so the gaps keep their data.
#include <vector>

#include "quadrants/cuda.h"
#include "quadrants/errors.h"
#include "runtime/cuda/memory.h"

namespace qd {
namespace {

bool on_host(const ArrayView& view) { return view.device.kind == DeviceId::Kind::cpu; }

// The elements a view touches, as an offset range [first, first + count) from view.data.
struct Span {
  int64_t first = 0;
  int64_t count = 0;
};

Span span_of(const ArrayView& view) {
  int64_t low = 0;
  int64_t high = 0;
  for (int d = 0; d < view.ndim; ++d) {
    int64_t reach = (view.shape[d] - 1) * view.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  return {low, high - low + 1};
}

// Host memory holding a copy of a device view's span, and the same view rebased onto it.
struct HostStage {
  std::shared_ptr<void> memory;
  ArrayView view;
};

char* element_address(const ArrayView& view, int64_t element) {
  return static_cast<char*>(view.data) + element * dtype_size(view.dtype);
}

HostStage download_view(const ArrayView& view, CUstream stream) {
  const cuda::Device& dev = cuda::make_current(view.device.index);
  Span span = span_of(view);
  size_t bytes = static_cast<size_t>(span.count) * dtype_size(view.dtype);
  HostStage stage{allocate_host(bytes), view};
  cuda::download(dev, stage.memory.get(), cuda::device_pointer(element_address(view, span.first)), bytes, stream);
  stage.view.data = static_cast<char*>(stage.memory.get()) - span.first * dtype_size(view.dtype);
  stage.view.device = {DeviceId::Kind::cpu, 0};
  return stage;
}

void upload_view(const HostStage& stage, const ArrayView& device_view, CUstream stream) {
  const cuda::Device& dev = cuda::make_current(device_view.device.index);
  Span span = span_of(device_view);
  size_t bytes = static_cast<size_t>(span.count) * dtype_size(device_view.dtype);
  cuda::upload(dev, cuda::device_pointer(element_address(device_view, span.first)), stage.memory.get(), bytes,
               stream);
}

// A contiguous same-dtype copy: one transfer in the direction the devices call for.
void copy_bytes(const ArrayView& dst, const ArrayView& src, CUstream stream) {
  size_t bytes = static_cast<size_t>(dst.size()) * dtype_size(dst.dtype);
  if (on_host(src)) {
    cuda::upload(cuda::make_current(dst.device.index), cuda::device_pointer(dst.data), src.data, bytes, stream);
  } else if (on_host(dst)) {
    cuda::download(cuda::make_current(src.device.index), dst.data, cuda::device_pointer(src.data), bytes, stream);
  } else {
    cuda::make_current(dst.device.index);
    cuda::check(cuda::driver().cuMemcpyDtoDAsync(cuda::device_pointer(dst.data), cuda::device_pointer(src.data),
                                                 bytes, stream),
                "cuMemcpyDtoDAsync(" + std::to_string(bytes) + " bytes)");
  }
}

}  // namespace

void copy_view_cuda(const ArrayView& dst, const ArrayView& src, CUstream stream) {
  QD_ASSERT(dst.ndim == src.ndim, "copy_view_cuda(): rank mismatch");
  for (int d = 0; d < dst.ndim; ++d) QD_ASSERT(dst.shape[d] == src.shape[d], "copy_view_cuda(): shape mismatch");
  if (on_host(dst) && on_host(src)) return copy_view(dst, src);
  if (dst.size() == 0) return;
  // Devices are compared too: a copy between two GPUs goes through the host rather than relying on
  // peer access being enabled.
  bool one_device = on_host(dst) || on_host(src) || dst.device == src.device;
  if (one_device && dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    return copy_bytes(dst, src, stream);
  }
  HostStage source;
  if (on_host(src)) {
    source.view = src;
  } else {
    source = download_view(src, stream);
  }
  if (on_host(dst)) return copy_view(dst, source.view);
  HostStage target;
  if (dst.is_contiguous()) {
    target.memory = allocate_host(static_cast<size_t>(dst.size()) * dtype_size(dst.dtype));
    target.view = dst;
    fill_contiguous_strides(target.view);
    target.view.data = target.memory.get();
    target.view.device = {DeviceId::Kind::cpu, 0};
  } else {
    target = download_view(dst, stream);
  }
  copy_view(target.view, source.view);
  upload_view(target, dst, stream);
}

}  // namespace qd
