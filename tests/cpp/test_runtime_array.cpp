// tests/cpp/test_runtime_array.cpp: Array storage, alignment, strided copies with conversion, errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_views.h"
#include "quadrants/array.h"
#include "quadrants/errors.h"
#include "runtime/half.h"

namespace qd {
namespace {

using testing::array_and_scalar_args;
using testing::host_view;

TEST(Array, CreateIsAlignedZeroedAndAppendsElementDims) {
  auto array = Array::create(DtypeCode::f32, {4}, {3, 2});
  const ArrayView& view = array->view();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(view.data) % 64, 0u);
  ASSERT_EQ(view.ndim, 3);
  EXPECT_EQ(view.shape[1], 3);
  EXPECT_EQ(view.strides[0], 6);
  EXPECT_EQ(array->element_ndim(), 2);
  EXPECT_EQ(array->outer_ndim(), 1);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(static_cast<float*>(view.data)[i], 0.0f);
  EXPECT_TRUE(view.is_contiguous());
}

// The kB of the process's anonymous huge pages in [begin, begin + bytes) (/proc/self/smaps), or -1 without smaps.
long huge_page_kb(const void* begin, size_t bytes) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return -1;
  auto lo = reinterpret_cast<uintptr_t>(begin), hi = lo + bytes;
  long total = 0;
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 && line.find(':') > line.find(' ')) {
      inside = start < hi && end > lo;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      total += std::strtol(line.c_str() + 14, nullptr, 10);
    }
  }
  return total;
}

// The machine's transparent huge page mode: "always", "madvise", "never" (or "" when unknown).
std::string transparent_huge_pages() {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text((std::istreambuf_iterator<char>(setting)), std::istreambuf_iterator<char>());
  for (const char* mode : {"always", "madvise", "never"}) {
    if (text.find(std::string("[") + mode + "]") != std::string::npos) return mode;
  }
  return "";
}

TEST(Array, HugePageStorageIsAlignedZeroedAndBackedByHugePagesWhenWritten) {
  const int64_t n = (16 << 20) / 4;
  auto array = Array::create(DtypeCode::i32, {n}, {}, HostPages::huge);
  auto* data = static_cast<int32_t*>(array->view().data);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % (2 << 20), 0u);
  for (int64_t i = 0; i < n; i += 1021) ASSERT_EQ(data[i], 0);
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<int32_t>(i);
  EXPECT_EQ(data[n - 1], n - 1);
  std::string mode = transparent_huge_pages();
  if (mode != "always" && mode != "madvise") GTEST_SKIP() << "transparent huge pages are off on this machine";
  // The kernel may find no free huge page; any at all shows the advice took (16 MiB is 8 of them).
  EXPECT_GT(huge_page_kb(data, n * 4), 0) << "no huge pages behind the advised storage";
  if (mode != "madvise") return;
  auto plain = Array::create(DtypeCode::i32, {n}, {});  // the default: page by page, for sparse storage
  auto* plain_data = static_cast<int32_t*>(plain->view().data);
  for (int64_t i = 0; i < n; ++i) plain_data[i] = 1;
  EXPECT_EQ(huge_page_kb(plain_data, n * 4), 0);
}

TEST(Array, ZeroSizeAndZeroDim) {
  auto empty = Array::create(DtypeCode::i32, {0, 5}, {});
  EXPECT_EQ(empty->view().size(), 0);
  auto scalar = Array::create(DtypeCode::f64, {}, {});
  EXPECT_EQ(scalar->view().size(), 1);
  EXPECT_EQ(scalar->view().ndim, 0);
}

TEST(Array, RejectsNegativeAndTooManyDims) {
  EXPECT_THROW(Array::create(DtypeCode::f32, {-1}, {}), ValueError);
  EXPECT_NO_THROW(Array::create(DtypeCode::f32, std::vector<int64_t>(12, 1), {2, 2}));  // 12 + 2 = QD_MAX_NDIM
  EXPECT_THROW(Array::create(DtypeCode::f32, std::vector<int64_t>(13, 1), {2, 2}), ValueError);
}

