// src/codegen/cstyle_simt.cpp: the target-independent part of qd.simt code: shared array accesses.
#include "codegen/cstyle_renderer.h"
#include "ir/ir_mutator.h"
#include "quadrants/errors.h"

namespace qd::codegen {
namespace {

using namespace qd::ir;

class SharedDecls : public IRVisitor {
 public:
  const SimtStmt* found = nullptr;
  std::string name;

 private:
  void visit_simt_stmt(const SimtStmt& s) override {
    if (s.op == SimtStmtOp::shared_decl && s.shared == name) found = &s;
  }
};

}  // namespace

const SimtStmt* CStyleRenderer::shared_decl(const std::string& name) {
  SharedDecls finder;
  finder.name = name;
  finder.visit(kernel_.body);
  QD_ASSERT(finder.found, "codegen: undeclared shared array " + name);
  return finder.found;
}

// Row-major over the constant extents. In release mode an index outside its extent is clamped into
// it, so a wrong index reads or writes another element of the same shared array, never other memory;
// in debug or bounds mode it is reported (error code 6, an IndexError) and the access does not happen.
std::string CStyleRenderer::shared_offset(const std::string& name, const std::vector<Expr>& indices) {
  const SimtStmt& decl = *shared_decl(name);
  if (kernel_.options.checks_bounds()) {
    auto [it, added] = shared_messages_.emplace(name, static_cast<int>(assert_messages_.size()));
    std::string shape, list, extents;
    for (size_t d = 0; d < decl.shape.size(); ++d) {
      shape += (d ? ", " : "") + std::to_string(decl.shape[d]);
      list += (d ? ", " : "") + std::string("(int64_t)(") + expr(indices[d]) + ")";
      extents += (d ? ", " : "") + std::to_string(decl.shape[d]);
    }
    if (added) {
      std::string close = decl.shape.size() == 1 ? ",)" : ")";
      assert_messages_.push_back("a qd.simt.block.SharedArray of shape (" + shape + close);
    }
    return "qd_shared_checked_offset<" + std::to_string(decl.shape.size()) + ">(ctx, " + std::to_string(it->second) +
           ", {" + list + "}, {" + extents + "})";
  }
  std::string offset;
  for (size_t d = 0; d < decl.shape.size(); ++d) {
    std::string extent = std::to_string(decl.shape[d]);
    std::string index = "qd_clamp_index((int64_t)(" + expr(indices[d]) + "), (int64_t)" + extent + ")";
    offset = d == 0 ? index : "(" + offset + ") * " + extent + " + " + index;
  }
  return offset;
}

std::string CStyleRenderer::simt(const Simt& e) {
  bool checked = kernel_.options.checks_bounds();
  if (e.op == SimtOp::shared_load) {
    std::string offset = shared_offset(e.shared, e.args);
    return checked ? "qd_load_checked(s_" + e.shared + ", " + offset + ")" : "s_" + e.shared + "[" + offset + "]";
  }
  if (e.op != SimtOp::shared_atomic) return simt_op(e);
  std::vector<Expr> indices(e.args.begin(), e.args.end() - 1);
  std::string offset = shared_offset(e.shared, indices);
  std::string target =
      checked ? "qd_checked_ptr(s_" + e.shared + ", " + offset + ")" : "&s_" + e.shared + "[" + offset + "]";
  return "qd_atomic_" + std::string(atomic_op_name(e.atomic_op)) + "(" + target + ", " + expr(e.args.back()) + ")";
}

void CStyleRenderer::emit_shared_store(const SimtStmt& s) {
  std::vector<Expr> indices(s.args.begin(), s.args.end() - 1);
  std::string offset = shared_offset(s.shared, indices), value = expr(s.args.back());
  if (kernel_.options.checks_bounds()) {
    return emit_line("{ const int64_t qd_o = " + offset + "; if (qd_o >= 0) s_" + s.shared + "[qd_o] = " + value +
                     "; }");
  }
  emit_line("s_" + s.shared + "[" + offset + "] = " + value + ";");
}

std::string CStyleRenderer::shuffle_carrier(DtypeCode t) {
  switch (t) {
    case DtypeCode::u32: return "unsigned int";
    case DtypeCode::i64: return "long long";
    case DtypeCode::u64: return "unsigned long long";
    case DtypeCode::f16:
    case DtypeCode::f32: return "float";
    case DtypeCode::f64: return "double";
    default: return "int";
  }
}

}  // namespace qd::codegen
