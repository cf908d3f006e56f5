// src/codegen/overflow_checks.cpp: debug mode's integer overflow reports (see overflow_checks.h).
#include "codegen/overflow_checks.h"

#include <cstdio>

namespace qd::codegen {

using namespace qd::ir;

namespace {

// Quotes, backslashes, control and non-ASCII bytes escaped; an octal escape ends after three
// digits, so the character after one never extends it.
std::string c_string_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char escape[5];
      std::snprintf(escape, sizeof escape, "\\%03o", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string source_where(const Kernel& kernel, const SourceLoc& loc) {
  const std::string line = std::to_string(loc.line);
  auto found = kernel.options.source_lines.find(loc.line);
  if (found == kernel.options.source_lines.end()) {  // IR not written by the frontend's debug mode
    const std::string& file = kernel.options.source_file;
    return "File \"" + (file.empty() ? "<kernel " + kernel.name + ">" : file) + "\", line " + line + ", in " +
           kernel.name + "\n";
  }
  const SourceLine& source = found->second;
  return "File \"" + source.file + "\", line " + line + ", in " + source.function + ":\n" + source.text + "\n";
}

}  // namespace

const char* overflow_check(const Binary& b, const SourceLoc& loc, IntRanges& ranges) {
  DtypeCode t = *b.type;
  if (loc.line <= 0 || is_float(t) || t == DtypeCode::u1) return nullptr;
  switch (b.op) {
    case BinOp::add: return ranges.may_overflow(b.op, b.a, b.b, t) ? "qd_checked_add" : nullptr;
    case BinOp::sub: return ranges.may_overflow(b.op, b.a, b.b, t) ? "qd_checked_sub" : nullptr;
    case BinOp::mul: return ranges.may_overflow(b.op, b.a, b.b, t) ? "qd_checked_mul" : nullptr;
    case BinOp::shl: return "qd_checked_shl";
    default: return nullptr;
  }
}

std::string source_where_literal(const Kernel& kernel, const SourceLoc& loc) {
  return c_string_literal(source_where(kernel, loc));
}

}  // namespace qd::codegen
