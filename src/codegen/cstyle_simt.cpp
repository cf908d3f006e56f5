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

// Row-major over the constant extents; an index outside its extent is clamped into it, so a wrong
// index reads or writes another element of the same shared array, never other memory.
std::string CStyleRenderer::shared_offset(const std::string& name, const std::vector<Expr>& indices) {
  const SimtStmt& decl = *shared_decl(name);
  std::string offset;
  for (size_t d = 0; d < decl.shape.size(); ++d) {
    std::string extent = std::to_string(decl.shape[d]);
    std::string index = "qd_clamp_index((int64_t)(" + expr(indices[d]) + "), (int64_t)" + extent + ")";
    offset = d == 0 ? index : "(" + offset + ") * " + extent + " + " + index;
  }
  return offset;
}

std::string CStyleRenderer::simt(const Simt& e) {
  if (e.op == SimtOp::shared_load) return "s_" + e.shared + "[" + shared_offset(e.shared, e.args) + "]";
  if (e.op != SimtOp::shared_atomic) return simt_op(e);
  std::vector<Expr> indices(e.args.begin(), e.args.end() - 1);
  return "qd_atomic_" + std::string(atomic_op_name(e.atomic_op)) + "(&s_" + e.shared + "[" +
         shared_offset(e.shared, indices) + "], " + expr(e.args.back()) + ")";
}

void CStyleRenderer::emit_shared_store(const SimtStmt& s) {
  std::vector<Expr> indices(s.args.begin(), s.args.end() - 1);
  emit_line("s_" + s.shared + "[" + shared_offset(s.shared, indices) + "] = " + expr(s.args.back()) + ";");
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
