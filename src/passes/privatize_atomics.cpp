// src/passes/privatize_atomics.cpp: atomics that no other thread can see become plain updates, and
// atomics that threads would fight over are marked for per-chunk privatization.
//
// Requires: Stage::typed.
// Ensures: Stage::typed. An `(eval (atomic OP (var s) V))` on a local that only one thread can see
//          (any local outside a parallel_for; inside one, a local declared in its body) is
//          `(assign s (bin OP (var s) V))` (`xchg`: `(assign s V)`); the operand order matches the
//          atomics' own compare-and-swap step (`min(s, V)` keeps s on ties and ignores a NaN V).
//          In release kernels, each top-level parallel_for lists in its config the targets that
//          its iterations update only through add/sub, only through min, or only through max
//          atomics whose results are unused, with no other read or write of the target in the loop:
//          (reduce OP ...) for a writable array element at loop-invariant indices, or a kernel
//          local, and (privatize OP ARRAY) for a contiguous array updated at varying indices.
//          Targets are i32, i64, u32, u64, f32 or f64. The body is unchanged: a renderer that
//          ignores the config keeps correct atomics. A loop that calls a function gets no targets
//          (the callee may touch any array, and by-reference arguments alias the caller's locals);
//          in a function body every local is private to the call except its by-reference params.
//          A loop also lists (own ARRAY) for each array it touches only at each iteration's own
//          element (own_element_atomics.cpp); such an array gets no other entry.
// Rejects: nothing.
#include <map>
#include <set>

#include "ir/ir_mutator.h"
#include "ir/ir_equal.h"
#include "ir/scopes.h"
#include "passes/own_element_atomics.h"
#include "passes/passes.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

std::optional<BinOp> plain_op(AtomicOp op) {
  switch (op) {
    case AtomicOp::add: return BinOp::add;
    case AtomicOp::sub: return BinOp::sub;
    case AtomicOp::min: return BinOp::min;
    case AtomicOp::max: return BinOp::max;
    case AtomicOp::bit_and: return BinOp::bit_and;
    case AtomicOp::bit_or: return BinOp::bit_or;
    case AtomicOp::bit_xor: return BinOp::bit_xor;
    case AtomicOp::mul: return BinOp::mul;
    case AtomicOp::xchg:
    case AtomicOp::cas: return std::nullopt;
  }
  return std::nullopt;
}

// Rewrites atomics on locals that only the running thread can see; tracks scopes because a body
// may declare a local that shadows a kernel-body local its iterations share.
class PlainLocalAtomics : public IRMutator {
 public:
  PlainLocalAtomics() { scopes_.push(); }
  // For a function body: its by-reference params name the caller's locals, which other threads may share.
  explicit PlainLocalAtomics(const Function& f) {
    scopes_.push();
    for (const FunctionParam& p : f.params) {
      if (p.kind == FunctionParam::Kind::ref) shared_refs_.insert(p.name);
    }
  }

 private:
  bool thread_private(const std::string& name) const {
    const LocalInfo* info = scopes_.find(name);
    if (!info && shared_refs_.count(name)) return false;
    return parallel_depth_ == 0 || (info && info->depth > 1);
  }
  Block visit_eval(const Eval& s, const Stmt& self) override {
    const Atomic* a = as<Atomic>(s.value);
    bool plain = a && a->local && thread_private(*a->local) && a->type != DtypeCode::u1;
    if (!plain) return IRMutator::visit_eval(s, self);
    Expr value = mutate(a->value);
    std::optional<BinOp> op = plain_op(a->op);
    Expr current = Var::make(*a->local, a->type);
    Expr next = op ? Binary::make(*op, current, value, a->type) : value;
    if (a->op == AtomicOp::cas) {  // the value where the local equals the expected one, else unchanged
      Expr equal = Binary::make(BinOp::eq, current, mutate(a->expected), DtypeCode::i32);
      next = Select::make(equal, value, current, a->type);
    }
    return {Assign::make(*a->local, next, s.loc)};
  }
  Block visit_decl(const Decl& s, const Stmt& self) override {
    Block out = IRMutator::visit_decl(s, self);
    scopes_.declare(s.name, s.declared_type);
    return out;
  }
  Block scoped(const Block& b, const std::vector<std::string>& vars = {}) {
    scopes_.push();
    for (const std::string& v : vars) scopes_.declare(v, std::nullopt, true);
    Block out = mutate(b);
    scopes_.pop();
    return out;
  }
  Block visit_if(const If& s, const Stmt& self) override {
    Block then_body = scoped(s.then_body), else_body = scoped(s.else_body);
    if (then_body == s.then_body && else_body == s.else_body) return {self};
    return {If::make(s.cond, then_body, else_body, s.loc)};
  }
  Block visit_while(const While& s, const Stmt& self) override {
    Block body = scoped(s.body);
    return {body == s.body ? self : While::make(s.cond, body, s.loc)};
  }
  Block visit_for(const For& s, const Stmt& self) override {
    Block body = scoped(s.body, {s.var});
    return {body == s.body ? self : For::make(s.var, s.begin, s.end, body, s.loc)};
  }
  Block visit_parallel_for(const ParallelFor& s, const Stmt& self) override {
    ++parallel_depth_;
    Block body = scoped(s.body, s.vars);
    --parallel_depth_;
    if (body == s.body) return {self};
    return {ParallelFor::make(s.vars, s.extents, s.block_dim, s.serialize, body, s.loc, s.privatized, s.name)};
  }

