// src/runtime/array.cpp: Array storage, views, host allocation and index checks.
#include "quadrants/array.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "quadrants/errors.h"
#include "runtime/launch.h"

namespace qd {
namespace {

std::string shape_text(const int64_t* shape, int ndim) {
  std::ostringstream out;
  out << "(";
  for (int i = 0; i < ndim; ++i) out << (i ? ", " : "") << shape[i];
  out << (ndim == 1 ? ",)" : ")");
  return out.str();
}

}  // namespace

int64_t ArrayView::size() const {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

bool ArrayView::is_contiguous() const {
  int64_t expected = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

void fill_contiguous_strides(ArrayView& view) {
  int64_t stride = 1;
  for (int i = view.ndim - 1; i >= 0; --i) {
    view.strides[i] = stride;
    stride *= view.shape[i];
  }
}

// Large storage as an anonymous mapping (zero-filled, committed on touch), trimmed to 2 MiB alignment.
// huge: advised MADV_HUGEPAGE (a refused advice only costs the speed). sparse: MAP_NORESERVE, so that a pool
// laid out at its worst case takes address space, not commit charge. Null where mmap fails.
static std::shared_ptr<void> map_pages(size_t bytes, HostPages pages) {
  constexpr size_t kHuge = size_t{2} << 20;
  size_t length = (bytes + kHuge - 1) / kHuge * kHuge;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (pages == HostPages::sparse ? MAP_NORESERVE : 0);
  void* raw = ::mmap(nullptr, length + kHuge, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHuge - 1) & ~uintptr_t(kHuge - 1);
  if (aligned > start) ::munmap(raw, aligned - start);  // the unaligned head and tail are given back
  if (uintptr_t tail = start + length + kHuge - (aligned + length)) {
    ::munmap(reinterpret_cast<void*>(aligned + length), tail);
  }
#ifdef MADV_HUGEPAGE
  if (pages == HostPages::huge) ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
#endif
#ifdef MADV_NOHUGEPAGE
  // Sparse storage commits page by page as cells are used: where transparent huge pages are always on, a first
  // write would otherwise commit 2 MiB at once.
  if (pages == HostPages::sparse) ::madvise(reinterpret_cast<void*>(aligned), length, MADV_NOHUGEPAGE);
#endif
  return std::shared_ptr<void>(reinterpret_cast<void*>(aligned), [length](void* p) { ::munmap(p, length); });
}

std::shared_ptr<void> allocate_host(size_t bytes, HostPages pages) {
  if (pages != HostPages::normal && bytes >= kHugePageBytes) {
    if (std::shared_ptr<void> mapped = map_pages(bytes, pages)) return mapped;
    if (pages == HostPages::sparse) throw std::bad_alloc();  // no address space left: calloc would fail too
  }
  // calloc hands large requests fresh zero pages from mmap without touching them, where
  // aligned_alloc + memset would write every page once before the user's first write. calloc only
  // promises 16-byte alignment, so allocate 64 more bytes and align inside the block.
  void* block = std::calloc(bytes + 64, 1);
  if (!block) throw std::bad_alloc();
  auto aligned = (reinterpret_cast<uintptr_t>(block) + 63) & ~uintptr_t(63);
  return std::shared_ptr<void>(reinterpret_cast<void*>(aligned), [block](void*) { std::free(block); });
}

ArrayView new_array_view(DtypeCode dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& element_shape,
                         size_t* bytes) {
  ArrayView view;
  view.dtype = dtype;
  view.ndim = static_cast<int>(shape.size() + element_shape.size());
  if (view.ndim > QD_MAX_NDIM) {
    throw ValueError("An array may have at most " + std::to_string(QD_MAX_NDIM) +
                     " dimensions including element dimensions, but " + std::to_string(view.ndim) +
                     " were requested.");
  }
  int i = 0;
  for (int64_t extent : shape) view.shape[i++] = extent;
  for (int64_t extent : element_shape) view.shape[i++] = extent;
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] < 0) {
      throw ValueError("Array dimensions must be non-negative, but the shape given was " +
                       shape_text(view.shape, view.ndim) + ".");
    }
  }
  fill_contiguous_strides(view);
  int64_t total = dtype_size(dtype);
  for (int d = 0; d < view.ndim; ++d) {
    if (__builtin_mul_overflow(total, view.shape[d], &total) || total > (int64_t(1) << 62)) {
      throw ValueError("An array of shape " + shape_text(view.shape, view.ndim) + " and dtype " +
                       std::string(dtype_name(dtype)) + " is too large to address.");
    }
  }
  *bytes = static_cast<size_t>(total);
  return view;
}

