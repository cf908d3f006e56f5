// src/ir/ir_mutator.cpp: default recursion of IRVisitor and IRMutator.
#include "ir/ir_mutator.h"

#include "quadrants/errors.h"

namespace qd::ir {

void IRVisitor::visit(const Expr& e) {
  switch (e->kind) {
    case ExprKind::constant: return visit_const(*as<Const>(e));
    case ExprKind::var: return visit_var(*as<Var>(e));
    case ExprKind::arg: return visit_arg(*as<Arg>(e));
    case ExprKind::binary: return visit_binary(*as<Binary>(e));
    case ExprKind::unary: return visit_unary(*as<Unary>(e));
    case ExprKind::cast: return visit_cast(*as<Cast>(e));
    case ExprKind::bit_cast: return visit_bit_cast(*as<BitCast>(e));
    case ExprKind::select: return visit_select(*as<Select>(e));
    case ExprKind::load: return visit_load(*as<Load>(e));
    case ExprKind::shape: return visit_shape(*as<Shape>(e));
    case ExprKind::atomic: return visit_atomic(*as<Atomic>(e));
    case ExprKind::ad_top: return visit_ad_top(*as<AdTop>(e));
    case ExprKind::simt: return visit_simt(*as<Simt>(e));
    case ExprKind::clock_counter: return visit_clock_counter(*as<ClockCounter>(e));
  }
}

void IRVisitor::visit(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::decl: return visit_decl(*as<Decl>(s));
    case StmtKind::assign: return visit_assign(*as<Assign>(s));
    case StmtKind::store: return visit_store(*as<Store>(s));
    case StmtKind::eval: return visit_eval(*as<Eval>(s));
    case StmtKind::if_: return visit_if(*as<If>(s));
    case StmtKind::while_: return visit_while(*as<While>(s));
    case StmtKind::break_: return visit_break(*as<Break>(s));
    case StmtKind::continue_: return visit_continue(*as<Continue>(s));
    case StmtKind::for_: return visit_for(*as<For>(s));
    case StmtKind::parallel_for: return visit_parallel_for(*as<ParallelFor>(s));
    case StmtKind::return_: return visit_return(*as<Return>(s));
    case StmtKind::assert_: return visit_assert(*as<Assert>(s));
    case StmtKind::print: return visit_print(*as<Print>(s));
    case StmtKind::ad_stack: return visit_ad_stack(*as<AdStack>(s));
    case StmtKind::ad_stack_op: return visit_ad_stack_op(*as<AdStackOp>(s));
    case StmtKind::simt: return visit_simt_stmt(*as<SimtStmt>(s));
    case StmtKind::call: return visit_call(*as<Call>(s));
    case StmtKind::graph_do_while: return visit_graph_do_while(*as<GraphDoWhile>(s));
  }
}

void IRVisitor::visit(const Block& b) {
  for (const Stmt& s : b) visit(s);
}

