// src/passes/check_names.cpp: resolves every name and checks every array access against its param.
//
// Requires: check_control_flow has run.
// Ensures: Stage::checked: every local is declared before use in an enclosing block, every (arg)
//          names a scalar param, every array access names an array param with one index per outer
//          dim and in-range element indices, no store or atomic touches a read-only array, and no
//          loop variable is assigned. Function bodies are checked in their own scope (their params
//          are locals; they see the kernel's arrays but not its scalar params or locals); every call
//          names a function with one argument per param, passes locals to by-reference params and
//          assigns its results (none or all) to assignable locals. The kernel is unchanged.
// Rejects: undeclared locals, unknown params or functions, assignments to loop variables, locals
//          declared twice in a block (syntax errors); wrong index counts, element indices or shape
//          dims out of range, writes to read-only arrays, calls with wrong argument or result counts
//          (type errors).
#include "ir/ir_mutator.h"
#include "ir/scopes.h"
#include "passes/passes.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

std::string count(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

class NameChecker : public IRVisitor {
 public:
  explicit NameChecker(const Kernel& kernel) : kernel_(kernel) {}

  void check_body(const Block& body) { scoped(body, {}); }

  void check_function(const Function& f) {
    if (kernel_.find_function(f.name) != &f) {
      fail(KernelUserError::Kind::syntax, "Kernel '" + kernel_.name + "' defines function '" + f.name + "' twice.");
    }
    function_ = &f;
    scopes_.push();
    for (const FunctionParam& p : f.params) {
      if (!scopes_.declare(p.name, std::nullopt)) {
        fail(KernelUserError::Kind::syntax, "Function '" + f.name + "' has two parameters named '" + p.name + "'.");
      }
    }
    scoped(f.body, {});
    scopes_.pop();
    function_ = nullptr;
  }

 private:
  [[noreturn]] void fail(KernelUserError::Kind kind, const std::string& message) {
    throw KernelUserError(kind, message, loc_.line, loc_.col);
  }

  // A new scope holding `loop_vars`, then each statement with its own location.
  void scoped(const Block& b, const std::vector<std::string>& loop_vars) {
    SourceLoc outer = loc_;
    scopes_.push();
    for (const std::string& v : loop_vars) scopes_.declare(v, std::nullopt, true);
    for (const Stmt& s : b) {
      loc_ = s->loc.line ? s->loc : outer;
      visit(s);
    }
    scopes_.pop();
    loc_ = outer;
  }

  const LocalInfo& local(const std::string& name) {
    const LocalInfo* info = scopes_.find(name);
    if (!info) {
      fail(KernelUserError::Kind::syntax, "Local variable '" + name +
                                              "' is used before it is assigned. Assign it first, in this block "
                                              "or in one that encloses it.");
    }
    return *info;
  }

  const Param& array_param(const std::string& name) {
    const Param* p = kernel_.find_param(name);
    if (!p || p->kind != Param::Kind::array) {
      fail(KernelUserError::Kind::syntax, "'" + name + "' is not an array parameter of kernel '" + kernel_.name + "'.");
    }
    return *p;
  }

  void check_ref(const ArrayRef& ref, bool writes) {
    const Param& p = array_param(ref.array);
    if (static_cast<int>(ref.indices.size()) != p.ndim) {
      fail(KernelUserError::Kind::type, "Array '" + p.name + "' has " + count(p.ndim, "dimension", "dimensions") +
                                            ", so it needs " + count(p.ndim, "index", "indices") + ", but was given " +
                                            std::to_string(ref.indices.size()) + ".");
    }
    if (ref.element_indices.size() != p.element_shape.size()) {
      fail(KernelUserError::Kind::type, "The elements of array '" + p.name + "' have " +
                                            count(p.element_shape.size(), "dimension", "dimensions") + ", but were given " +
                                            count(ref.element_indices.size(), "element index", "element indices") + ".");
    }
    for (size_t i = 0; i < ref.element_indices.size(); ++i) {
      std::optional<int64_t> e = constant_index(ref.element_indices[i]);  // runtime ones are checked at run time
      if (e && (*e < 0 || *e >= p.element_shape[i])) {
        fail(KernelUserError::Kind::type, "Element index " + std::to_string(*e) + " of array '" + p.name +
                                              "' is out of range: element dimension " + std::to_string(i) +
                                              " has size " + std::to_string(p.element_shape[i]) + ".");
      }
    }
    if (writes && !p.writable) {
      fail(KernelUserError::Kind::type, "Kernel '" + kernel_.name + "' writes to array '" + p.name +
                                            "', which was passed read-only. Pass a writable array instead.");
    }
    visit_ref(ref);
  }

  void visit_var(const Var& e) override { local(e.name); }
  void visit_arg(const Arg& e) override {
    if (function_) {
      fail(KernelUserError::Kind::syntax, "Function '" + function_->name + "' reads '" + e.name +
                                              "', a scalar parameter of kernel '" + kernel_.name +
                                              "'; a function sees only its own parameters. Pass it as an argument.");
    }
    const Param* p = kernel_.find_param(e.name);
    if (!p || p->kind != Param::Kind::scalar) {
      fail(KernelUserError::Kind::syntax, "'" + e.name + "' is not a scalar parameter of kernel '" + kernel_.name + "'.");
    }
  }
  void visit_load(const Load& e) override { check_ref(e.ref, false); }
  void visit_shape(const Shape& e) override {
    const Param& p = array_param(e.array);
    if (e.dim < 0 || e.dim >= p.ndim) {
      fail(KernelUserError::Kind::type, "'" + p.name + ".shape[" + std::to_string(e.dim) + "]' is out of range: array '" +
                                            p.name + "' has " + count(p.ndim, "dimension", "dimensions") + ".");
    }
  }
  void visit_atomic(const Atomic& e) override {
    if (e.local) local(*e.local);
    if (!e.local) check_ref(e.ref, true);
    visit(e.value);
  }
  void visit_decl(const Decl& s) override {
    visit(s.value);
    if (!scopes_.declare(s.name, std::nullopt)) {
      fail(KernelUserError::Kind::syntax, "Local variable '" + s.name + "' is declared twice in the same block.");
    }
  }
  void visit_ad_stack(const AdStack& s) override {
    if (!scopes_.declare(s.name, std::nullopt)) {
      fail(KernelUserError::Kind::syntax, "AD stack '" + s.name + "' is declared twice in the same block.");
    }
  }
  void visit_ad_top(const AdTop& e) override { local(e.stack); }
  void visit_ad_stack_op(const AdStackOp& s) override {
    local(s.stack);
    IRVisitor::visit_ad_stack_op(s);
  }
  void visit_assign(const Assign& s) override {
    visit(s.value);
    if (local(s.name).is_loop_var) {
      fail(KernelUserError::Kind::syntax, "Loop variable '" + s.name +
                                              "' cannot be assigned to; copy it into another variable first.");
    }
  }
  void visit_store(const Store& s) override {
    check_ref(s.ref, true);
    visit(s.value);
  }
  void visit_if(const If& s) override {
    visit(s.cond);
    scoped(s.then_body, {});
    scoped(s.else_body, {});
  }
  void visit_while(const While& s) override {
    visit(s.cond);
    scoped(s.body, {});
  }
  void visit_for(const For& s) override {
    visit(s.begin);
    visit(s.end);
    scoped(s.body, {s.var});
  }
  void visit_parallel_for(const ParallelFor& s) override {
    for (const Expr& e : s.extents) visit(e);
    scoped(s.body, s.vars);
  }
  // The condition is a 0-d i32 array the host reads between iterations (the frontend guarantees it; IR
  // written by hand gets this message).
  void visit_graph_do_while(const GraphDoWhile& s) override {
    const Param& p = array_param(s.cond);
    if (p.dtype != DtypeCode::i32 || p.total_dims() != 0) {
      fail(KernelUserError::Kind::type, "qd.graph.do_while() needs a 0-d qd.i32 ndarray as its condition, but '" +
                                            p.name + "' is not one.");
    }
    scoped(s.body, {});
  }

  void visit_call(const Call& c) override;

  const Kernel& kernel_;
  const Function* function_ = nullptr;  // the function whose body is checked; null in the kernel body
  Scopes scopes_;
  SourceLoc loc_;
};

void NameChecker::visit_call(const Call& c) {
  const Function* f = kernel_.find_function(c.function);
  if (!f) fail(KernelUserError::Kind::syntax, "Kernel '" + kernel_.name + "' has no function '" + c.function + "'.");
  if (c.args.size() != f->params.size()) {
    fail(KernelUserError::Kind::type, "Function '" + f->name + "' takes " +
                                          count(f->params.size(), "argument", "arguments") + ", but was given " +
                                          std::to_string(c.args.size()) + ".");
  }
  if (!c.results.empty() && c.results.size() != f->returns.size()) {
    fail(KernelUserError::Kind::type, "Function '" + f->name + "' returns " +
                                          count(f->returns.size(), "value", "values") + ", but the call assigns " +
                                          std::to_string(c.results.size()) + ".");
  }
  for (size_t i = 0; i < c.args.size(); ++i) {
    visit(c.args[i]);
    bool ref = f->params[i].kind == FunctionParam::Kind::ref;
    const Var* v = as<Var>(c.args[i]);
    if (ref != c.by_ref[i] || (ref && !v)) {
      fail(KernelUserError::Kind::type, "Argument '" + f->params[i].name + "' of function '" + f->name + "' is " +
                                            (ref ? "passed by reference, so it must be a local variable."
                                                 : "passed by value, but the call passes a reference."));
    }
    if (ref && local(v->name).is_loop_var) {
      fail(KernelUserError::Kind::syntax, "Loop variable '" + v->name + "' cannot be passed by reference to '" +
                                              f->name + "'; copy it into another variable first.");
    }
  }
  for (const std::string& r : c.results) {
    if (local(r).is_loop_var) {
      fail(KernelUserError::Kind::syntax, "Loop variable '" + r + "' cannot be assigned to; copy it into another "
                                          "variable first.");
    }
  }
}

}  // namespace

Kernel check_names(const Kernel& kernel) {
  for (const Function& f : kernel.functions) NameChecker(kernel).check_function(f);
  NameChecker(kernel).check_body(kernel.body);
  return kernel;
}

}  // namespace qd::passes