std::shared_ptr<Array> Array::create(DtypeCode dtype, const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& element_shape, HostPages pages) {
  size_t bytes = 0;
  ArrayView view = new_array_view(dtype, shape, element_shape, &bytes);
  std::shared_ptr<void> owner = allocate_host(bytes, pages);
  view.data = owner.get();
  return std::shared_ptr<Array>(
      new Array(view, static_cast<int>(element_shape.size()), std::move(owner), /*anonymous=*/true));
}

std::shared_ptr<Array> Array::wrap(const ArrayView& view, int element_ndim, std::shared_ptr<void> owner) {
  QD_ASSERT(element_ndim <= view.ndim, "Array::wrap(): more element dims than dims");
  return std::shared_ptr<Array>(new Array(view, element_ndim, std::move(owner)));
}

std::shared_ptr<Array> Array::component(const std::vector<int64_t>& element_index) const {
  const ArrayView& whole = view();
  if (static_cast<int>(element_index.size()) != element_ndim_) {
    throw ValueError("component(): expected " + std::to_string(element_ndim_) + " element index(es), got " +
                                std::to_string(element_index.size()) + ".");
  }
  ArrayView part = whole;
  part.ndim = outer_ndim();
  int64_t offset = 0;
  for (int d = 0; d < element_ndim_; ++d) {
    int64_t extent = whole.shape[part.ndim + d];
    if (element_index[d] < 0 || element_index[d] >= extent) {
      throw IndexError("component(): element index " + std::to_string(element_index[d]) +
                              " is out of range for an element dim of " + std::to_string(extent) + ".");
    }
    offset += element_index[d] * whole.strides[part.ndim + d];
  }
  for (int d = part.ndim; d < QD_MAX_NDIM; ++d) part.shape[d] = part.strides[d] = 0;
  part.data = static_cast<char*>(whole.data) + offset * dtype_size(whole.dtype);
  return wrap(part, 0, owner_);
}

std::shared_ptr<Array> Array::permuted(const std::vector<int64_t>& axes, int element_ndim) const {
  const ArrayView& whole = view();
  std::vector<bool> seen(whole.ndim, false);
  bool valid = static_cast<int>(axes.size()) == whole.ndim && element_ndim >= 0 && element_ndim <= whole.ndim;
  for (size_t d = 0; valid && d < axes.size(); ++d) {
    valid = axes[d] >= 0 && axes[d] < whole.ndim && !seen[axes[d]];
    if (valid) seen[axes[d]] = true;
  }
  if (!valid) {
    throw ValueError("permuted(): expected a permutation of the " + std::to_string(whole.ndim) +
                     " dims and at most that many element dims, but got " + std::to_string(axes.size()) +
                     " axes and " + std::to_string(element_ndim) + " element dims.");
  }
  ArrayView part = whole;
  for (int d = 0; d < whole.ndim; ++d) {
    part.shape[d] = whole.shape[axes[d]];
    part.strides[d] = whole.strides[axes[d]];
  }
  return wrap(part, element_ndim, owner_);
}

const ArrayView& Array::view() const {
  if (released_) {
    throw std::runtime_error(
        "This quadrants array was freed by qd.reset(); create it again after qd.init().");
  }
  return view_;
}

const std::shared_ptr<void>& Array::owner() const {
  view();  // the released check
  return owner_;
}

