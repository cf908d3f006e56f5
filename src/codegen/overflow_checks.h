// src/codegen/overflow_checks.h: debug mode's integer overflow reports (upstream's "Addition overflow detected").
//
// In debug mode an integer add, sub, mul or shl that may leave its type's range is rendered through
// qd_runtime.h's qd_checked_* helpers: they print upstream's message with where the statement comes
// from, then return the wrapped value that release mode computes. Release code is never touched.
#pragma once

#include <string>

#include "codegen/int_ranges.h"
#include "ir/ir.h"

namespace qd::codegen {

// The qd_checked_* helper for `b` in a statement at `loc` (called as HELPER<T>(a, b, where)); nullptr
// where nothing is checked: floats, u1, other operators, sums, differences and products the ranges keep
// in the type, and statements without a location. Those are the frontend's or a pass's own, not
// arithmetic the user wrote, and may wrap on purpose (qd.random's stream keys hash the loop indices).
const char* overflow_check(const ir::Binary& b, const ir::SourceLoc& loc, IntRanges& ranges);

// A C string literal saying where the statement at `loc` comes from, as upstream's messages do:
// `File "F", line N, in FUNC:` and the source line (kernel options' source_lines), each ending a line.
std::string source_where_literal(const ir::Kernel& kernel, const ir::SourceLoc& loc);

}  // namespace qd::codegen