  Scopes scopes_;
  int parallel_depth_ = 0;
  std::set<std::string> shared_refs_;
};

class CallFinder : public IRVisitor {
 public:
  bool found = false;

 private:
  void visit_call(const Call&) override { found = true; }
};

bool calls_a_function(const Block& body) {
  CallFinder finder;
  finder.visit(body);
  return finder.found;
}

bool privatizable_type(std::optional<DtypeCode> t) {
  return t == DtypeCode::i32 || t == DtypeCode::i64 || t == DtypeCode::u32 || t == DtypeCode::u64 ||
         t == DtypeCode::f32 || t == DtypeCode::f64;
}

// add and sub merge as one sum; min and max each on their own.
AtomicOp family(AtomicOp op) { return op == AtomicOp::sub ? AtomicOp::add : op; }

// How one parallel_for body uses each atomic target: "a:NAME" for arrays, "v:NAME" for locals.
struct TargetUse {
  bool ok = true;
  std::optional<AtomicOp> op;
  bool invariant = true;                     // every update's indices are loop-invariant
  std::vector<ArrayRef> elements;            // the distinct invariant elements (ir_equal.h), first seen first

  void add_element(const ArrayRef& ref) {
    for (const ArrayRef& seen : elements) {
      if (same_ref(seen, ref)) return;
    }
    elements.push_back(ref);
  }
};

class UseCollector : public IRVisitor {
 public:
  explicit UseCollector(std::set<std::string> varying) : varying_(std::move(varying)) {}
  std::map<std::string, TargetUse> uses;

  // Whether e has the same value in every iteration: no loads, atomics or locals the body sets.
  bool invariant(const Expr& e) const {
    switch (e->kind) {
      case ExprKind::constant:
      case ExprKind::arg:
      case ExprKind::shape: return true;
      case ExprKind::var: return !varying_.count(as<Var>(e)->name);
      case ExprKind::binary: return invariant(as<Binary>(e)->a) && invariant(as<Binary>(e)->b);
      case ExprKind::unary: return invariant(as<Unary>(e)->a);
      case ExprKind::cast: return invariant(as<Cast>(e)->a);
      case ExprKind::bit_cast: return invariant(as<BitCast>(e)->a);
      case ExprKind::simt: return false;  // thread indices and exchanges differ between iterations
      case ExprKind::select:
        return invariant(as<Select>(e)->cond) && invariant(as<Select>(e)->a) && invariant(as<Select>(e)->b);
      default: return false;
    }
  }

 private:
  static std::string key(const Atomic& a) { return a.local ? "v:" + *a.local : "a:" + a.ref.array; }
  void visit_eval(const Eval& s) override {
    const Atomic* a = as<Atomic>(s.value);
    if (!a) return IRVisitor::visit_eval(s);
    TargetUse& use = uses[key(*a)];
    bool mergeable = a->op == AtomicOp::add || a->op == AtomicOp::sub || a->op == AtomicOp::min ||
                     a->op == AtomicOp::max;
    use.ok = use.ok && mergeable && privatizable_type(a->type) && (!use.op || *use.op == family(a->op));
    use.op = family(a->op);
    if (!a->local) {
      bool invariant_ref = true;
      for (const std::vector<Expr>* list : {&a->ref.indices, &a->ref.element_indices}) {
        for (const Expr& i : *list) invariant_ref = invariant_ref && invariant(i);
      }
      use.invariant = use.invariant && invariant_ref;
      if (invariant_ref) use.add_element(a->ref);
      visit_ref(a->ref);
    }
    visit(a->value);
  }
  // Every other touch of a target (a used atomic result, a load, a store, a read) rules it out.
  void visit_atomic(const Atomic& a) override {
    uses[key(a)].ok = false;
    IRVisitor::visit_atomic(a);
  }
  void visit_load(const Load& e) override {
    uses["a:" + e.ref.array].ok = false;
    IRVisitor::visit_load(e);
  }
  void visit_store(const Store& s) override {
    uses["a:" + s.ref.array].ok = false;
    IRVisitor::visit_store(s);
  }
  void visit_var(const Var& e) override { uses["v:" + e.name].ok = false; }
  void visit_assign(const Assign& s) override {
    uses["v:" + s.name].ok = false;
    IRVisitor::visit_assign(s);
  }

