// src/ir/print_format.h: the format spec a print item may carry (`(fmt "SPEC" EXPR)` in the IR): a printf
// conversion without its '%', as upstream's kernels take it from f"{x:.2f}" or "{:.2f}".format(x).
//
// SPEC is [flags][width][.precision][length][conversion], e.g. ".2f", "-+10e", ".10d", ".2". The length
// is ignored (each value prints at its own width); a conversion must suit the value's type: d and i a
// signed integer, o u x X an unsigned one, f F e E a A g G a float; c s n p are refused. What the spec
// leaves out comes from the type's default (print_default_format).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "quadrants/dtype.h"

namespace qd::ir {

struct PrintSpec {
  std::string flags, width, precision, length;
  char conversion = 0;  // 0: none given
};

// nullopt when `spec` is not of the printf form above.
std::optional<PrintSpec> parse_print_spec(const std::string& spec);

// Why `spec` cannot format a value of type t ("'.2d' doesn't match 'f32'."), or "" when it can.
std::string print_spec_error(const std::string& spec, DtypeCode t);

// The printf conversion (with '%') and the C type to cast the value to, for type t under `spec` ("" for
// the type's default: %d, %u, %lld, %llu, %f, and %.12f for f64).
std::pair<std::string, std::string> print_conversion(const std::string& spec, DtypeCode t);

// An assert message's values are formatted as Python's `%` formats them: the conversion, not the value's
// type, decides (%d of a float truncates it, %f of an int widens it); o x X still need an integer.
// Why `spec` cannot format such a value of type t, or "" when it can.
std::string assert_spec_error(const std::string& spec, DtypeCode t);

// The printf conversion (with '%') that formats the value on the host, and the 64-bit C type the kernel
// converts it to before storing its bits in the error record: "long long" for d and i, "unsigned long
// long" for u o x X, "double" for the float conversions. The letter alone tells the host which it is.
std::pair<std::string, std::string> assert_conversion(const std::string& spec, DtypeCode t);

}  // namespace qd::ir
