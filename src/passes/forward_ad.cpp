// src/passes/forward_ad.cpp: forward-mode autodiff: a typed kernel also computes the duals (tangents).
//
// Requires: Stage::typed. kernel.tangents pairs array params: DUAL holds the tangent of PRIMAL (same
//           float dtype and shape, DUAL writable). An empty list leaves the kernel as it is.
// Ensures: Stage::typed, simplified, with an empty tangents list. The kernel does what it did, and
//          beside every float local v a local v_dot holds dv; loads of PRIMAL read DUAL for their
//          tangent; `PRIMAL[i] = e` also sets DUAL[i] to e's tangent, `PRIMAL[i] += e` adds it (`-=`
//          subtracts). Arrays without a DUAL and scalar params are constants.
// Rejects (syntax errors): atomic min/max/bitwise operations on an array with a dual, and using the
//          value an atomic on such an array returns.
//
// How: the tangent of an operator comes from the same rule table as reverse_ad.cpp (ad_rules.cpp).
// A rule maps the seed (the result's adjoint) to its operands' contributions, linearly; with the
// seed set to an operand's tangent, that operand's contribution is its term of the result's tangent
// (d f = df/da da + df/db db). Operands without a tangent add nothing (so pow's log(a) term is not
// built when the exponent is constant). A local's tangent is assigned before the local itself, so it
// reads the operands' old values (s = s * x).
#include <map>
#include <set>

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"
#include "passes/passes.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;
using namespace qd::passes::ad;

class Tangents : public IRMutator {
 public:
  Tangents(const Kernel& kernel, const std::map<std::string, std::string>& dual_of)
      : kernel_(kernel), dual_of_(dual_of) {
    for (const Param& p : kernel.params) used_.insert(p.name);
    collect_local_names(kernel.body, used_);
  }

 protected:
  Block visit_decl(const Decl& s, const Stmt& self) override {
    DtypeCode t = s.declared_type ? *s.declared_type : *s.value->type;
    if (!is_float(t)) return {self};
    return {Decl::make(dot_name(s.name), t, or_zero(tangent(s.value), t), s.loc), self};
  }
  Block visit_assign(const Assign& s, const Stmt& self) override {
    auto found = dot_.find(s.name);
    if (found == dot_.end()) return {self};
    DtypeCode t = *s.value->type;
    return {Assign::make(found->second, or_zero(tangent(s.value), t), s.loc), self};
  }
  Block visit_store(const Store& s, const Stmt& self) override {
    check_no_atomic(s.value);
    auto dual = dual_of_.find(s.ref.array);
    if (dual == dual_of_.end()) return {self};
    DtypeCode t = kernel_.find_param(s.ref.array)->dtype;
    Expr value = or_zero(tangent(s.value), *s.value->type);
    if (*s.value->type != t) value = Cast::make(t, value);
    return {self, Store::make(ArrayRef{dual->second, s.ref.indices, s.ref.element_indices}, value, s.loc)};
  }
  Block visit_eval(const Eval& s, const Stmt& self) override {
    const Atomic* a = as<Atomic>(s.value);
    if (!a) return {self};
    if (a->local) {
      auto found = dot_.find(*a->local);
      if (found == dot_.end()) return {self};
      static const std::map<AtomicOp, BinOp> kCombine = {{AtomicOp::add, BinOp::add},
                                                          {AtomicOp::sub, BinOp::sub},
                                                          {AtomicOp::min, BinOp::min},
                                                          {AtomicOp::max, BinOp::max},
                                                          {AtomicOp::mul, BinOp::mul}};
      auto op = kCombine.find(a->op);
      if (a->op != AtomicOp::xchg && op == kCombine.end()) return {self};  // bitwise ops and cas: integers
      // An exchange stores the value itself, so the local's tangent becomes the value's.
      Expr combined = a->op == AtomicOp::xchg ? a->value
                                              : Binary::make(op->second, Var::make(*a->local, a->type), a->value, a->type);
      return {Assign::make(found->second, or_zero(tangent(combined), *a->type), s.loc), self};
    }
    auto dual = dual_of_.find(a->ref.array);
    if (dual == dual_of_.end()) return {self};
    if (a->op != AtomicOp::add && a->op != AtomicOp::sub) {
      fail(s.loc, "Kernel '" + kernel_.name + "' applies atomic " + std::string(atomic_op_name(a->op)) + " to '" +
                      a->ref.array + "', which has a dual; forward-mode autodiff supports only atomic add and " +
                      "sub (+=, -=) on arrays with duals so far.");
    }
    Expr t = tangent(a->value);
    if (!t) return {self};
    DtypeCode pt = kernel_.find_param(a->ref.array)->dtype;
    if (*t->type != pt) t = Cast::make(pt, t);
    return {self, Eval::make(Atomic::make_array(a->op, ArrayRef{dual->second, a->ref.indices, a->ref.element_indices},
                                                t, pt),
                             s.loc)};
  }

