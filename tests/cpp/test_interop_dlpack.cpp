// tests/cpp/test_interop_dlpack.cpp: DLPack export/import round trips, ownership and deleters.
#include <gtest/gtest.h>

#include "quadrants/errors.h"
#include "quadrants/interop.h"

namespace qd {
namespace {

TEST(Dlpack, VersionedExportDescribesTheArray) {
  auto array = Array::create(DtypeCode::f32, {2}, {3});
  DLManagedTensorVersioned* managed = export_dlpack_versioned(*array);
  EXPECT_EQ(managed->version.major, 1u);
  EXPECT_EQ(managed->flags, 0u);
  EXPECT_EQ(managed->dl_tensor.data, array->view().data);
  EXPECT_EQ(managed->dl_tensor.ndim, 2);
  EXPECT_EQ(managed->dl_tensor.shape[1], 3);
  EXPECT_EQ(managed->dl_tensor.strides[0], 3);
  EXPECT_EQ(managed->dl_tensor.dtype.code, 2);
  EXPECT_EQ(managed->dl_tensor.device.device_type, kDLCPU);
  managed->deleter(managed);
}

TEST(Dlpack, ExportKeepsMemoryAliveAfterRelease) {
  auto array = Array::create(DtypeCode::i32, {4}, {});
  std::weak_ptr<void> memory = array->owner();
  DLManagedTensor* managed = export_dlpack_legacy(*array);
  array->release();
  array.reset();
  EXPECT_FALSE(memory.expired());
  static_cast<int32_t*>(managed->dl_tensor.data)[3] = 42;  // still valid memory
  managed->deleter(managed);
  EXPECT_TRUE(memory.expired());
}

TEST(Dlpack, RoundTripAliasesAndRunsDeleterOnce) {
  auto array = Array::create(DtypeCode::f64, {5}, {});
  auto imported = import_dlpack_versioned(export_dlpack_versioned(*array));
  EXPECT_EQ(imported->view().data, array->view().data);
  static_cast<double*>(imported->view().data)[2] = 3.5;
  EXPECT_EQ(static_cast<double*>(array->view().data)[2], 3.5);
  std::weak_ptr<void> memory = array->owner();
  array.reset();
  EXPECT_FALSE(memory.expired());
  imported.reset();
  EXPECT_TRUE(memory.expired());
}

struct ForeignTensor {
  static int deleted;
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
};
int ForeignTensor::deleted = 0;

DLManagedTensorVersioned* make_foreign(uint64_t flags, DLDataType dtype, int64_t* strides) {
  auto* owner = new ForeignTensor();
  auto* managed = new DLManagedTensorVersioned{};
  managed->version = {1, 1};
  managed->manager_ctx = owner;
  managed->deleter = [](DLManagedTensorVersioned* self) {
    delete static_cast<ForeignTensor*>(self->manager_ctx);
    delete self;
    ++ForeignTensor::deleted;
  };
  managed->flags = flags;
  managed->dl_tensor = {owner->data, {kDLCPU, 0}, 2, dtype, owner->shape, strides, 4};
  return managed;
}

TEST(Dlpack, ImportHonoursStridesOffsetAndReadOnly) {
  ForeignTensor::deleted = 0;
  int64_t transposed[2] = {1, 2};
  auto array = import_dlpack_versioned(make_foreign(DLPACK_FLAG_BITMASK_READ_ONLY, {2, 32, 1}, transposed));
  const ArrayView& view = array->view();
  EXPECT_FALSE(view.writable);
  EXPECT_FALSE(view.is_contiguous());
  EXPECT_EQ(*static_cast<float*>(view.data), 1.0f);  // byte_offset of 4 skips one float
  array.reset();
  EXPECT_EQ(ForeignTensor::deleted, 1);
}

TEST(Dlpack, RejectedImportStillRunsDeleter) {
  ForeignTensor::deleted = 0;
  EXPECT_THROW(import_dlpack_versioned(make_foreign(0, {5, 64, 1}, nullptr)), TypeError);
  EXPECT_EQ(ForeignTensor::deleted, 1);
  DLManagedTensorVersioned* future = make_foreign(0, {2, 32, 1}, nullptr);
  future->version.major = 2;
  EXPECT_THROW(import_dlpack_versioned(future), ValueError);
  EXPECT_EQ(ForeignTensor::deleted, 2);
}

}  // namespace
}  // namespace qd