  std::set<std::string> varying_;
};

// The locals a body declares (its own variables, which may shadow kernel-body locals) and the
// locals it writes; with the loop variables, these may differ between iterations.
class BodyLocals : public IRVisitor {
 public:
  std::set<std::string> declared, written;

 private:
  void visit_decl(const Decl& s) override {
    declared.insert(s.name);
    IRVisitor::visit_decl(s);
  }
  void visit_assign(const Assign& s) override {
    written.insert(s.name);
    IRVisitor::visit_assign(s);
  }
  void visit_atomic(const Atomic& e) override {
    if (e.local) written.insert(*e.local);
    IRVisitor::visit_atomic(e);
  }
  void visit_for(const For& s) override {
    declared.insert(s.var);
    IRVisitor::visit_for(s);
  }
};

// kernel_locals: the kernel-body locals declared before the loop, which its iterations share.
std::vector<Privatized> privatized_targets(const Kernel& kernel, const ParallelFor& loop,
                                           const std::set<std::string>& kernel_locals) {
  std::set<std::string> own = own_element_arrays(kernel, loop);
  BodyLocals locals;
  locals.visit(loop.body);
  locals.declared.insert(loop.vars.begin(), loop.vars.end());
  std::set<std::string> varying = locals.declared;
  varying.insert(locals.written.begin(), locals.written.end());
  UseCollector collector(varying);
  collector.visit(loop.body);
  std::vector<Privatized> out;
  for (const auto& [key, use] : collector.uses) {
    if (!use.ok || !use.op) continue;
    std::string name = key.substr(2);
    if (key[0] == 'v') {
      if (kernel_locals.count(name) && !locals.declared.count(name)) {
        out.push_back({Privatized::Kind::local, *use.op, name, {}});
      }
      continue;
    }
    const Param* p = kernel.find_param(name);
    if (!p || !p->writable || own.count(name)) continue;
    if (use.invariant) {
      for (const ArrayRef& ref : use.elements) out.push_back({Privatized::Kind::element, *use.op, "", ref});
    } else if (p->contiguous) {
      out.push_back({Privatized::Kind::array, *use.op, "", {name, {}, {}}});
    }
  }
  for (const std::string& name : own) out.push_back({Privatized::Kind::own, AtomicOp::add, "", {name, {}, {}}});
  return out;
}

// The parallel_fors of a block of top-level statements (the kernel body or a graph_do_while body, whose
// locals the loops share like the kernel body's), with their privatized targets.
Block privatize_top_level(const Kernel& kernel, const Block& block, std::set<std::string>& kernel_locals) {
  Block body;
  for (const Stmt& s : block) {
    if (const Decl* d = as<Decl>(s)) kernel_locals.insert(d->name);
    if (const GraphDoWhile* g = as<GraphDoWhile>(s)) {
      body.push_back(GraphDoWhile::make(g->cond, privatize_top_level(kernel, g->body, kernel_locals), g->loc));
      continue;
    }
    const ParallelFor* loop = as<ParallelFor>(s);
    bool eligible = loop && !calls_a_function(loop->body);
    std::vector<Privatized> targets =
        eligible ? privatized_targets(kernel, *loop, kernel_locals) : std::vector<Privatized>{};
    body.push_back(targets.empty() ? s
                                   : ParallelFor::make(loop->vars, loop->extents, loop->block_dim, loop->serialize,
                                                       loop->body, loop->loc, std::move(targets), loop->name));
  }
  return body;
}

}  // namespace

Kernel privatize_atomics(const Kernel& kernel) {
  PlainLocalAtomics plain;
  Kernel out = kernel;
  out.body = plain.mutate(kernel.body);
  for (Function& f : out.functions) {
    PlainLocalAtomics in_function(f);
    f.body = in_function.mutate(f.body);
  }
  if (kernel.options.checks_bounds()) return out;  // bounds checks need every access on the real array
  std::set<std::string> kernel_locals;  // declared so far in the kernel body
  out.body = privatize_top_level(out, out.body, kernel_locals);
  return out;
}

}  // namespace qd::passes