void IRVisitor::visit_binary(const Binary& e) {
  visit(e.a);
  visit(e.b);
}
void IRVisitor::visit_unary(const Unary& e) { visit(e.a); }
void IRVisitor::visit_cast(const Cast& e) { visit(e.a); }
void IRVisitor::visit_bit_cast(const BitCast& e) { visit(e.a); }
void IRVisitor::visit_select(const Select& e) {
  visit(e.cond);
  visit(e.a);
  visit(e.b);
}
void IRVisitor::visit_ref(const ArrayRef& ref) {
  for (const Expr& i : ref.indices) visit(i);
  for (const Expr& i : ref.element_indices) visit(i);
}
void IRVisitor::visit_load(const Load& e) { visit_ref(e.ref); }
void IRVisitor::visit_atomic(const Atomic& e) {
  if (!e.local) visit_ref(e.ref);
  if (e.expected) visit(e.expected);
  visit(e.value);
}
void IRVisitor::visit_decl(const Decl& s) { visit(s.value); }
void IRVisitor::visit_assign(const Assign& s) { visit(s.value); }
void IRVisitor::visit_store(const Store& s) {
  visit_ref(s.ref);
  visit(s.value);
}
void IRVisitor::visit_eval(const Eval& s) { visit(s.value); }
void IRVisitor::visit_if(const If& s) {
  visit(s.cond);
  visit(s.then_body);
  visit(s.else_body);
}
void IRVisitor::visit_while(const While& s) {
  visit(s.cond);
  visit(s.body);
}
void IRVisitor::visit_for(const For& s) {
  visit(s.begin);
  visit(s.end);
  visit(s.body);
}
void IRVisitor::visit_parallel_for(const ParallelFor& s) {
  for (const Expr& e : s.extents) visit(e);
  visit(s.body);
}
void IRVisitor::visit_return(const Return& s) {
  for (const Expr& v : s.values) visit(v);
}
void IRVisitor::visit_assert(const Assert& s) {
  visit(s.cond);
  for (const PrintItem& item : s.message) {
    if (item.value) visit(item.value);
  }
}
void IRVisitor::visit_ad_stack_op(const AdStackOp& s) {
  if (s.value) visit(s.value);
}
void IRVisitor::visit_print(const Print& s) {
  for (const PrintItem& item : s.items) {
    if (item.value) visit(item.value);
  }
}

void IRVisitor::visit_call(const Call& s) {
  for (const Expr& a : s.args) visit(a);
}

Expr IRMutator::mutate(const Expr& e) {
  QD_ASSERT(e != nullptr, "IRMutator::mutate(): null expression");
  switch (e->kind) {
    case ExprKind::constant: return visit_const(*as<Const>(e), e);
    case ExprKind::var: return visit_var(*as<Var>(e), e);
    case ExprKind::arg: return visit_arg(*as<Arg>(e), e);
    case ExprKind::binary: return visit_binary(*as<Binary>(e), e);
    case ExprKind::unary: return visit_unary(*as<Unary>(e), e);
    case ExprKind::cast: return visit_cast(*as<Cast>(e), e);
    case ExprKind::bit_cast: return visit_bit_cast(*as<BitCast>(e), e);
    case ExprKind::select: return visit_select(*as<Select>(e), e);
    case ExprKind::load: return visit_load(*as<Load>(e), e);
    case ExprKind::shape: return visit_shape(*as<Shape>(e), e);
    case ExprKind::atomic: return visit_atomic(*as<Atomic>(e), e);
    case ExprKind::ad_top: return visit_ad_top(*as<AdTop>(e), e);
    case ExprKind::simt: return visit_simt(*as<Simt>(e), e);
    case ExprKind::clock_counter: return visit_clock_counter(*as<ClockCounter>(e), e);
  }
  return e;
}

Block IRMutator::mutate(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::decl: return visit_decl(*as<Decl>(s), s);
    case StmtKind::assign: return visit_assign(*as<Assign>(s), s);
    case StmtKind::store: return visit_store(*as<Store>(s), s);
    case StmtKind::eval: return visit_eval(*as<Eval>(s), s);
    case StmtKind::if_: return visit_if(*as<If>(s), s);
    case StmtKind::while_: return visit_while(*as<While>(s), s);
    case StmtKind::break_: return visit_break(*as<Break>(s), s);
    case StmtKind::continue_: return visit_continue(*as<Continue>(s), s);
    case StmtKind::for_: return visit_for(*as<For>(s), s);
    case StmtKind::parallel_for: return visit_parallel_for(*as<ParallelFor>(s), s);
    case StmtKind::return_: return visit_return(*as<Return>(s), s);
    case StmtKind::assert_: return visit_assert(*as<Assert>(s), s);
    case StmtKind::print: return visit_print(*as<Print>(s), s);
    case StmtKind::ad_stack: return visit_ad_stack(*as<AdStack>(s), s);
    case StmtKind::ad_stack_op: return visit_ad_stack_op(*as<AdStackOp>(s), s);
    case StmtKind::simt: return visit_simt_stmt(*as<SimtStmt>(s), s);
    case StmtKind::call: return visit_call(*as<Call>(s), s);
    case StmtKind::graph_do_while: return visit_graph_do_while(*as<GraphDoWhile>(s), s);
  }
  return {s};
}

