// src/ir/ir_parser.h: reads the text form of docs/IR.md into a Kernel.
#pragma once

#include <string_view>

#include "ir/ir.h"

namespace qd::ir {

// Throws qd::ValueError naming the line and column of malformed text.
Kernel parse_kernel(std::string_view text);

}  // namespace qd::ir