 private:
  [[noreturn]] void fail(SourceLoc loc, const std::string& message) {
    throw KernelUserError(KernelUserError::Kind::syntax, message, loc.line, loc.col);
  }

  const std::string& dot_name(const std::string& name) {
    auto found = dot_.find(name);
    if (found != dot_.end()) return found->second;
    std::string dot = name + "_dot";
    for (int n = 0; !used_.insert(dot).second; ++n) dot = name + "_dot_" + std::to_string(n);
    return dot_[name] = dot;
  }
  static Expr or_zero(const Expr& e, DtypeCode t) { return e ? e : constant(t, 0.0); }

  void check_no_atomic(const Expr& e) {
    struct Finder : IRVisitor {
      const std::map<std::string, std::string>* dual_of;
      bool found = false;
      void visit_atomic(const Atomic& a) override {
        found = found || (!a.local && dual_of->count(a.ref.array));
        IRVisitor::visit_atomic(a);
      }
    } finder;
    finder.dual_of = &dual_of_;
    finder.visit(e);
    if (finder.found) {
      fail({}, "Kernel '" + kernel_.name + "' uses the value an atomic operation on an array with a dual returns, " +
                   "which forward-mode autodiff does not support. Use atomics only as statements (x[i] += v).");
    }
  }

  // The tangent of a typed expression; null when it is 0 (no active operand, or not a float).
  Expr tangent(const Expr& e) {
    if (!e->type || !is_float(*e->type)) return nullptr;
    DtypeCode t = *e->type;
    switch (e->kind) {
      case ExprKind::var: {
        auto found = dot_.find(as<Var>(e)->name);
        return found == dot_.end() ? nullptr : Var::make(found->second, e->type);
      }
      case ExprKind::load: {
        const Load& l = *as<Load>(e);
        auto dual = dual_of_.find(l.ref.array);
        if (dual == dual_of_.end()) return nullptr;
        return Load::make(ArrayRef{dual->second, l.ref.indices, l.ref.element_indices}, e->type);
      }
      case ExprKind::cast: {
        Expr a = tangent(as<Cast>(e)->a);
        return a ? Cast::make(t, a) : nullptr;
      }
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        Expr a = tangent(s.a), b = tangent(s.b);
        if (!a && !b) return nullptr;
        return Select::make(s.cond, or_zero(a, t), or_zero(b, t), t);
      }
      case ExprKind::binary: {
        const Binary& b = *as<Binary>(e);
        auto rule = binary_rule(b.op);
        if (!rule) return nullptr;
        Expr da = tangent(b.a), db = tangent(b.b);
        Expr sum;
        if (da) sum = rule(RuleInputs{t, b.a, b.b, e, da}).to_a;
        if (db) {
          Expr term = rule(RuleInputs{t, b.a, b.b, e, db}).to_b;
          sum = sum ? arith(BinOp::add, sum, term) : term;
        }
        return sum;
      }
      case ExprKind::unary: {
        const Unary& u = *as<Unary>(e);
        auto rule = unary_rule(u.op);
        Expr da = rule ? tangent(u.a) : nullptr;
        return da ? rule(RuleInputs{t, u.a, nullptr, e, da}).to_a : nullptr;
      }
      case ExprKind::atomic: {
        const Atomic& a = *as<Atomic>(e);
        if (!a.local && dual_of_.count(a.ref.array)) check_no_atomic(e);
        return nullptr;
      }
      default: return nullptr;
    }
  }

  const Kernel& kernel_;
  const std::map<std::string, std::string>& dual_of_;
  std::set<std::string> used_;
  std::map<std::string, std::string> dot_;  // float local -> its tangent local
};

}  // namespace

Kernel forward_ad(const Kernel& kernel) {
  if (kernel.tangents.empty()) return kernel;
  reject_functions(kernel);
  std::map<std::string, std::string> dual_of = checked_pairs(kernel, kernel.tangents, "dual");
  Tangents tangents(kernel, dual_of);
  Kernel out = mutate_kernel(tangents, kernel);
  out.tangents.clear();
  return simplify(out);
}

}  // namespace qd::passes
