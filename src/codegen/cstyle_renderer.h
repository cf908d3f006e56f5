// src/codegen/cstyle_renderer.h: the code generator shared by every C-like target (CPU C++, CUDA).
//
// The base class renders expressions and serial statements; a subclass supplies what differs per
// target: the entry point's signature, how a parallel loop is launched, and the preamble.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/int_ranges.h"
#include "ir/ir.h"

namespace qd::codegen {

class CStyleRenderer {
 public:
  explicit CStyleRenderer(const ir::Kernel& kernel);
  virtual ~CStyleRenderer() = default;
  GeneratedSource render();

 protected:
  virtual std::string preamble() = 0;
  // The runtime headers only debug kernels use (qd_overflow_checks.h), "" in release mode.
  std::string debug_includes() const {
    return kernel_.options.debug ? "#include \"qd_overflow_checks.h\"\n" : "";
  }
  virtual std::string entry_signature() = 0;
  virtual void emit_parallel_for(const ir::ParallelFor& loop) = 0;
  // Stores the kernel's return value where the target's launcher reads it, and ends the kernel.
  virtual void emit_return(const ir::Return& r);

  // The update of a privatized target that replaces an atomic; empty where the atomic stays.
  virtual std::string private_update(const ir::Atomic&) { return ""; }
  // Where an atomic's local lives: memory other threads may see (the atomic stays), the running thread's
  // own (done plainly), or either (a function's by-reference parameter on CUDA: decided at run time).
  enum class LocalStorage { shared, thread_private, unknown };
  virtual LocalStorage local_storage(const std::string&) const { return LocalStorage::shared; }

  // Privatized atomics (cstyle_privatized.cpp). An accumulator holds a thread's part of the reduction
  // into a privatized element or local; declare_accumulators declares one, at the identity, for each
  // of a loop's, and accumulator_update is the update replacing an atomic on its target ("" if none).
  struct Accumulator {
    const ir::Privatized* entry;
    std::string name;
    DtypeCode type;
  };
  std::string privatized_identity(ir::AtomicOp op, DtypeCode type);
  DtypeCode kernel_local_type(const std::string& name);
  void declare_accumulators(const ir::ParallelFor& loop);
  std::string accumulator_update(const ir::Atomic& a);
  std::string accumulator_target(const Accumulator& acc);  // the element or local it merges into
  // The C++ test that no privatized array of the loop overlaps another array the loop touches: a read
  // through the other argument must see this thread's updates, as with atomics.
  std::string separate_arrays(const ir::ParallelFor& loop);
  std::vector<Accumulator> accumulators_;  // of the loop being emitted
  // The loop's (own ARRAY) entries, while its separate-arrays version is emitted: own_update is then the
  // plain read-modify-write replacing an atomic on such an array ("" for others).
  void enter_own_arrays(const ir::ParallelFor& loop);
  std::string own_update(const ir::Atomic& a);
  // An atomic on an array element done as a plain read-modify-write (qd_local_<op>, returning the old value), or ""
  // where that is not possible (a local, a half or bool element). For code that no other thread runs beside:
  // own arrays (above) and serial tasks (cpu_renderer.cpp).
  std::string plain_update(const ir::Atomic& a);
  std::set<std::string> own_arrays_;

  // qd.simt (cstyle_simt.cpp): block indices, subgroup exchanges, barriers and fences are the
  // target's; shared arrays are flat arrays s_NAME on both targets.
  virtual std::string simt_op(const ir::Simt& e) = 0;
  virtual void emit_simt_stmt(const ir::SimtStmt& s) = 0;
  std::string simt(const ir::Simt& e);
  void emit_shared_store(const ir::SimtStmt& s);
  std::string shared_offset(const std::string& name, const std::vector<ir::Expr>& indices);
  // The C type a subgroup exchange carries a value of type t as, and the source lane of a shuffle.
  static std::string shuffle_carrier(DtypeCode t);
  const ir::SimtStmt* shared_decl(const std::string& name);

  virtual std::string type_name(DtypeCode t);
  virtual std::string render_const(const ir::Const& c);

