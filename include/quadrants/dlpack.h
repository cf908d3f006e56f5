// include/quadrants/dlpack.h: the DLPack 1.x C ABI (data structures only), written from the spec.
#pragma once

#include <cstdint>

extern "C" {

#define QD_DLPACK_MAJOR_VERSION 1
#define QD_DLPACK_MINOR_VERSION 0
// Flag bits of DLManagedTensorVersioned::flags.
#define QD_DLPACK_FLAG_READ_ONLY (1UL << 0)
#define QD_DLPACK_FLAG_IS_COPIED (1UL << 1)

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
};

// Legacy (pre-1.0) managed tensor, carried by capsules named "dltensor".
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

// Versioned managed tensor, carried by capsules named "dltensor_versioned".
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // extern "C"

extern "C" {

// DLPack 1.2's C exchange API: a framework publishes one static table through the
// `__dlpack_c_exchange_api__` capsule on its tensor type, so a consumer can read a tensor's
// DLTensor without allocating a capsule per call. Only the members we call are typed.
struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  DLPackExchangeAPIHeader* prev_api;
};

struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  // Fills *out with a view borrowed from py_object (valid while it lives); 0 on success, -1 with a
  // Python exception set on failure.
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_stream);
};

}  // extern "C"
