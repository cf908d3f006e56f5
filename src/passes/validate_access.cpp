// src/passes/validate_access.cpp: qd.ad.Tape(validation=True)'s check of the global data access rule.
//
// Requires: Stage::typed. kernel.validated pairs array params: READ is a writable u8 array of PRIMAL's
//           dims and element shape that records which elements of PRIMAL were read (1) since the Tape
//           began. An empty list leaves the kernel as it is.
// Ensures: Stage::typed, with an empty validated list. The kernel does what it did; before each
//          statement, every element of a PRIMAL the statement loads is marked in READ, and every
//          element it stores to or updates atomically is asserted unmarked (debug-mode `assert`, so a
//          violation stops the kernel with QdKernelError code 2 before the write happens).
// Rejects: nothing.
//
// Why: reverse-mode AD replays the primal, so an element that a recorded kernel read and that a later
// write (in the same kernel or a later one on the Tape) overwrites makes the replay read the new value,
// and the gradients come out wrong with no error. The marks live in READ arrays that the frontend
// (python/quadrants/ad/_validation.py) keeps per checked array and zeroes when a validating Tape opens.
// Marks and checks re-evaluate the access's indices, so an access whose indices (or the select
// conditions above it) have side effects (atomics, subgroup operations) is left unchecked rather than
// having them run twice. A load under a select arm is marked only when that arm is taken.
#include <map>

#include "ir/ir_mutator.h"
#include "passes/passes.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

// Whether evaluating `e` again changes nothing and waits for no other thread.
bool repeatable(const Expr& e) {
  if (!e) return true;
  switch (e->kind) {
    case ExprKind::binary: return repeatable(as<Binary>(e)->a) && repeatable(as<Binary>(e)->b);
    case ExprKind::unary: return repeatable(as<Unary>(e)->a);
    case ExprKind::cast: return repeatable(as<Cast>(e)->a);
    case ExprKind::bit_cast: return repeatable(as<BitCast>(e)->a);
    case ExprKind::select: {
      const Select& s = *as<Select>(e);
      return repeatable(s.cond) && repeatable(s.a) && repeatable(s.b);
    }
    case ExprKind::load: {
      const ArrayRef& ref = as<Load>(e)->ref;
      for (const std::vector<Expr>* list : {&ref.indices, &ref.element_indices}) {
        for (const Expr& i : *list) {
          if (!repeatable(i)) return false;
        }
      }
      return true;
    }
    case ExprKind::atomic:
    case ExprKind::clock_counter: return false;  // a second read gives another value
    case ExprKind::simt: {
      const Simt& s = *as<Simt>(e);
      if (simt_waits(s.op) || s.op == SimtOp::shared_atomic) return false;
      for (const Expr& a : s.args) {
        if (!repeatable(a)) return false;
      }
      return true;
    }
    default: return true;
  }
}

// One access of a checked array by a statement's expressions, under the select arms that lead to it.
struct Access {
  bool write;
  ArrayRef ref;
  std::vector<std::pair<Expr, bool>> guards;  // (select condition, whether its first arm was taken)
};

class AccessRule : public IRMutator {
 public:
  AccessRule(const Kernel& kernel, std::map<std::string, std::string> read_of)
      : kernel_(kernel), read_of_(std::move(read_of)) {}