TEST(Array, ReleaseMakesUseAClearError) {
  auto array = Array::create(DtypeCode::f32, {3}, {});
  array->release();
  EXPECT_TRUE(array->released());
  try {
    array->view();
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("qd.reset()"), std::string::npos);
  }
}

TEST(Array, ComponentIsAStridedViewSharingMemory) {
  auto array = Array::create(DtypeCode::f32, {4}, {3, 2});
  auto part = array->component({2, 1});
  const ArrayView& view = part->view();
  ASSERT_EQ(view.ndim, 1);
  EXPECT_EQ(part->element_ndim(), 0);
  EXPECT_EQ(view.shape[0], 4);
  EXPECT_EQ(view.strides[0], 6);
  EXPECT_FALSE(view.is_contiguous());
  EXPECT_EQ(static_cast<float*>(view.data), static_cast<float*>(array->view().data) + 5);
  EXPECT_EQ(part->owner(), array->owner());  // the view keeps the memory alive
  EXPECT_THROW(array->component({3, 0}), IndexError);
  EXPECT_THROW(array->component({0}), ValueError);
}

TEST(Array, PermutedReordersDimsOverTheSameMemory) {
  // A (2, 3) field of 4-vectors stored SOA and column-major: memory dims (4, 3, 2), canonical (2, 3, 4).
  auto memory = Array::create(DtypeCode::f32, {4, 3, 2}, {});
  auto field = memory->permuted({2, 1, 0}, 1);
  const ArrayView& view = field->view();
  ASSERT_EQ(view.ndim, 3);
  EXPECT_EQ(field->element_ndim(), 1);
  EXPECT_EQ(view.shape[0], 2);
  EXPECT_EQ(view.shape[2], 4);
  EXPECT_EQ(view.strides[0], 1);
  EXPECT_EQ(view.strides[1], 2);
  EXPECT_EQ(view.strides[2], 6);
  EXPECT_FALSE(view.is_contiguous());
  EXPECT_EQ(element_offset(view, {1, 2, 3}), (1 + 2 * 2 + 3 * 6) * 4);
  EXPECT_EQ(field->owner(), memory->owner());
  EXPECT_THROW(memory->permuted({0, 0, 1}, 0), ValueError);
  EXPECT_THROW(memory->permuted({0, 1}, 0), ValueError);
  EXPECT_THROW(memory->permuted({0, 1, 2}, 4), ValueError);
}

TEST(Array, ElementOffsetChecksBounds) {
  auto array = Array::create(DtypeCode::i16, {2, 3}, {});
  EXPECT_EQ(element_offset(array->view(), {1, 2}), (3 + 2) * 2);
  try {
    element_offset(array->view(), {2, 0});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "Index (2, 0) is out of bounds for shape (2, 3) (dimension 0 has extent 2).");
  }
  EXPECT_THROW(element_offset(array->view(), {0}), IndexError);
}

