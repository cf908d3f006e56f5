// src/ir/ir_printer.h: writes the IR in the text form of docs/IR.md (what parse_kernel reads back).
#pragma once

#include <string>

#include "ir/ir.h"

namespace qd::ir {

std::string print_kernel(const Kernel& kernel);
std::string print_expr(const Expr& expr);
// One statement, its nested blocks indented by two spaces more than `indent`.
std::string print_statement(const Stmt& stmt, const std::string& indent = "");
// A number's shortest text that reads back to the same double; always has a '.', an exponent, inf or nan.
std::string format_float(double value);

}  // namespace qd::ir
