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
  // Zero-filled, 64-byte-aligned CPU storage. huge_pages: see allocate_host (for dense storage that will be
  // written whole; not for sparse pools and lists, whose memory must follow their use page by page).
  static std::shared_ptr<Array> create(DtypeCode dtype, const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& element_shape, bool huge_pages = false);
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

 private:
  Array(const ArrayView& view, int element_ndim, std::shared_ptr<void> owner)
      : view_(view), element_ndim_(element_ndim), owner_(std::move(owner)) {}
  ArrayView view_;
  int element_ndim_ = 0;
  std::shared_ptr<void> owner_;
  bool released_ = false;
};

// 64-byte-aligned host allocation, zero-filled; never returns null (throws std::bad_alloc). Pages are
// committed on first touch. huge_pages: from kHugePageBytes on, the memory is 2 MiB-aligned and advised
// for transparent huge pages (as numpy does for its arrays from 4 MiB on): a 64 MiB copy out of it took
// 9.7 instead of 11.6 ms of CPU, but a page touched commits 2 MiB.
constexpr size_t kHugePageBytes = size_t{4} << 20;
std::shared_ptr<void> allocate_host(size_t bytes, bool huge_pages = false);

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
