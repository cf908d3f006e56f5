// src/runtime/strided_copy.cpp: elementwise copy between strided views with dtype conversion.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "quadrants/array.h"
#include "quadrants/errors.h"
#include "quadrants/thread_pool.h"
#include "runtime/half.h"

namespace qd {
namespace {

// Converted through float for f16 (f64 -> f16 in one rounding) and through a bool test for u1, as numpy does.
template <typename To, typename From>
inline To convert(From value) {
  if constexpr (std::is_same_v<From, Half>) {
    return convert<To>(half_to_float(value));
  } else if constexpr (std::is_same_v<To, Half> && std::is_same_v<From, double>) {
    return double_to_half(value);
  } else if constexpr (std::is_same_v<To, Half>) {
    return float_to_half(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else {
    return static_cast<To>(value);
  }
}

// A copy problem with dims merged where memory allows, innermost dim last.
struct Plan {
  int ndim = 0;
  int64_t shape[QD_MAX_NDIM];
  int64_t dst_strides[QD_MAX_NDIM];
  int64_t src_strides[QD_MAX_NDIM];
};

Plan make_plan(const ArrayView& dst, const ArrayView& src) {
  Plan plan;
  for (int d = 0; d < dst.ndim; ++d) {
    if (dst.shape[d] == 1) continue;  // size-1 dims carry no information
    int last = plan.ndim - 1;
    bool mergeable = last >= 0 && plan.dst_strides[last] == dst.strides[d] * dst.shape[d] &&
                     plan.src_strides[last] == src.strides[d] * dst.shape[d];
    if (mergeable) {
      plan.shape[last] *= dst.shape[d];
      plan.dst_strides[last] = dst.strides[d];
      plan.src_strides[last] = src.strides[d];
    } else {
      plan.shape[plan.ndim] = dst.shape[d];
      plan.dst_strides[plan.ndim] = dst.strides[d];
      plan.src_strides[plan.ndim] = src.strides[d];
      ++plan.ndim;
    }
  }
  if (plan.ndim == 0) {  // a single element
    plan.ndim = 1;
    plan.shape[0] = 1;
    plan.dst_strides[0] = plan.src_strides[0] = 1;
  }
  return plan;
}

template <typename To, typename From>
void copy_typed(const Plan& plan, To* dst, const From* src) {
  int inner = plan.ndim - 1;
  int64_t n = plan.shape[inner], ds = plan.dst_strides[inner], ss = plan.src_strides[inner];
  int64_t outer_count = 1;
  for (int d = 0; d < inner; ++d) outer_count *= plan.shape[d];
  int64_t index[QD_MAX_NDIM] = {};
  for (int64_t row = 0; row < outer_count; ++row) {
    int64_t dst_off = 0, src_off = 0;
    for (int d = 0; d < inner; ++d) {
      dst_off += index[d] * plan.dst_strides[d];
      src_off += index[d] * plan.src_strides[d];
    }
    To* out = dst + dst_off;
    const From* in = src + src_off;
    if (ds == 1 && ss == 0) {  // one value broadcast into a contiguous row (fill()): a memset-speed store
      std::fill_n(out, n, convert<To>(*in));
    } else if (ds == 1 && ss == 1) {
      for (int64_t i = 0; i < n; ++i) out[i] = convert<To>(in[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i * ds] = convert<To>(in[i * ss]);
    }
    for (int d = inner - 1; d >= 0 && ++index[d] == plan.shape[d]; --d) index[d] = 0;
  }
}

template <typename F>
void dispatch_dtype(DtypeCode code, F&& f) {
  switch (code) {
    case DtypeCode::u1: return f(bool{});
    case DtypeCode::i8: return f(int8_t{});
    case DtypeCode::i16: return f(int16_t{});
    case DtypeCode::i32: return f(int32_t{});
    case DtypeCode::i64: return f(int64_t{});
    case DtypeCode::u8: return f(uint8_t{});
    case DtypeCode::u16: return f(uint16_t{});
    case DtypeCode::u32: return f(uint32_t{});
    case DtypeCode::u64: return f(uint64_t{});
    case DtypeCode::f16: return f(Half{});
    case DtypeCode::f32: return f(float{});
    case DtypeCode::f64: return f(double{});
  }
  QD_ASSERT(false, "dispatch_dtype(): unknown dtype");
}

struct BlockCopy {
  char* dst;
  const char* src;
  int64_t bytes;
};

constexpr int64_t kCopyBlock = int64_t(1) << 20;

void copy_blocks(void* closure, int64_t begin, int64_t end) {
  auto* job = static_cast<BlockCopy*>(closure);
  int64_t first = begin * kCopyBlock, last = std::min(job->bytes, end * kCopyBlock);
  std::memcpy(job->dst + first, job->src + first, static_cast<size_t>(last - first));
}

// Copies of 16 MiB and more may be split over the thread pool, as torch does: one core does not
// saturate memory bandwidth. Overlapping ranges take memmove on the calling thread.
void copy_bytes(void* dst, const void* src, int64_t bytes, bool parallel) {
  const char* d = static_cast<const char*>(dst);
  const char* s = static_cast<const char*>(src);
  bool overlap = d < s + bytes && s < d + bytes;
  if (overlap) {
    std::memmove(dst, src, static_cast<size_t>(bytes));
    return;
  }
  if (!parallel || bytes < 16 * kCopyBlock || default_thread_pool().num_threads() == 1) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  BlockCopy job{static_cast<char*>(dst), s, bytes};
  default_thread_pool().parallel_for((bytes + kCopyBlock - 1) / kCopyBlock, 4, false, &copy_blocks, &job);
}

// The [first, last) bytes a view can touch.
std::pair<const char*, const char*> byte_range(const ArrayView& view) {
  const char* base = static_cast<const char*>(view.data);
  int64_t low = 0, high = 0;
  for (int d = 0; d < view.ndim; ++d) {
    int64_t reach = (view.shape[d] - 1) * view.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  int64_t size = dtype_size(view.dtype);
  return {base + low * size, base + (high + 1) * size};
}

bool overlaps(const ArrayView& a, const ArrayView& b) {
  auto [a_first, a_last] = byte_range(a);
  auto [b_first, b_last] = byte_range(b);
  return a_first < b_last && b_first < a_last;
}

}  // namespace

void copy_view(const ArrayView& dst, const ArrayView& src, bool parallel) {
  QD_ASSERT(dst.ndim == src.ndim, "copy_view(): rank mismatch");
  QD_ASSERT(dst.device.kind == DeviceId::Kind::cpu && src.device.kind == DeviceId::Kind::cpu,
            "copy_view(): only host memory can be copied here");
  int64_t n = dst.size();
  if (n == 0) return;
  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    copy_bytes(dst.data, src.data, n * dtype_size(dst.dtype), parallel);
    return;
  }
  if (overlaps(dst, src)) {  // e.g. x.from_numpy(view of x reversed): read everything before writing
    std::shared_ptr<void> staging = allocate_host(static_cast<size_t>(n) * dtype_size(src.dtype));
    ArrayView copy = src;
    copy.data = staging.get();
    fill_contiguous_strides(copy);
    copy_view(copy, src);
    copy_view(dst, copy);
    return;
  }
  Plan plan = make_plan(dst, src);
  dispatch_dtype(dst.dtype, [&](auto to_tag) {
    using To = decltype(to_tag);
    dispatch_dtype(src.dtype, [&](auto from_tag) {
      using From = decltype(from_tag);
      copy_typed(plan, static_cast<To*>(dst.data), static_cast<const From*>(src.data));
    });
  });
}

}  // namespace qd
