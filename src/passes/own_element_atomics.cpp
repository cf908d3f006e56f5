// src/passes/own_element_atomics.cpp: the arrays that a parallel_for touches only at each iteration's own
// element, whose atomics therefore never meet another iteration's (privatize_atomics.cpp lists them).
//
// Upstream semantics make `a[i, j] -= x` in a parallel loop an atomic update. When every access of an array
// in the loop body (loads, stores, atomics, used or not) names the same indices, and those indices are the
// loop's own variables, each exactly once, beside loop-invariant constants, then two iterations never reach
// the same element of that array, so a plain read-modify-write gives what the atomic gives. What the IR cannot
// promise is that no other array of the loop shares its memory (one ndarray passed twice, fields placed side by
// side): renderers apply the entry only when the launch-time overlap test of privatized loops passes.
//
// Not listed: loops that call functions (a callee may touch the array anywhere), qd.simt loops (they step
// whole blocks together), loops whose body declares or assigns a name of a loop variable (the index would no
// longer be the iteration's own), and arrays that are not writable.
#include "passes/own_element_atomics.h"

#include <map>

#include "ir/ir_equal.h"
#include "ir/ir_mutator.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

// Every reference to each array in a loop body, and whether anything rules the loop out.
class OwnAccesses : public IRVisitor {
 public:
  explicit OwnAccesses(const std::vector<std::string>& vars) : vars_(vars.begin(), vars.end()) {}

  struct Use {
    bool ok = true;
    bool updated = false;  // some atomic updates the array
    std::vector<Expr> indices;
    bool seen = false;
  };
  std::map<std::string, Use> uses;
  bool loop_ok = true;

 private:
  void touch(const ArrayRef& ref, bool atomic) {
    Use& use = uses[ref.array];
    use.updated = use.updated || atomic;
    if (!use.seen) {
      use.seen = true;
      use.indices = ref.indices;
      use.ok = own_indices(ref.indices);
      return;
    }
    if (use.indices.size() != ref.indices.size()) {
      use.ok = false;
      return;
    }
    for (size_t k = 0; k < ref.indices.size(); ++k) use.ok = use.ok && same_expr(use.indices[k], ref.indices[k]);
  }
  // Each loop variable exactly once, as itself; any other index a constant.
  bool own_indices(const std::vector<Expr>& indices) const {
    std::set<std::string> named;
    for (const Expr& i : indices) {
      if (const Var* v = as<Var>(i)) {
        if (!vars_.count(v->name) || !named.insert(v->name).second) return false;
      } else if (i->kind != ExprKind::constant) {
        return false;
      }
    }
    return named.size() == vars_.size();
  }
  void visit_load(const Load& e) override {
    touch(e.ref, false);
    IRVisitor::visit_load(e);
  }
  void visit_store(const Store& s) override {
    touch(s.ref, false);
    IRVisitor::visit_store(s);
  }
  void visit_atomic(const Atomic& e) override {
    if (!e.local) touch(e.ref, true);
    IRVisitor::visit_atomic(e);
  }
  void visit_call(const Call& e) override {
    loop_ok = false;
    IRVisitor::visit_call(e);
  }
  void visit_simt(const Simt& e) override {
    loop_ok = false;
    IRVisitor::visit_simt(e);
  }
  void visit_simt_stmt(const SimtStmt& s) override {
    loop_ok = false;
    IRVisitor::visit_simt_stmt(s);
  }
  void visit_decl(const Decl& s) override {
    loop_ok = loop_ok && !vars_.count(s.name);
    IRVisitor::visit_decl(s);
  }
  void visit_assign(const Assign& s) override {
    loop_ok = loop_ok && !vars_.count(s.name);
    IRVisitor::visit_assign(s);
  }
  void visit_for(const For& s) override {
    loop_ok = loop_ok && !vars_.count(s.var);
    IRVisitor::visit_for(s);
  }

  std::set<std::string> vars_;
};

}  // namespace

std::set<std::string> own_element_arrays(const Kernel& kernel, const ParallelFor& loop) {
  OwnAccesses accesses(loop.vars);
  accesses.visit(loop.body);
  std::set<std::string> out;
  if (!accesses.loop_ok) return out;
  for (const auto& [name, use] : accesses.uses) {
    const Param* p = kernel.find_param(name);
    if (use.ok && use.updated && p && p->kind == Param::Kind::array && p->writable) out.insert(name);
  }
  return out;
}

}  // namespace qd::passes