TEST(StridedCopy, TransposeWithConversion) {
  std::vector<double> src = {1, 2, 3, 4, 5, 6};  // 2x3 row-major
  std::vector<float> dst(6);
  // dst (3x2) = transpose(src): read src with strides (1, 3).
  copy_view(host_view(dst.data(), DtypeCode::f32, {3, 2}, {2, 1}),
            host_view(src.data(), DtypeCode::f64, {3, 2}, {1, 3}));
  EXPECT_EQ(dst, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(StridedCopy, NegativeStridesAndBroadcast) {
  std::vector<int32_t> src = {1, 2, 3, 4};
  std::vector<int64_t> dst(4);
  copy_view(host_view(dst.data(), DtypeCode::i64, {4}, {1}),
            host_view(src.data() + 3, DtypeCode::i32, {4}, {-1}));
  EXPECT_EQ(dst, (std::vector<int64_t>{4, 3, 2, 1}));
  int8_t one = 7;
  std::vector<int8_t> filled(6);
  copy_view(host_view(filled.data(), DtypeCode::i8, {2, 3}, {3, 1}),
            host_view(&one, DtypeCode::i8, {2, 3}, {0, 0}));
  EXPECT_EQ(filled, std::vector<int8_t>(6, 7));
}

TEST(StridedCopy, HalfAndBool) {
  std::vector<float> src = {0.5f, -2.0f, 65504.0f, 1e-7f};
  std::vector<uint16_t> half(4);
  copy_view(host_view(half.data(), DtypeCode::f16, {4}, {1}), host_view(src.data(), DtypeCode::f32, {4}, {1}));
  EXPECT_EQ(half[0], 0x3800);
  EXPECT_EQ(half[1], 0xc000);
  EXPECT_EQ(half[2], 0x7bff);
  EXPECT_EQ(half_to_float(Half{half[3]}), half_to_float(float_to_half(1e-7f)));
  std::vector<bool> ignored;
  bool flags[4];
  copy_view(host_view(flags, DtypeCode::u1, {4}, {1}), host_view(src.data(), DtypeCode::f32, {4}, {1}));
  EXPECT_TRUE(flags[0] && flags[1] && flags[2] && flags[3]);
}

// Sparse storage is reserved, not committed: a layout larger than the machine's memory (1 TiB) allocates,
// and its pages are mapped only where written.
TEST(Array, SparseStorageReservesMoreThanMemoryAndZeroesByDroppingPages) {
  const int64_t rows = 1024, row_elements = int64_t{1} << 28;  // 1024 rows of 1 GiB
  auto pool = Array::create(DtypeCode::i32, {rows, row_elements}, {}, HostPages::sparse);
  auto* data = static_cast<int32_t*>(pool->view().data);
  for (int64_t r : {0, 1, 2, 1023}) data[r * row_elements + 5] = static_cast<int32_t>(r + 1);
  pool->zero_outer(1, 3);
  EXPECT_EQ(data[5], 1);  // row 0 kept
  EXPECT_EQ(data[row_elements + 5], 0);
  EXPECT_EQ(data[2 * row_elements + 5], 0);
  EXPECT_EQ(data[1023 * row_elements + 5], 1024);
  EXPECT_THROW(pool->zero_outer(2, 1), IndexError);
  EXPECT_THROW(pool->zero_outer(0, rows + 1), IndexError);
}

// Rows that do not fill whole pages: the edges are written, the pages between them dropped, neighbours kept.
TEST(Array, ZeroOuterKeepsTheRowsAroundAPartialPageRange) {
  for (HostPages pages : {HostPages::normal, HostPages::sparse}) {
    auto array = Array::create(DtypeCode::i16, {3000, 3}, {}, pages);  // 6-byte rows straddle pages
    auto* data = static_cast<int16_t*>(array->view().data);
    for (int64_t i = 0; i < 9000; ++i) data[i] = 7;
    array->zero_outer(100, 2900);
    for (int64_t i = 0; i < 9000; ++i) ASSERT_EQ(data[i], i >= 300 && i < 8700 ? 0 : 7) << i;
  }
}

TEST(StridedCopy, CompatibilityErrorsNameShapesAndDtypes) {
  float a[4], b[6];
  try {
    check_copy_compatible(host_view(a, DtypeCode::f32, {4}, {1}), host_view(b, DtypeCode::f32, {2, 3}, {3, 1}),
                          "from_numpy");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "from_numpy: shape mismatch: the destination has shape (4,) but the source has shape (2, 3).");
  }
  try {
    check_copy_compatible(host_view(a, DtypeCode::i32, {4}, {1}), host_view(b, DtypeCode::f32, {4}, {1}), "x");
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot convert f32 data into a i32 array"), std::string::npos);
  }
}

}  // namespace
}  // namespace qd
