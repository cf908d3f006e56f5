// include/quadrants/array.h: dense strided storage behind qd.ndarray and qd.field, and views of foreign memory.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "quadrants/dtype.h"
#include "quadrants/kernel_abi.h"

namespace qd {

struct DeviceId {
  enum class Kind : uint8_t { cpu = 1, cuda = 2 };  // values follow DLPack's device types
  Kind kind = Kind::cpu;
  int index = 0;
  bool operator==(const DeviceId& o) const { return kind == o.kind && index == o.index; }
};

// A non-owning description of strided memory. Strides are in elements and may be 0 or negative.
struct ArrayView {
  void* data = nullptr;
  DtypeCode dtype = DtypeCode::f32;
  int ndim = 0;
  int64_t shape[QD_MAX_NDIM] = {};
  int64_t strides[QD_MAX_NDIM] = {};
  DeviceId device;
  bool writable = true;

  int64_t size() const;
  bool is_contiguous() const;  // C order; size-1 dims may have any stride
};

// How host storage is mapped.
//   normal: calloc; an allocation larger than the machine can back fails at once (std::bad_alloc).
//   huge:   from kHugePageBytes on, 2 MiB-aligned and advised for transparent huge pages (as numpy does for
//           its arrays from 4 MiB on): a 64 MiB copy out of it took 9.7 instead of 11.6 ms of CPU, but a page
//           touched commits 2 MiB. For dense storage that will be written whole.
//   sparse: from kHugePageBytes on, address space reserved without commit accounting (MAP_NORESERVE): for
//           sparse pools and dynamic lists, laid out at their worst case (which may exceed memory many
//           times over, as upstream's SNode capacities do) but written only where cells are active.
enum class HostPages { normal, huge, sparse };

// Compact row-major strides for shape.
void fill_contiguous_strides(ArrayView& view);

// The row-major view (no data yet) of a new array, and its size in bytes; throws ValueError for
// too many dims, a negative extent, or a size too large to address. Shared by every device.
ArrayView new_array_view(DtypeCode dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& element_shape,
                         size_t* bytes);

// Storage of an ndarray or field: outer dims followed by element dims (a 3x2 matrix field of shape
// (4,) has full shape (4, 3, 2)). Memory is shared: DLPack exports keep it alive past release().
class Array {
 public:
  // Zero-filled, 64-byte-aligned CPU storage; `pages` says how it is mapped (see HostPages).
  static std::shared_ptr<Array> create(DtypeCode dtype, const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& element_shape,
                                       HostPages pages = HostPages::normal);
  // Wraps memory someone else owns; owner is released when the last user is gone.
  static std::shared_ptr<Array> wrap(const ArrayView& view, int element_ndim, std::shared_ptr<void> owner);
  // The scalar array of one entry of every element (element_index: one index per element dim), sharing this
  // array's memory: its outer dims keep their strides (a vector field's component, get_scalar_field()).
  std::shared_ptr<Array> component(const std::vector<int64_t>& element_index) const;
  // The same memory with its dims reordered: dim d of the result is dim axes[d] of this array, and the last
  // element_ndim dims are element dims. A field stored in another memory order (qd.field(order=...),
  // qd.Layout.SOA) is allocated row-major in that order and used through this view in its canonical order.
  std::shared_ptr<Array> permuted(const std::vector<int64_t>& axes, int element_ndim) const;

  // Throws std::runtime_error once released (after qd.reset()).
  const ArrayView& view() const;
  const std::shared_ptr<void>& owner() const;
  int element_ndim() const { return element_ndim_; }
  int outer_ndim() const { return view_.ndim - element_ndim_; }
  bool released() const { return released_; }
  // Drops this array's reference to its memory; later use is a clear error.
  void release();
  // Zeroes outer rows [begin, end) of a C-contiguous array. Memory this class allocated gives the whole pages
  // inside the range back to the OS (they read as zeros and are mapped again on the next write), so zeroing a
  // sparse pool's chunks costs what was written to them, not their size; the rest is written with zeros.
  void zero_outer(int64_t begin, int64_t end);

 private:
  Array(const ArrayView& view, int element_ndim, std::shared_ptr<void> owner, bool anonymous = false)
      : view_(view), element_ndim_(element_ndim), owner_(std::move(owner)), anonymous_(anonymous) {}
  ArrayView view_;
  int element_ndim_ = 0;
  std::shared_ptr<void> owner_;
  bool anonymous_ = false;  // private anonymous memory from allocate_host, whose pages may be dropped
  bool released_ = false;
};

// 64-byte-aligned host allocation, zero-filled; never returns null (throws std::bad_alloc). Pages are
// committed on first touch. See HostPages for how large allocations are mapped.
constexpr size_t kHugePageBytes = size_t{4} << 20;
std::shared_ptr<void> allocate_host(size_t bytes, HostPages pages = HostPages::normal);

// Copies src into dst elementwise with dtype conversion. Shapes must be equal (dims of src may have
// stride 0 to broadcast). Contiguous same-dtype copies are a memcpy, split over the thread pool when
// `parallel` and large: that wins when dst's pages are already mapped, and loses when dst is fresh
// (np.empty), where two threads faulting pages in contend in the kernel.
void copy_view(const ArrayView& dst, const ArrayView& src, bool parallel = false);

// Checks the copy rules the Python API promises: equal shapes (ValueError with both shapes) and
// numpy's same_kind casting (TypeError naming both dtypes). what names the operation for messages.
void check_copy_compatible(const ArrayView& dst, const ArrayView& src, const char* what);

// Byte offset of a full index, after bounds checks (IndexError naming the index and the shape).
int64_t element_offset(const ArrayView& view, const std::vector<int64_t>& index);

}  // namespace qd
