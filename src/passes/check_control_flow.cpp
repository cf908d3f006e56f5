// src/passes/check_control_flow.cpp: rejects statements that appear where control flow cannot reach them.
//
// Requires: a parsed kernel (Stage::parsed).
// Ensures: parallel_for appears only directly in the kernel body or in a graph_do_while body, and
//          graph_do_while only there too (never in a function); return only
//          outside parallel_for; break only inside a serial loop; continue only inside a loop; qd.simt
//          operations only in a parallel_for, shared arrays declared once before use. The kernel is unchanged.
// Rejects (syntax errors): a parallel loop or graph_do_while nested in another statement or in a function, return inside
//          a parallel loop, break in a parallel loop or outside any loop, continue outside any loop.
#include <map>

#include "ir/ir_mutator.h"
#include "passes/passes.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

class ControlFlowChecker : public IRVisitor {
 public:
  explicit ControlFlowChecker(const Kernel& kernel) : kernel_(kernel) {}

  // A function body is checked like a statement nested in the kernel: no parallel loops in it.
  void check_function(const Function& f) {
    function_ = &f;
    visit_located(f.body);
    function_ = nullptr;
  }

  void check_body(const Block& body) {
    for (const Stmt& s : body) {
      loc_ = s->loc;
      if (s->kind == StmtKind::parallel_for) {
        in_parallel_ = true;
        visit_located(as<ParallelFor>(s)->body);
        in_parallel_ = false;
      } else if (const GraphDoWhile* loop = as<GraphDoWhile>(s)) {
        check_body(loop->body);  // top-level statements again: the host drives the loop around them
      } else {
        visit(s);
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& message) {
    throw KernelUserError(KernelUserError::Kind::syntax, message, loc_.line, loc_.col);
  }

  // Statements nested in others restore the enclosing location when they end.
  void visit_located(const Block& b) {
    SourceLoc outer = loc_;
    for (const Stmt& s : b) {
      loc_ = s->loc.line ? s->loc : outer;
      visit(s);
    }
    loc_ = outer;
  }

  void visit_if(const If& s) override {
    visit_located(s.then_body);
    visit_located(s.else_body);
  }
  void visit_while(const While& s) override { serial_loop(s.body); }
  void visit_for(const For& s) override { serial_loop(s.body); }
  void serial_loop(const Block& body) {
    ++serial_loops_;
    visit_located(body);
    --serial_loops_;
  }
  void visit_parallel_for(const ParallelFor&) override {
    if (function_) {
      fail("A parallel for loop cannot be inside function '" + function_->name + "' (a @qd.real_func); only the "
           "outermost loops of a kernel run in parallel. Loop in the kernel and call the function from the loop.");
    }
    fail("A parallel for loop can only be a top-level statement of kernel '" + kernel_.name +
         "', but this one is nested inside another statement. Only the outermost loops of a kernel run in "
         "parallel; move the loop to the top level or make it an ordinary serial loop.");
  }
  void visit_graph_do_while(const GraphDoWhile&) override {
    fail("qd.graph.do_while() can only be used at the kernel top level or directly inside another "
         "qd.graph.do_while() body of kernel '" + kernel_.name + "'; the host drives it around the kernel's "
         "top-level tasks, so it cannot be inside a loop, an if or a function.");
  }
  void visit_return(const Return&) override {
    if (in_parallel_) {
      fail("A return statement cannot be inside the parallel for loop of kernel '" + kernel_.name +
           "'; the loop's iterations run concurrently. Write the result to an array instead.");
    }
  }
  void visit_break(const Break&) override {
    if (serial_loops_ > 0) return;
    if (in_parallel_) {
      fail("A break statement cannot leave the parallel for loop of kernel '" + kernel_.name +
           "', whose iterations run concurrently. Use a serial loop inside it, or skip work with continue.");
    }
    fail("A break statement must be inside a loop.");
  }
  void visit_continue(const Continue&) override {
    if (serial_loops_ == 0 && !in_parallel_) fail("A continue statement must be inside a loop.");
  }

  // qd.simt operations need the block of threads that only a parallel loop has; shared arrays are
  // declared once, before use, and indexed with one index per extent.
  void simt_outside_parallel() {
    if (in_parallel_) return;
    fail("qd.simt block and subgroup operations (shared arrays, barriers, thread indices, shuffles) work only "
         "inside the outermost (parallel) for loop of kernel '" + kernel_.name + "'.");
  }
  void shared_use(const std::string& name, size_t indices) {
    auto found = shared_.find(name);
    if (found == shared_.end()) fail("Shared array '" + name + "' is used before it is declared.");
    if (found->second != indices) {
      fail("Shared array '" + name + "' has " + std::to_string(found->second) + " dimension(s) but is indexed with " +
           std::to_string(indices) + " index(es).");
    }
  }
  void visit_simt(const Simt& e) override {
    simt_outside_parallel();
    if (e.op == SimtOp::shared_load) shared_use(e.shared, e.args.size());
    if (e.op == SimtOp::shared_atomic) shared_use(e.shared, e.args.size() - 1);
    IRVisitor::visit_simt(e);
  }
  void visit_simt_stmt(const SimtStmt& s) override {
    simt_outside_parallel();
    if (s.op == SimtStmtOp::shared_decl) {
      for (int64_t extent : s.shape) {
        if (extent <= 0) fail("Shared array '" + s.shared + "' needs positive extents, but one is " +
                              std::to_string(extent) + ".");
      }
      if (!shared_.emplace(s.shared, s.shape.size()).second) fail("Shared array '" + s.shared + "' is declared twice.");
    }
    if (s.op == SimtStmtOp::shared_store) shared_use(s.shared, s.args.size() - 1);
    IRVisitor::visit_simt_stmt(s);
  }

  const Kernel& kernel_;
  const Function* function_ = nullptr;
  SourceLoc loc_;
  int serial_loops_ = 0;
  bool in_parallel_ = false;
  std::map<std::string, size_t> shared_;  // declared shared arrays -> their dimension count
};

}  // namespace

Kernel check_control_flow(const Kernel& kernel) {
  for (const Function& f : kernel.functions) ControlFlowChecker(kernel).check_function(f);
  ControlFlowChecker(kernel).check_body(kernel.body);
  return kernel;
}

}  // namespace qd::passes
