// src/codegen/cstyle_renderer.h: the code generator shared by every C-like target (CPU C++, CUDA).
//
// The base class renders expressions and serial statements; a subclass supplies what differs per
// target: the entry point's signature, how a parallel loop is launched, and the preamble.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/codegen.h"
#include "ir/ir.h"

namespace qd::codegen {

class CStyleRenderer {
 public:
  explicit CStyleRenderer(const ir::Kernel& kernel);
  virtual ~CStyleRenderer() = default;
  GeneratedSource render();

 protected:
  virtual std::string preamble() = 0;
  virtual std::string entry_signature() = 0;
  virtual void emit_parallel_for(const ir::ParallelFor& loop) = 0;
  // Stores the kernel's return value where the target's launcher reads it, and ends the kernel.
  virtual void emit_return(const ir::Return& r);

  // The update of a privatized target that replaces an atomic; empty where the atomic stays.
  virtual std::string private_update(const ir::Atomic&) { return ""; }

  virtual std::string type_name(DtypeCode t);
  virtual std::string render_const(const ir::Const& c);

  std::string expr(const ir::Expr& e);
  void emit_block(const ir::Block& b);
  void emit_stmt(const ir::Stmt& s);
  void emit_line(const std::string& text) { out_ += std::string(indent_, ' ') + text + "\n"; }
  // After a statement that may have failed a debug check, stop the task or kernel.
  void emit_error_check(const ir::Stmt& s);
  static std::string local_name(const std::string& name) { return "v_" + name; }
  // Unpacks `args` into named locals: p_NAME for scalars, a_NAME plus shapes (_nK) and strides (_tK).
  void emit_prologue();
  // Whether the generated code checks i32_extents() itself (error code 3); else the launcher does.
  virtual bool checks_extents_on_entry() const { return true; }
  // An f16 operand is computed in float.
  std::string operand(const ir::Expr& e);
  // An element's offset in its array's data (checked in debug mode), and the element itself.
  std::string element_offset(const ir::ArrayRef& ref);
  std::string element(const ir::ArrayRef& ref);

  const ir::Kernel& kernel_;
  // Whether a task or kernel stops when an earlier part reported an error: debug mode's checks, and
  // AD stack overflows (checked in every mode).
  bool checks_errors_ = false;
  std::string out_;
  int indent_ = 0;
  int next_id_ = 0;
  std::vector<std::string> assert_messages_;
  std::set<std::string> top_level_locals_;  // declared so far in the kernel body: what closures may capture

 private:
  void emit_simple_stmt(const ir::Stmt& s);
  void emit_for(const ir::For& loop);
  void emit_print(const ir::Print& p);
  static std::pair<std::string, std::string> print_format(DtypeCode t);
  std::string binary(const ir::Binary& b);
  std::string unary(const ir::Unary& u);
  std::string cast(const ir::Cast& c);
  std::string atomic(const ir::Atomic& a);
  std::string wrap(DtypeCode t, const std::string& value);
  std::string location_directive(const ir::SourceLoc& loc);
};

// The (parameter index, outer dim) extents a typed kernel reads as i32 `(shape ...)`: one too large
// for i32 must be an error at launch, not a wrapped, negative loop bound.
std::vector<std::pair<int, int>> i32_extents(const ir::Kernel& kernel);

// The position of a param in the kernel's params (its QdArg index).
int param_index(const ir::Kernel& kernel, const std::string& name);

// An array's extent local: n<dim>_<name>, unpacked by the prologue for every dim (element dims too).
std::string extent_name(const std::string& array, int dim);

// Whether a kernel declares an AD stack (reverse_ad's; its pushes may fail in any mode).
bool uses_ad_stack(const ir::Kernel& kernel);

// Names of the locals that a block assigns or updates atomically (so a closure must share them).
std::set<std::string> written_locals(const ir::Block& body);

}  // namespace qd::codegen
