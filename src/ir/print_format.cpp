// src/ir/print_format.cpp: parsing, checking and applying print items' format specs (print_format.h).
#include "ir/print_format.h"

#include <cctype>
#include <string_view>

namespace qd::ir {

namespace {

constexpr std::string_view kSigned = "di";
constexpr std::string_view kUnsigned = "ouxX";
constexpr std::string_view kReal = "fFeEaAgG";
constexpr std::string_view kRefused = "csnp";

bool in(std::string_view group, char c) { return c != 0 && group.find(c) != std::string_view::npos; }

// A type's conversion, precision and C type when the spec names none.
struct Default {
  char conversion;
  std::string precision, length, c_type;
};

Default default_of(DtypeCode t) {
  switch (t) {
    case DtypeCode::f16:
    case DtypeCode::f32: return {'f', "", "", "double"};
    case DtypeCode::f64: return {'f', ".12", "", "double"};
    case DtypeCode::i64: return {'d', "", "ll", "long long"};
    case DtypeCode::u64: return {'u', "", "ll", "unsigned long long"};
    case DtypeCode::u32: return {'u', "", "", "unsigned int"};
    default: return {'d', "", "", "int"};  // narrower ints and u1 print through int
  }
}

}  // namespace

std::optional<PrintSpec> parse_print_spec(const std::string& spec) {
  PrintSpec out;
  size_t i = 0;
  auto digits = [&](std::string& into) {
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) into += spec[i++];
  };
  while (i < spec.size() && std::string_view("-+ #0").find(spec[i]) != std::string_view::npos) out.flags += spec[i++];
  digits(out.width);
  if (i < spec.size() && spec[i] == '.') {
    out.precision = ".";
    ++i;
    digits(out.precision);
  }
  for (std::string_view length : {"hh", "ll", "h", "l", "j", "z", "t", "L"}) {
    if (spec.compare(i, length.size(), length) == 0) {
      out.length = length;
      i += length.size();
      break;
    }
  }
  if (i < spec.size() && std::string_view("csdioxXufFeEaAgGnp").find(spec[i]) != std::string_view::npos) {
    out.conversion = spec[i++];
  }
  if (i != spec.size()) return std::nullopt;
  return out;
}

std::string print_spec_error(const std::string& spec, DtypeCode t) {
  std::optional<PrintSpec> parsed = parse_print_spec(spec);
  if (!parsed) {
    return "'" + spec + "' is not a printf-style format spec ([flags][width][.precision][conversion], e.g. '.2f').";
  }
  char c = parsed->conversion;
  if (in(kRefused, c)) return std::string("conversion '") + c + "' is not supported.";
  bool fits = c == 0 || (in(kReal, c) && is_float(t)) || (in(kSigned, c) && is_integral(t) && is_signed(t)) ||
              (in(kUnsigned, c) && is_integral(t) && !is_signed(t));
  if (!fits) return "'" + spec + "' doesn't match '" + std::string(dtype_name(t)) + "'.";
  return "";
}

std::pair<std::string, std::string> print_conversion(const std::string& spec, DtypeCode t) {
  Default d = default_of(t);
  std::optional<PrintSpec> parsed = spec.empty() ? PrintSpec{} : parse_print_spec(spec);
  PrintSpec s = parsed ? *parsed : PrintSpec{};
  char conversion = s.conversion ? s.conversion : d.conversion;
  std::string c_type = d.c_type;
  // A conversion of the other integer group than the default's (x on a u8 printed through int): cast to match.
  if (in(kUnsigned, conversion) && in(kSigned, d.conversion)) c_type = "unsigned int";
  if (in(kSigned, conversion) && in(kUnsigned, d.conversion)) c_type = d.length == "ll" ? "long long" : "int";
  return {"%" + s.flags + s.width + (s.precision.empty() ? d.precision : s.precision) + d.length + conversion, c_type};
}

std::string assert_spec_error(const std::string& spec, DtypeCode t) {
  std::optional<PrintSpec> parsed = parse_print_spec(spec);
  if (!parsed) return print_spec_error(spec, t);
  char c = parsed->conversion;
  if (in(kRefused, c)) return std::string("conversion '") + c + "' is not supported.";
  if (in("oxX", c) && !is_integral(t)) {
    return "'" + spec + "' needs an integer, but the value is '" + std::string(dtype_name(t)) + "'.";
  }
  return "";
}

std::pair<std::string, std::string> assert_conversion(const std::string& spec, DtypeCode t) {
  Default d = default_of(t);
  std::optional<PrintSpec> parsed = spec.empty() ? PrintSpec{} : parse_print_spec(spec);
  PrintSpec s = parsed ? *parsed : PrintSpec{};
  char conversion = s.conversion ? s.conversion : d.conversion;
  std::string precision = s.precision.empty() && !s.conversion ? d.precision : s.precision;
  std::string head = "%" + s.flags + s.width + precision;
  if (in(kReal, conversion)) return {head + conversion, "double"};
  // u is Python's d; an unsigned value under d, i or u prints as unsigned, so a u64 above 2**63 keeps its
  // digits.
  bool is_unsigned = in("oxX", conversion) || (is_integral(t) && !is_signed(t));
  if (!is_unsigned) return {head + "ll" + (conversion == 'i' ? 'i' : 'd'), "long long"};
  return {head + "ll" + (in(kSigned, conversion) ? 'u' : conversion), "unsigned long long"};
}

}  // namespace qd::ir
