// src/passes/simplify.cpp: constant folding, removal of no-op casts and arithmetic, dead branches.
//
// Requires: Stage::typed.
// Ensures: Stage::typed; operators on constants are folded where const_eval knows the exact result;
//          casts to an expression's own type are gone; integer x+0, x-0, x*1, 1*x, 0+x become x;
//          selects and ifs on constant conditions keep only the taken side (an if's branch is
//          spliced into the enclosing block only when it declares no locals, so scopes stay
//          intact); while loops on a false constant are removed.
// Rejects: nothing.
#include "ir/ir_mutator.h"
#include "passes/const_eval.h"
#include "passes/passes.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

bool declares_locals(const Block& b) {
  for (const Stmt& s : b) {
    if (s->kind == StmtKind::decl || s->kind == StmtKind::ad_stack) return true;
  }
  return false;
}

bool is_const(const Expr& e, int value) {
  const Const* c = as<Const>(e);
  return c && const_equals(*c, value);
}

class Simplifier : public IRMutator {
 private:
  Expr visit_binary(const Binary& b, const Expr& self) override {
    Expr x = mutate(b.a), y = mutate(b.b);
    if (as<Const>(x) && as<Const>(y)) {
      if (std::optional<Expr> folded = fold_binary(b.op, *as<Const>(x), *as<Const>(y))) return *folded;
    }
    // Identities hold bit-exactly for integers only: -0.0 + 0.0 is +0.0.
    if (b.type && is_integral(*b.type) && x->type == b.type) {
      if ((b.op == BinOp::add || b.op == BinOp::sub) && is_const(y, 0)) return x;
      if (b.op == BinOp::add && is_const(x, 0)) return y;
      if (b.op == BinOp::mul && is_const(y, 1)) return x;
      if (b.op == BinOp::mul && is_const(x, 1)) return y;
    }
    return x == b.a && y == b.b ? self : Binary::make(b.op, x, y, b.type);
  }
  Expr visit_unary(const Unary& u, const Expr& self) override {
    Expr x = mutate(u.a);
    if (const Const* c = as<Const>(x)) {
      if (std::optional<Expr> folded = fold_unary(u.op, *c)) return *folded;
    }
    return x == u.a ? self : Unary::make(u.op, x, u.type);
  }
  Expr visit_cast(const Cast& c, const Expr& self) override {
    Expr x = mutate(c.a);
    if (x->type == c.to) return x;
    if (const Const* k = as<Const>(x)) {
      if (std::optional<Expr> folded = fold_cast(c.to, *k)) return *folded;
    }
    return x == c.a ? self : Cast::make(c.to, x);
  }
  Expr visit_select(const Select& s, const Expr& self) override {
    Expr cond = mutate(s.cond), a = mutate(s.a), b = mutate(s.b);
    if (const Const* c = as<Const>(cond)) return const_equals(*c, 0) ? b : a;
    return cond == s.cond && a == s.a && b == s.b ? self : Select::make(cond, a, b, s.type);
  }
  Block visit_if(const If& s, const Stmt& self) override {
    Expr cond = mutate(s.cond);
    Block then_body = mutate(s.then_body), else_body = mutate(s.else_body);
    if (const Const* c = as<Const>(cond)) {
      const Block& taken = const_equals(*c, 0) ? else_body : then_body;
      if (!declares_locals(taken)) return taken;
    }
    if (cond == s.cond && then_body == s.then_body && else_body == s.else_body) return {self};
    return {If::make(cond, then_body, else_body, s.loc)};
  }
  Block visit_while(const While& s, const Stmt& self) override {
    Expr cond = mutate(s.cond);
    if (is_const(cond, 0)) return {};
    Block body = mutate(s.body);
    return {cond == s.cond && body == s.body ? self : While::make(cond, body, s.loc)};
  }
};

}  // namespace

Kernel simplify(const Kernel& kernel) {
  Simplifier simplifier;
  return mutate_kernel(simplifier, kernel);
}

}  // namespace qd::passes
