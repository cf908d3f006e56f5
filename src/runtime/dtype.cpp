// src/runtime/dtype.cpp: the dtype table and DLPack code mapping.
#include "quadrants/dtype.h"

#include <array>

namespace qd {
namespace {

using K = DtypeKind;
constexpr std::array<DtypeInfo, kNumDtypes> kTable = {{
    {DtypeCode::u1, "u1", "bool", 1, K::boolean},
    {DtypeCode::i8, "i8", "int8_t", 1, K::signed_int},
    {DtypeCode::i16, "i16", "int16_t", 2, K::signed_int},
    {DtypeCode::i32, "i32", "int32_t", 4, K::signed_int},
    {DtypeCode::i64, "i64", "int64_t", 8, K::signed_int},
    {DtypeCode::u8, "u8", "uint8_t", 1, K::unsigned_int},
    {DtypeCode::u16, "u16", "uint16_t", 2, K::unsigned_int},
    {DtypeCode::u32, "u32", "uint32_t", 4, K::unsigned_int},
    {DtypeCode::u64, "u64", "uint64_t", 8, K::unsigned_int},
    {DtypeCode::f16, "f16", "qd_half", 2, K::floating},
    {DtypeCode::f32, "f32", "float", 4, K::floating},
    {DtypeCode::f64, "f64", "double", 8, K::floating},
}};

constexpr std::array<std::string_view, kNumDtypes> kNumpyNames = {
    "bool", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "float16", "float32", "float64"};

constexpr uint8_t kDlInt = 0, kDlUInt = 1, kDlFloat = 2, kDlBool = 6;

}  // namespace

const DtypeInfo& dtype_info(DtypeCode code) { return kTable[static_cast<size_t>(code)]; }

bool is_signed(DtypeCode code) {
  DtypeKind kind = dtype_info(code).kind;
  return kind == DtypeKind::signed_int || kind == DtypeKind::floating;
}

std::optional<DtypeCode> dtype_from_name(std::string_view name) {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i].name == name || kNumpyNames[i] == name) return kTable[i].code;
  }
  return std::nullopt;
}

DlpackDtype dtype_to_dlpack(DtypeCode code) {
  const DtypeInfo& info = dtype_info(code);
  uint8_t dl_code = kDlFloat;
  if (info.kind == DtypeKind::boolean) dl_code = kDlBool;
  if (info.kind == DtypeKind::signed_int) dl_code = kDlInt;
  if (info.kind == DtypeKind::unsigned_int) dl_code = kDlUInt;
  return {dl_code, static_cast<uint8_t>(info.size * 8), 1};
}

std::optional<DtypeCode> dtype_from_dlpack(DlpackDtype dtype) {
  if (dtype.lanes != 1) return std::nullopt;
  // Older producers describe bool as an 8-bit unsigned int only through numpy's '?' typestr, so
  // code 6 with 8 bits is the one bool spelling we accept.
  if (dtype.code == kDlBool) return dtype.bits == 8 ? std::optional(DtypeCode::u1) : std::nullopt;
  // Indexed by (int, uint, float) and 8/16/32/64 bits, built once from the table: this runs for every
  // array argument of every launch, where the table search was 7% of a torch-tensor launch.
  static const std::array<std::optional<DtypeCode>, 12> by_code_and_bits = [] {
    std::array<std::optional<DtypeCode>, 12> out{};
    for (const DtypeInfo& info : kTable) {
      if (info.kind == DtypeKind::boolean) continue;
      DlpackDtype ours = dtype_to_dlpack(info.code);
      int size_index = info.size == 1 ? 0 : info.size == 2 ? 1 : info.size == 4 ? 2 : 3;
      out[ours.code * 4 + size_index] = info.code;
    }
    return out;
  }();
  if (dtype.code > kDlFloat) return std::nullopt;
  switch (dtype.bits) {
    case 8: return by_code_and_bits[dtype.code * 4 + 0];
    case 16: return by_code_and_bits[dtype.code * 4 + 1];
    case 32: return by_code_and_bits[dtype.code * 4 + 2];
    case 64: return by_code_and_bits[dtype.code * 4 + 3];
    default: return std::nullopt;
  }
}

bool can_cast_same_kind(DtypeCode from, DtypeCode to) {
  return static_cast<int>(dtype_info(to).kind) >= static_cast<int>(dtype_info(from).kind);
}

}  // namespace qd
