// src/launch/signature.cpp: an array argument's signature packed into 64 bits, and unpacked.
#include "quadrants/launch.h"

namespace qd {

static_assert(QD_MAX_NDIM < 16, "outer and element dims each take 4 bits of a signature");

// Bits: dtype 0-7, outer dims 8-11, contiguous 12, writable 13, device kind 14-15, element dims 16-19, then
// the first two element extents, 16 bits each, from bit 20.
uint64_t array_signature(const ArrayView& view, int element_ndim) {
  int outer = view.ndim - element_ndim;
  uint64_t sig = static_cast<uint64_t>(view.dtype) | (static_cast<uint64_t>(outer) << 8) |
                 (static_cast<uint64_t>(view.is_contiguous()) << 12) |
                 (static_cast<uint64_t>(view.writable) << 13) |
                 (static_cast<uint64_t>(view.device.kind) << 14) |
                 (static_cast<uint64_t>(element_ndim) << 16);
  for (int e = 0; e < element_ndim && e < 2; ++e) {
    sig |= (static_cast<uint64_t>(view.shape[outer + e]) & 0xffff) << (20 + 16 * e);
  }
  return sig;
}

ArraySignature unpack_array_signature(uint64_t packed) {
  ArraySignature sig;
  sig.dtype = static_cast<DtypeCode>(packed & 0xff);
  sig.ndim = static_cast<int>((packed >> 8) & 0xf);
  sig.contiguous = (packed >> 12) & 1;
  sig.writable = (packed >> 13) & 1;
  sig.device = static_cast<DeviceId::Kind>((packed >> 14) & 0x3);
  sig.element_ndim = static_cast<int>((packed >> 16) & 0xf);
  for (int e = 0; e < sig.element_ndim && e < 2; ++e) {
    sig.element_shape[e] = static_cast<int64_t>((packed >> (20 + 16 * e)) & 0xffff);
  }
  return sig;
}

}  // namespace qd
