// src/passes/debug_checks.cpp: run-time checks that qd.init(debug=True) adds, as upstream's debug mode does.
//
// Requires: typed IR. Ensures: with `debug` set, each decl, assign, store, eval and return whose value raises an integer
// to a power is preceded by an assert that the exponent is not negative (upstream: "Negative exponent in
// pow(int, int) is not allowed."; release mode gives 0, docs/IR.md). Exponents that are constants >= 0 and
// ones with atomics (which must not run twice) are not checked. Without `debug` the kernel is unchanged.
#include "ir/ir_mutator.h"
#include "passes/passes.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

constexpr const char* kNegativeExponent = "Negative exponent in pow(int, int) is not allowed.";

struct AtomicFinder : IRVisitor {
  bool found = false;
  void visit_atomic(const Atomic&) override { found = true; }
};

// The exponents of the integer pows in an expression that need a check.
struct IntegerPows : IRVisitor {
  std::vector<Expr> exponents;
  void visit_binary(const Binary& b) override {
    IRVisitor::visit_binary(b);
    if (b.op != BinOp::pow || !b.type || is_float(*b.type) || !is_signed(*b.b->type)) return;
    if (std::optional<int64_t> value = constant_index(b.b); value && *value >= 0) return;
    AtomicFinder atomics;
    atomics.visit(b.b);
    if (!atomics.found) exponents.push_back(b.b);
  }
};

class DebugChecks : public IRMutator {
 private:
  Block checked(const Stmt& self, const std::vector<Expr>& values) {
    IntegerPows pows;
    for (const Expr& value : values) pows.visit(value);
    Block out;
    for (const Expr& exponent : pows.exponents) {
      Expr zero = Const::make_int(*exponent->type, 0);
      out.push_back(Assert::make(Binary::make(BinOp::ge, exponent, zero, DtypeCode::i32), kNegativeExponent,
                                 self->loc));
    }
    out.push_back(self);
    return out;
  }
  Block visit_decl(const Decl& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_assign(const Assign& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_store(const Store& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_eval(const Eval& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_return(const Return& s, const Stmt& self) override { return checked(self, s.values); }
};

}  // namespace

Kernel debug_checks(const Kernel& kernel) {
  if (!kernel.options.debug) return kernel;
  DebugChecks checks;
  return mutate_kernel(checks, kernel);
}

}  // namespace qd::passes
