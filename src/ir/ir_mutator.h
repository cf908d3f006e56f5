// src/ir/ir_mutator.h: base classes that walk the IR: IRVisitor reads it, IRMutator rebuilds it.
//
// Both recurse into every child by default, so a pass overrides only the nodes it cares about.
// IRMutator hands back the very same node when nothing under it changed, so unchanged subtrees stay
// shared and a pass can tell whether it changed anything by comparing pointers.
#pragma once

#include "ir/ir.h"

namespace qd::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);
  void visit(const Block& b);

 protected:
  virtual void visit_const(const Const&) {}
  virtual void visit_var(const Var&) {}
  virtual void visit_arg(const Arg&) {}
  virtual void visit_binary(const Binary& e);
  virtual void visit_unary(const Unary& e);
  virtual void visit_cast(const Cast& e);
  virtual void visit_bit_cast(const BitCast& e);
  virtual void visit_select(const Select& e);
  virtual void visit_load(const Load& e);
  virtual void visit_shape(const Shape&) {}
  virtual void visit_atomic(const Atomic& e);
  virtual void visit_ad_top(const AdTop&) {}
  virtual void visit_clock_counter(const ClockCounter&) {}
  virtual void visit_ad_stack(const AdStack&) {}
  virtual void visit_ad_stack_op(const AdStackOp& s);
  virtual void visit_decl(const Decl& s);
  virtual void visit_assign(const Assign& s);
  virtual void visit_store(const Store& s);
  virtual void visit_eval(const Eval& s);
  virtual void visit_if(const If& s);
  virtual void visit_while(const While& s);
  virtual void visit_break(const Break&) {}
  virtual void visit_continue(const Continue&) {}
  virtual void visit_for(const For& s);
  virtual void visit_parallel_for(const ParallelFor& s);
  virtual void visit_graph_do_while(const GraphDoWhile& s) { visit(s.body); }
  virtual void visit_return(const Return& s);
  virtual void visit_assert(const Assert& s);
  virtual void visit_print(const Print& s);
  virtual void visit_simt(const Simt& e);
  virtual void visit_simt_stmt(const SimtStmt& s);
  virtual void visit_call(const Call& s);
  void visit_ref(const ArrayRef& ref);
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  Expr mutate(const Expr& e);
  // A statement may become zero or several statements (a folded `if` splices its branch).
  Block mutate(const Stmt& s);
  Block mutate(const Block& b);

 protected:
  virtual Expr visit_const(const Const&, const Expr& self) { return self; }
  virtual Expr visit_var(const Var&, const Expr& self) { return self; }
  virtual Expr visit_arg(const Arg&, const Expr& self) { return self; }
  virtual Expr visit_binary(const Binary& e, const Expr& self);
  virtual Expr visit_unary(const Unary& e, const Expr& self);
  virtual Expr visit_cast(const Cast& e, const Expr& self);
  virtual Expr visit_bit_cast(const BitCast& e, const Expr& self);
  virtual Expr visit_select(const Select& e, const Expr& self);
  virtual Expr visit_load(const Load& e, const Expr& self);
  virtual Expr visit_shape(const Shape&, const Expr& self) { return self; }
  virtual Expr visit_atomic(const Atomic& e, const Expr& self);
  virtual Expr visit_ad_top(const AdTop&, const Expr& self) { return self; }
  virtual Expr visit_clock_counter(const ClockCounter&, const Expr& self) { return self; }
  virtual Block visit_ad_stack(const AdStack&, const Stmt& self) { return {self}; }
  virtual Block visit_ad_stack_op(const AdStackOp& s, const Stmt& self);
  virtual Block visit_decl(const Decl& s, const Stmt& self);
  virtual Block visit_assign(const Assign& s, const Stmt& self);
  virtual Block visit_store(const Store& s, const Stmt& self);
  virtual Block visit_eval(const Eval& s, const Stmt& self);
  virtual Block visit_if(const If& s, const Stmt& self);
  virtual Block visit_while(const While& s, const Stmt& self);
  virtual Block visit_break(const Break&, const Stmt& self) { return {self}; }
  virtual Block visit_continue(const Continue&, const Stmt& self) { return {self}; }
  virtual Block visit_for(const For& s, const Stmt& self);
  virtual Block visit_parallel_for(const ParallelFor& s, const Stmt& self);
  virtual Block visit_graph_do_while(const GraphDoWhile& s, const Stmt& self);
  virtual Block visit_return(const Return& s, const Stmt& self);
  virtual Block visit_assert(const Assert& s, const Stmt& self);
  virtual Block visit_print(const Print& s, const Stmt& self);
  virtual Expr visit_simt(const Simt& e, const Expr& self);
  virtual Block visit_simt_stmt(const SimtStmt& s, const Stmt& self);
  // Mutates each expression; sets *changed when any of them changed.
  std::vector<Expr> mutate_all(const std::vector<Expr>& exprs, bool* changed);
  virtual Block visit_call(const Call& s, const Stmt& self);
  // Mutates the index expressions; sets *changed when any of them changed.
  ArrayRef mutate_ref(const ArrayRef& ref, bool* changed);
};

// Applies the mutator to a kernel's body and to each function's body; unchanged blocks stay the same.
Kernel mutate_kernel(IRMutator& mutator, const Kernel& kernel);

// Visits the body of every function of the kernel (then nothing else): analyses of what a kernel
// reads or writes call this besides visiting the kernel body, since a `call` does not enter its callee.
void visit_functions(IRVisitor& visitor, const Kernel& kernel);

}  // namespace qd::ir