void Array::release() {
  std::unique_lock<std::shared_mutex> no_kernel_running(launch_gate());  // a running kernel may use it
  owner_.reset();
  view_.data = nullptr;
  released_ = true;
}

void Array::zero_outer(int64_t begin, int64_t end) {
  const ArrayView& whole = view();
  if (whole.device.kind != DeviceId::Kind::cpu || !whole.is_contiguous() || whole.ndim == 0) {
    throw ValueError("zero_outer() needs a C-contiguous CPU array with at least one dimension.");
  }
  if (begin < 0 || begin > end || end > whole.shape[0]) {
    throw IndexError("zero_outer(" + std::to_string(begin) + ", " + std::to_string(end) + "): the rows must lie in [0, " +
                     std::to_string(whole.shape[0]) + "].");
  }
  size_t row = static_cast<size_t>(whole.shape[0] ? whole.size() / whole.shape[0] : 0) * dtype_size(whole.dtype);
  auto* first = static_cast<char*>(whole.data) + static_cast<size_t>(begin) * row;
  size_t bytes = static_cast<size_t>(end - begin) * row;
  auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t inner_begin = (reinterpret_cast<uintptr_t>(first) + page - 1) & ~(page - 1);
  uintptr_t inner_end = (reinterpret_cast<uintptr_t>(first) + bytes) & ~(page - 1);
  // Only whole pages of our own private anonymous memory may be dropped: MADV_DONTNEED makes them read as
  // zeros. Wrapped (foreign) memory and the partial pages at the edges are written instead.
  if (anonymous_ && inner_end > inner_begin &&
      ::madvise(reinterpret_cast<void*>(inner_begin), inner_end - inner_begin, MADV_DONTNEED) == 0) {
    std::memset(first, 0, inner_begin - reinterpret_cast<uintptr_t>(first));
    std::memset(reinterpret_cast<void*>(inner_end), 0, reinterpret_cast<uintptr_t>(first) + bytes - inner_end);
    return;
  }
  std::memset(first, 0, bytes);
}

int64_t element_offset(const ArrayView& view, const std::vector<int64_t>& index) {
  if (static_cast<int>(index.size()) != view.ndim) {
    throw IndexError("Expected " + std::to_string(view.ndim) + " indices for an array of shape " +
                     shape_text(view.shape, view.ndim) + ", but got " + std::to_string(index.size()) + ".");
  }
  int64_t offset = 0;
  for (int d = 0; d < view.ndim; ++d) {
    int64_t i = index[d];
    if (i < 0 || i >= view.shape[d]) {  // an AssertionError too, as upstream raises in Python scope
      throw OutOfBoundError("Index " + shape_text(index.data(), view.ndim) + " is out of bounds for shape " +
                       shape_text(view.shape, view.ndim) + " (dimension " + std::to_string(d) +
                       " has extent " + std::to_string(view.shape[d]) + ").");
    }
    offset += i * view.strides[d];
  }
  return offset * dtype_size(view.dtype);
}

void check_copy_compatible(const ArrayView& dst, const ArrayView& src, const char* what) {
  bool same = dst.ndim == src.ndim;
  for (int d = 0; same && d < dst.ndim; ++d) same = dst.shape[d] == src.shape[d];
  if (!same) {
    throw ValueError(std::string(what) + ": shape mismatch: the destination has shape " +
                     shape_text(dst.shape, dst.ndim) + " but the source has shape " +
                     shape_text(src.shape, src.ndim) + ".");
  }
  if (!can_cast_same_kind(src.dtype, dst.dtype)) {
    throw TypeError(std::string(what) + ": cannot convert " + std::string(dtype_name(src.dtype)) +
                    " data into a " + std::string(dtype_name(dst.dtype)) +
                    " array without losing its kind (numpy's casting='same_kind'); convert it "
                    "explicitly first, e.g. arr.astype(...).");
  }
  if (!dst.writable) throw ValueError(std::string(what) + ": the destination is read-only.");
}

}  // namespace qd