  std::string expr(const ir::Expr& e);
  void emit_block(const ir::Block& b);
  void emit_stmt(const ir::Stmt& s);
  void emit_top_level(const ir::Block& body);
  // qd.graph.do_while around top-level statements (the CPU entry's host loop; CUDA plans tasks instead).
  void emit_graph_do_while(const ir::GraphDoWhile& loop);
  void emit_line(const std::string& text) { out_ += std::string(indent_, ' ') + text + "\n"; }
  // After a statement that may have failed a debug check, stop the task or kernel.
  void emit_error_check(const ir::Stmt& s);
  static std::string local_name(const std::string& name) { return "v_" + name; }
  // How expr() renders a local other than as local_name (cpu_simd.cpp: one lane of a vector).
  std::map<std::string, std::string> var_text_;
  // Runs lanes of a CPU loop together (cpu_simd.cpp), rendering what has no vector form with this class.
  friend class SimdLanes;
  friend void emit_simd_groups(CStyleRenderer&, const ir::ParallelFor&, const std::string&, const std::string&,
                               const std::string&);
  // Unpacks `args` into named locals: p_NAME for scalars, a_NAME plus shapes (_nK) and strides (_tK).
  void emit_prologue();
  // Whether the generated code checks i32_extents() itself (error code 3); else the launcher does.
  virtual bool checks_extents_on_entry() const { return true; }
  // An f16 operand is computed in float.
  std::string operand(const ir::Expr& e);
  // Functions (cstyle_functions.cpp): the struct QdFunctions holding the arrays they use and one
  // member function per ir::Function, emitted before the entry; the instance qd_fn built after the
  // prologue; a call statement; a function's return.
  void emit_functions();
  void emit_functions_instance();
  void emit_call(const ir::Call& c);
  void emit_function_return(const ir::Return& r);
  // What a member function is declared with: "" on the CPU, "__device__ " on CUDA.
  virtual std::string function_qualifier() const { return ""; }
  // What stops the current code after a failed debug check: the kernel (task) or the function.
  std::string error_return() const { return current_function_ ? "return {};" : "return;"; }

  // An element's offset in its array's data (checked in debug mode), and the element itself.
  std::string element_offset(const ir::ArrayRef& ref);
  std::string element(const ir::ArrayRef& ref);
  std::string volatile_load(const ir::Load& l);

  // Value ranges of integer locals in scope (int_ranges.h): which signed arithmetic can overflow.
  // A loop binds its variables before its body; a decl binds its local unless something assigns it.
  void bind_loop_var(const std::string& name, const ir::Expr* begin, const ir::Expr& end, DtypeCode type);
  void bind_loop_vars(const ir::ParallelFor& loop);
  IntRanges ranges_;
  std::set<std::string> written_;  // locals assigned anywhere in the kernel or its functions

  const ir::Kernel& kernel_;
  // Whether a task or kernel stops when an earlier part reported an error: debug mode's checks, and
  // AD stack overflows (checked in every mode).
  bool checks_errors_ = false;
  std::string out_;
  int indent_ = 0;
  int next_id_ = 0;
  std::vector<std::string> assert_messages_;
  std::map<std::string, int> shared_messages_;  // debug mode: a shared array's description in assert_messages_
  std::set<std::string> top_level_locals_;  // declared so far in the kernel body: what closures may capture
  const ir::Function* current_function_ = nullptr;  // the function whose body is being emitted
  ir::SourceLoc loc_;  // of the statement being emitted (line 0: the frontend's or a pass's own)

 private:
  void emit_simple_stmt(const ir::Stmt& s);
  void emit_function(const ir::Function& f);
  std::vector<std::string> function_arrays() const;
  void emit_for(const ir::For& loop);
  void emit_print(const ir::Print& p);
  void emit_assert(const ir::Assert& a);
  std::string binary(const ir::Binary& b);
  std::string unary(const ir::Unary& u);
  std::string cast(const ir::Cast& c);
  std::string atomic(const ir::Atomic& a);
  std::string wrap(DtypeCode t, const std::string& value);
  std::string wrapping_binary(const ir::Binary& b, const std::string& x, const std::string& y);
  std::string location_directive(const ir::SourceLoc& loc);
};

// The (parameter index, outer dim) extents a typed kernel reads as i32 `(shape ...)`: one too large
// for i32 must be an error at launch, not a wrapped, negative loop bound.
std::vector<std::pair<int, int>> i32_extents(const ir::Kernel& kernel);

// i32, i64, u32, u64, f32, f64: the types C computes in as they are (no promotion to int).
bool is_native_width(DtypeCode t);

// The C operator of a binary op that has one (arithmetic, bitwise, shifts, comparisons); nullptr otherwise.
const char* binary_symbol(ir::BinOp op);

// The position of a param in the kernel's params (its QdArg index).
int param_index(const ir::Kernel& kernel, const std::string& name);

// An array's extent local: n<dim>_<name>, unpacked by the prologue for every dim (element dims too).
std::string extent_name(const std::string& array, int dim);

// Names of the locals that a block assigns, updates atomically, passes by reference to a function or
// assigns a function's results to (so a closure must share them).

// Whether a kernel declares an AD stack (reverse_ad's; its pushes may fail in any mode).
bool uses_ad_stack(const ir::Kernel& kernel);

std::set<std::string> written_locals(const ir::Block& body);

}  // namespace qd::codegen
