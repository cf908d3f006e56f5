// include/quadrants/dtype.h: the scalar element types of arrays and kernels, with DLPack codes both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qd {

// Order is part of the ABI of specialization keys; append only.
enum class DtypeCode : uint8_t { u1, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64 };
inline constexpr int kNumDtypes = 12;

enum class DtypeKind : uint8_t { boolean, unsigned_int, signed_int, floating };

// DLPack's DLDataType, repeated here so this header stands alone (same layout as dlpack.h).
struct DlpackDtype {
  uint8_t code;  // 0 int, 1 uint, 2 float, 6 bool
  uint8_t bits;
  uint16_t lanes;
};

struct DtypeInfo {
  DtypeCode code;
  std::string_view name;  // "f32", the name users write as qd.f32
  std::string_view c_type;  // the type generated code uses
  int size;               // bytes
  DtypeKind kind;
};

const DtypeInfo& dtype_info(DtypeCode code);
inline std::string_view dtype_name(DtypeCode code) { return dtype_info(code).name; }
inline int dtype_size(DtypeCode code) { return dtype_info(code).size; }
inline bool is_float(DtypeCode code) { return dtype_info(code).kind == DtypeKind::floating; }
inline bool is_integral(DtypeCode code) { return !is_float(code); }
bool is_signed(DtypeCode code);

// Accepts our names ("f32", "u1") and numpy-style names ("float32", "bool").
std::optional<DtypeCode> dtype_from_name(std::string_view name);

DlpackDtype dtype_to_dlpack(DtypeCode code);
std::optional<DtypeCode> dtype_from_dlpack(DlpackDtype dtype);

// numpy's casting='same_kind': bool < unsigned < signed < float, and a cast may not go down a kind.
bool can_cast_same_kind(DtypeCode from, DtypeCode to);

}  // namespace qd
