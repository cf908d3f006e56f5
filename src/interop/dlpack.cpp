// src/interop/dlpack.cpp: DLPack export (versioned and legacy) and import of quadrants arrays.
#include <string>

#include "quadrants/errors.h"
#include "quadrants/interop.h"

namespace qd {
namespace {

// Owned by an exported managed tensor: keeps the memory alive and holds shape and strides.
struct ExportContext {
  std::shared_ptr<void> owner;
  int64_t shape[QD_MAX_NDIM];
  int64_t strides[QD_MAX_NDIM];
};

DLTensor describe(const ArrayView& view, ExportContext* ctx) {
  DLTensor tensor{};
  tensor.data = view.data;
  tensor.device = {static_cast<DLDeviceType>(view.device.kind), view.device.index};
  tensor.ndim = view.ndim;
  DlpackDtype dtype = dtype_to_dlpack(view.dtype);
  tensor.dtype = {dtype.code, dtype.bits, dtype.lanes};
  for (int d = 0; d < view.ndim; ++d) {
    ctx->shape[d] = view.shape[d];
    ctx->strides[d] = view.strides[d];
  }
  tensor.shape = ctx->shape;
  tensor.strides = ctx->strides;
  tensor.byte_offset = 0;
  return tensor;
}

template <typename Managed>
std::shared_ptr<void> owner_of(Managed* managed) {
  // The deleter may be null per the spec ("no deleter needed").
  return std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<Managed*>(p);
    if (m->deleter) m->deleter(m);
  });
}

template <typename Managed>
std::shared_ptr<Array> import_managed(Managed* managed, bool writable) {
  std::shared_ptr<void> owner = owner_of(managed);  // deletes managed even if the view throws
  ArrayView view = view_of_dltensor(managed->dl_tensor, writable);
  return Array::wrap(view, 0, std::move(owner));
}

}  // namespace

ArrayView view_of_dltensor(const DLTensor& tensor, bool writable) {
  if (tensor.ndim < 0 || tensor.ndim > QD_MAX_NDIM) {
    throw ValueError("quadrants supports arrays of up to " + std::to_string(QD_MAX_NDIM) +
                     " dimensions, but the DLPack tensor has " + std::to_string(tensor.ndim) + ".");
  }
  std::optional<DtypeCode> dtype =
      dtype_from_dlpack({tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes});
  if (!dtype) {
    throw TypeError("Unsupported DLPack dtype (code " + std::to_string(tensor.dtype.code) + ", " +
                    std::to_string(tensor.dtype.bits) + " bits, " + std::to_string(tensor.dtype.lanes) +
                    " lanes); quadrants supports bool, int8-64, uint8-64 and float16/32/64.");
  }
  ArrayView view;
  view.dtype = *dtype;
  view.ndim = tensor.ndim;
  view.writable = writable;
  switch (tensor.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: view.device = {DeviceId::Kind::cpu, 0}; break;
    case kDLCUDA:
    case kDLCUDAManaged: view.device = {DeviceId::Kind::cuda, tensor.device.device_id}; break;
    default:
      throw ValueError("Unsupported DLPack device type " + std::to_string(tensor.device.device_type) +
                       "; quadrants accepts CPU and CUDA memory.");
  }
  for (int d = 0; d < view.ndim; ++d) view.shape[d] = tensor.shape[d];
  if (tensor.strides) {
    for (int d = 0; d < view.ndim; ++d) view.strides[d] = tensor.strides[d];
  } else {
    fill_contiguous_strides(view);
  }
  view.data = static_cast<char*>(tensor.data) + tensor.byte_offset;
  return view;
}

DLManagedTensorVersioned* export_dlpack_versioned(const Array& array) {
  auto* ctx = new ExportContext{array.owner(), {}, {}};
  auto* managed = new DLManagedTensorVersioned{};
  managed->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  managed->manager_ctx = ctx;
  managed->deleter = [](DLManagedTensorVersioned* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  managed->flags = array.view().writable ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
  managed->dl_tensor = describe(array.view(), ctx);
  return managed;
}

DLManagedTensor* export_dlpack_legacy(const Array& array) {
  auto* ctx = new ExportContext{array.owner(), {}, {}};
  auto* managed = new DLManagedTensor{};
  managed->manager_ctx = ctx;
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  managed->dl_tensor = describe(array.view(), ctx);
  return managed;
}

std::shared_ptr<Array> import_dlpack_versioned(DLManagedTensorVersioned* managed) {
  if (managed->version.major != DLPACK_MAJOR_VERSION) {
    unsigned major = managed->version.major;
    owner_of(managed);  // runs the deleter: we must not leak what we were handed
    throw ValueError("Unsupported DLPack major version " + std::to_string(major) +
                     "; quadrants understands version 1.");
  }
  return import_managed(managed, !(managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY));
}

std::shared_ptr<Array> import_dlpack_legacy(DLManagedTensor* managed) {
  return import_managed(managed, true);
}

}  // namespace qd