 protected:
  Block visit_decl(const Decl& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_assign(const Assign& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_eval(const Eval& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_assert(const Assert& s, const Stmt& self) override { return checked(self, {s.cond}); }
  Block visit_return(const Return& s, const Stmt& self) override { return checked(self, s.values); }
  Block visit_ad_stack_op(const AdStackOp& s, const Stmt& self) override { return checked(self, {s.value}); }
  Block visit_call(const Call& s, const Stmt& self) override { return checked(self, s.args); }
  Block visit_simt_stmt(const SimtStmt& s, const Stmt& self) override { return checked(self, s.args); }
  Block visit_print(const Print& s, const Stmt& self) override {
    std::vector<Expr> values;
    for (const PrintItem& item : s.items) values.push_back(item.value);
    return checked(self, values);
  }
  Block visit_store(const Store& s, const Stmt& self) override {
    std::vector<Expr> exprs(s.ref.indices);
    exprs.insert(exprs.end(), s.ref.element_indices.begin(), s.ref.element_indices.end());
    exprs.push_back(s.value);
    return checked(self, exprs, &s.ref);
  }
  Block visit_if(const If& s, const Stmt& self) override { return checked(IRMutator::visit_if(s, self), {s.cond}); }
  Block visit_for(const For& s, const Stmt& self) override {
    return checked(IRMutator::visit_for(s, self), {s.begin, s.end});
  }
  Block visit_parallel_for(const ParallelFor& s, const Stmt& self) override {
    return checked(IRMutator::visit_parallel_for(s, self), s.extents);
  }
  // The condition is evaluated before every iteration: `while C B` becomes `while 1 (marks; if !C break; B)`,
  // which `continue` also re-enters at the top.
  Block visit_while(const While& s, const Stmt& self) override {
    Block body = mutate(s.body);
    Block checks = prelude({s.cond}, nullptr, s.loc);
    if (checks.empty()) return body == s.body ? Block{self} : Block{While::make(s.cond, std::move(body), s.loc)};
    checks.push_back(If::make(s.cond, {}, {Break::make(s.loc)}, s.loc));
    checks.insert(checks.end(), body.begin(), body.end());
    return {While::make(Const::make_int(DtypeCode::i32, 1), std::move(checks), s.loc)};
  }

 private:
  // The statements `mutated` (the statement, its nested blocks already checked) preceded by its own
  // expressions' marks and checks.
  Block checked(Block mutated, const std::vector<Expr>& exprs, const ArrayRef* stored = nullptr) {
    SourceLoc loc = mutated.empty() ? SourceLoc{} : mutated.back()->loc;
    Block out = prelude(exprs, stored, loc);
    out.insert(out.end(), mutated.begin(), mutated.end());
    return out;
  }
  Block checked(const Stmt& self, const std::vector<Expr>& exprs, const ArrayRef* stored = nullptr) {
    return checked(Block{self}, exprs, stored);
  }

  // Marks for the loads of checked arrays in `exprs` (in evaluation order), then checks for their
  // atomic updates and for `stored`, the element the statement stores to.
  Block prelude(const std::vector<Expr>& exprs, const ArrayRef* stored, SourceLoc loc) {
    std::vector<Access> accesses;
    std::vector<std::pair<Expr, bool>> guards;
    for (const Expr& e : exprs) collect(e, guards, accesses);
    if (stored != nullptr && read_of_.count(stored->array)) accesses.push_back({true, *stored, {}});
    Block marks, checks;
    for (const Access& a : accesses) {
      if (!repeatable_access(a)) continue;
      ArrayRef bits{read_of_.at(a.ref.array), a.ref.indices, a.ref.element_indices};
      Stmt stmt = a.write ? Assert::make(Binary::make(BinOp::eq, Load::make(bits, DtypeCode::u8),
                                                      Const::make_int(DtypeCode::u8, 0), DtypeCode::i32),
                                         message(a.ref.array, loc), loc)
                          : Store::make(bits, Const::make_int(DtypeCode::u8, 1), loc);
      for (auto g = a.guards.rbegin(); g != a.guards.rend(); ++g) {
        stmt = g->second ? If::make(g->first, {stmt}, {}, loc) : If::make(g->first, {}, {stmt}, loc);
      }
      (a.write ? checks : marks).push_back(stmt);
    }
    marks.insert(marks.end(), checks.begin(), checks.end());
    return marks;
  }

  void collect(const Expr& e, std::vector<std::pair<Expr, bool>>& guards, std::vector<Access>& out) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::binary: collect(as<Binary>(e)->a, guards, out), collect(as<Binary>(e)->b, guards, out); return;
      case ExprKind::unary: return collect(as<Unary>(e)->a, guards, out);
      case ExprKind::cast: return collect(as<Cast>(e)->a, guards, out);
      case ExprKind::bit_cast: return collect(as<BitCast>(e)->a, guards, out);
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        collect(s.cond, guards, out);
        for (bool first : {true, false}) {
          guards.push_back({s.cond, first});
          collect(first ? s.a : s.b, guards, out);
          guards.pop_back();
        }
        return;
      }
      case ExprKind::load:
      case ExprKind::atomic: {
        const Atomic* atomic = as<Atomic>(e);
        if (atomic && atomic->local) return collect(atomic->value, guards, out);
        const ArrayRef& ref = atomic ? atomic->ref : as<Load>(e)->ref;
        for (const Expr& i : ref.indices) collect(i, guards, out);
        for (const Expr& i : ref.element_indices) collect(i, guards, out);
        if (atomic) collect(atomic->value, guards, out);
        if (read_of_.count(ref.array)) out.push_back({atomic != nullptr, ref, guards});
        return;
      }
      case ExprKind::simt:
        for (const Expr& a : as<Simt>(e)->args) collect(a, guards, out);
        return;
      default: return;
    }
  }

  static bool repeatable_access(const Access& a) {
    for (const std::vector<Expr>* list : {&a.ref.indices, &a.ref.element_indices}) {
      for (const Expr& i : *list) {
        if (!repeatable(i)) return false;
      }
    }
    for (const auto& g : a.guards) {
      if (!repeatable(g.first)) return false;
    }
    return true;
  }

  std::string message(const std::string& array, SourceLoc loc) const {
    std::string where = loc.line > 0 ? " at line " + std::to_string(loc.line) : "";
    if (!kernel_.options.source_file.empty() && loc.line > 0) where += " of " + kernel_.options.source_file;
    return "Breaks the global data access rule (qd.ad.Tape(validation=True)): '" + array + "' is overwritten" +
           where + " at an element that was read earlier in this kernel or in a kernel recorded before it on the "
           "Tape. The adjoints replay those reads and would see the new value, so the gradients would be wrong. "
           "Write the new values into another field or ndarray (double buffering) instead of overwriting them.";
  }

  const Kernel& kernel_;
  std::map<std::string, std::string> read_of_;  // checked array -> its READ bitmask
};

// The pairs as a map, after checking that each READ array can hold PRIMAL's marks.
std::map<std::string, std::string> read_arrays(const Kernel& kernel) {
  std::map<std::string, std::string> read_of;
  for (const AdjointPair& pair : kernel.validated) {
    const Param* primal = kernel.find_param(pair.primal);
    const Param* bits = kernel.find_param(pair.grad);
    bool fits = primal && bits && primal->kind == Param::Kind::array && bits->kind == Param::Kind::array &&
                bits->dtype == DtypeCode::u8 && bits->ndim == primal->ndim &&
                bits->element_shape == primal->element_shape && bits->writable;
    if (!fits) {
      throw KernelUserError(KernelUserError::Kind::type,
                            "Kernel '" + kernel.name + "' pairs '" + pair.primal + "' with the read marks '" +
                                pair.grad + "', but both must be array params and the marks a writable u8 array of "
                                "the same dims and element shape.",
                            0, 0);
    }
    read_of[pair.primal] = pair.grad;
  }
  return read_of;
}

}  // namespace

Kernel validate_access(const Kernel& kernel) {
  if (kernel.validated.empty()) return kernel;
  AccessRule rule(kernel, read_arrays(kernel));
  Kernel out = mutate_kernel(rule, kernel);
  out.validated.clear();
  return out;
}

}  // namespace qd::passes