Block IRMutator::mutate(const Block& b) {
  Block out;
  out.reserve(b.size());
  for (const Stmt& s : b) {
    Block replaced = mutate(s);
    out.insert(out.end(), replaced.begin(), replaced.end());
  }
  // Element-wise pointer equality: an unchanged block keeps the caller's vector contents.
  return out == b ? b : out;
}

Expr IRMutator::visit_binary(const Binary& e, const Expr& self) {
  Expr a = mutate(e.a), b = mutate(e.b);
  return a == e.a && b == e.b ? self : Binary::make(e.op, a, b, e.type);
}
Expr IRMutator::visit_unary(const Unary& e, const Expr& self) {
  Expr a = mutate(e.a);
  return a == e.a ? self : Unary::make(e.op, a, e.type);
}
Expr IRMutator::visit_cast(const Cast& e, const Expr& self) {
  Expr a = mutate(e.a);
  return a == e.a ? self : Cast::make(e.to, a);
}
Expr IRMutator::visit_bit_cast(const BitCast& e, const Expr& self) {
  Expr a = mutate(e.a);
  return a == e.a ? self : BitCast::make(e.to, a);
}
Expr IRMutator::visit_select(const Select& e, const Expr& self) {
  Expr c = mutate(e.cond), a = mutate(e.a), b = mutate(e.b);
  return c == e.cond && a == e.a && b == e.b ? self : Select::make(c, a, b, e.type);
}
ArrayRef IRMutator::mutate_ref(const ArrayRef& ref, bool* changed) {
  ArrayRef out{ref.array, {}, {}};
  for (const Expr& i : ref.indices) {
    out.indices.push_back(mutate(i));
    if (out.indices.back() != i) *changed = true;
  }
  for (const Expr& i : ref.element_indices) {
    out.element_indices.push_back(mutate(i));
    if (out.element_indices.back() != i) *changed = true;
  }
  return out;
}
Expr IRMutator::visit_load(const Load& e, const Expr& self) {
  bool changed = false;
  ArrayRef ref = mutate_ref(e.ref, &changed);
  return changed ? Load::make(std::move(ref), e.type) : self;
}
Expr IRMutator::visit_atomic(const Atomic& e, const Expr& self) {
  bool changed = false;
  ArrayRef ref = e.local ? e.ref : mutate_ref(e.ref, &changed);
  Expr expected = e.expected ? mutate(e.expected) : nullptr;
  Expr value = mutate(e.value);
  if (!changed && value == e.value && expected == e.expected) return self;
  if (e.local) return Atomic::make_local(e.op, *e.local, value, e.type, expected);
  return Atomic::make_array(e.op, std::move(ref), value, e.type, expected);
}

