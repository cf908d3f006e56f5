// tests/cpp/test_runtime_dtype.cpp: the dtype table, names and DLPack codes both ways.
#include <gtest/gtest.h>

#include "quadrants/dtype.h"

namespace qd {
namespace {

TEST(Dtype, TableIsConsistent) {
  for (int i = 0; i < kNumDtypes; ++i) {
    auto code = static_cast<DtypeCode>(i);
    const DtypeInfo& info = dtype_info(code);
    EXPECT_EQ(info.code, code);
    EXPECT_EQ(dtype_from_name(info.name), code) << info.name;
    EXPECT_EQ(dtype_from_dlpack(dtype_to_dlpack(code)), code) << info.name;
  }
}

TEST(Dtype, SizesAndNames) {
  EXPECT_EQ(dtype_size(DtypeCode::u1), 1);
  EXPECT_EQ(dtype_size(DtypeCode::f16), 2);
  EXPECT_EQ(dtype_size(DtypeCode::i64), 8);
  EXPECT_EQ(dtype_from_name("float32"), DtypeCode::f32);
  EXPECT_EQ(dtype_from_name("bool"), DtypeCode::u1);
  EXPECT_FALSE(dtype_from_name("complex64").has_value());
}

TEST(Dtype, DlpackCodes) {
  EXPECT_EQ(dtype_to_dlpack(DtypeCode::f32).code, 2);
  EXPECT_EQ(dtype_to_dlpack(DtypeCode::f32).bits, 32);
  EXPECT_EQ(dtype_to_dlpack(DtypeCode::u1).code, 6);
  EXPECT_EQ(dtype_to_dlpack(DtypeCode::u16).code, 1);
  EXPECT_FALSE(dtype_from_dlpack({2, 32, 4}).has_value());  // vector lanes
  EXPECT_FALSE(dtype_from_dlpack({5, 64, 1}).has_value());  // complex
  EXPECT_FALSE(dtype_from_dlpack({4, 16, 1}).has_value());  // bfloat16
}

TEST(Dtype, SameKindCasting) {
  EXPECT_TRUE(can_cast_same_kind(DtypeCode::f64, DtypeCode::f32));
  EXPECT_TRUE(can_cast_same_kind(DtypeCode::i64, DtypeCode::i8));
  EXPECT_TRUE(can_cast_same_kind(DtypeCode::u8, DtypeCode::i32));
  EXPECT_TRUE(can_cast_same_kind(DtypeCode::u1, DtypeCode::f16));
  EXPECT_FALSE(can_cast_same_kind(DtypeCode::f32, DtypeCode::i32));
  EXPECT_FALSE(can_cast_same_kind(DtypeCode::i32, DtypeCode::u32));
  EXPECT_FALSE(can_cast_same_kind(DtypeCode::i8, DtypeCode::u1));
}

}  // namespace
}  // namespace qd