Block IRMutator::visit_decl(const Decl& s, const Stmt& self) {
  Expr v = mutate(s.value);
  return {v == s.value ? self : Decl::make(s.name, s.declared_type, v, s.loc)};
}
Block IRMutator::visit_assign(const Assign& s, const Stmt& self) {
  Expr v = mutate(s.value);
  return {v == s.value ? self : Assign::make(s.name, v, s.loc)};
}
Block IRMutator::visit_store(const Store& s, const Stmt& self) {
  bool changed = false;
  ArrayRef ref = mutate_ref(s.ref, &changed);
  Expr v = mutate(s.value);
  return {!changed && v == s.value ? self : Store::make(std::move(ref), v, s.loc)};
}
Block IRMutator::visit_eval(const Eval& s, const Stmt& self) {
  Expr v = mutate(s.value);
  return {v == s.value ? self : Eval::make(v, s.loc)};
}
Block IRMutator::visit_if(const If& s, const Stmt& self) {
  Expr c = mutate(s.cond);
  Block t = mutate(s.then_body), e = mutate(s.else_body);
  return {c == s.cond && t == s.then_body && e == s.else_body ? self : If::make(c, t, e, s.loc)};
}
Block IRMutator::visit_while(const While& s, const Stmt& self) {
  Expr c = mutate(s.cond);
  Block body = mutate(s.body);
  return {c == s.cond && body == s.body ? self : While::make(c, body, s.loc)};
}
Block IRMutator::visit_for(const For& s, const Stmt& self) {
  Expr begin = mutate(s.begin), end = mutate(s.end);
  Block body = mutate(s.body);
  bool same = begin == s.begin && end == s.end && body == s.body;
  return {same ? self : For::make(s.var, begin, end, body, s.loc)};
}
Block IRMutator::visit_parallel_for(const ParallelFor& s, const Stmt& self) {
  std::vector<Expr> extents;
  for (const Expr& e : s.extents) extents.push_back(mutate(e));
  Block body = mutate(s.body);
  if (extents == s.extents && body == s.body) return {self};
  return {ParallelFor::make(s.vars, extents, s.block_dim, s.serialize, body, s.loc, s.privatized, s.name)};
}
Block IRMutator::visit_graph_do_while(const GraphDoWhile& s, const Stmt& self) {
  Block body = mutate(s.body);
  return {body == s.body ? self : GraphDoWhile::make(s.cond, body, s.loc)};
}
Block IRMutator::visit_return(const Return& s, const Stmt& self) {
  std::vector<Expr> values;
  for (const Expr& v : s.values) values.push_back(mutate(v));
  return {values == s.values ? self : Return::make(values, s.loc)};
}
Block IRMutator::visit_assert(const Assert& s, const Stmt& self) {
  Expr c = mutate(s.cond);
  std::vector<PrintItem> message;
  bool changed = c != s.cond;
  for (const PrintItem& item : s.message) {
    message.push_back({item.text, item.value ? mutate(item.value) : nullptr, item.spec});
    changed = changed || message.back().value != item.value;
  }
  return {changed ? Assert::make(c, std::move(message), s.loc) : self};
}
Block IRMutator::visit_ad_stack_op(const AdStackOp& s, const Stmt& self) {
  if (!s.value) return {self};
  Expr v = mutate(s.value);
  return {v == s.value ? self : AdStackOp::make_push(s.stack, v, s.loc)};
}

Block IRMutator::visit_print(const Print& s, const Stmt& self) {
  std::vector<PrintItem> items;
  bool changed = false;
  for (const PrintItem& item : s.items) {
    items.push_back({item.text, item.value ? mutate(item.value) : nullptr, item.spec});
    changed = changed || items.back().value != item.value;
  }
  return {changed ? Print::make(std::move(items), s.loc) : self};
}

void IRVisitor::visit_simt(const Simt& e) {
  for (const Expr& a : e.args) visit(a);
}
void IRVisitor::visit_simt_stmt(const SimtStmt& s) {
  for (const Expr& a : s.args) visit(a);
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& exprs, bool* changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(mutate(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}
Expr IRMutator::visit_simt(const Simt& e, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(e.args, &changed);
  return changed ? Simt::make(e.op, std::move(args), e.type, e.shared, e.atomic_op) : self;
}
Block IRMutator::visit_simt_stmt(const SimtStmt& s, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(s.args, &changed);
  return {changed ? SimtStmt::make(s.op, s.shared, s.dtype, s.shape, std::move(args), s.loc) : self};
}
Block IRMutator::visit_call(const Call& s, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(s.args, &changed);
  return {changed ? Call::make(s.function, std::move(args), s.by_ref, s.results, s.loc) : self};
}

Kernel mutate_kernel(IRMutator& mutator, const Kernel& kernel) {
  Kernel out = kernel;
  for (Function& f : out.functions) f.body = mutator.mutate(f.body);
  out.body = mutator.mutate(kernel.body);
  return out;
}

void visit_functions(IRVisitor& visitor, const Kernel& kernel) {
  for (const Function& f : kernel.functions) visitor.visit(f.body);
}

}  // namespace qd::ir
