// src/ir/ir.h: the kernel IR: immutable expression and statement nodes built by make(), and the kernel.
//
// Nodes are shared and never modified after make(); a pass that changes something builds new nodes
// and keeps the unchanged ones (see ir_mutator.h). Expression types are empty until infer_types.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quadrants/dtype.h"
#include "quadrants/kernel_warning.h"

namespace qd::ir {

// Python source position of a statement: 1-based line, 0-based column; line 0 means unknown.
struct SourceLoc {
  int line = 0;
  int col = 0;
};

enum class ExprKind {
  constant, var, arg, binary, unary, cast, bit_cast, select, load, shape, atomic, simt, ad_top, clock_counter
};

struct ExprNode {
  virtual ~ExprNode() = default;
  ExprKind kind;
  std::optional<DtypeCode> type;  // set by infer_types

 protected:
  ExprNode(ExprKind kind, std::optional<DtypeCode> type) : kind(kind), type(type) {}
};
using Expr = std::shared_ptr<const ExprNode>;

// Downcast by kind; nullptr when the node is of another kind.
template <class T>
const T* as(const Expr& e) {
  return e && e->kind == T::kKind ? static_cast<const T*>(e.get()) : nullptr;
}

// An untyped literal (`int`/`float` in the text) takes default_ip/default_fp in infer_types.
enum class LiteralKind { typed, untyped_int, untyped_float };

struct Const : ExprNode {
  static constexpr ExprKind kKind = ExprKind::constant;
  LiteralKind literal;
  int64_t int_value;  // integral and bool constants (u64 keeps its bit pattern)
  double float_value;  // floating constants
  bool holds_float() const { return type ? is_float(*type) : literal == LiteralKind::untyped_float; }
  static Expr make_int(DtypeCode type, int64_t value);
  static Expr make_float(DtypeCode type, double value);
  static Expr make_untyped_int(int64_t value);
  static Expr make_untyped_float(double value);
  Const(LiteralKind literal, std::optional<DtypeCode> type, int64_t i, double f)
      : ExprNode(kKind, type), literal(literal), int_value(i), float_value(f) {}
};

struct Var : ExprNode {
  static constexpr ExprKind kKind = ExprKind::var;
  std::string name;
  static Expr make(std::string name, std::optional<DtypeCode> type = std::nullopt);
  Var(std::string name, std::optional<DtypeCode> type) : ExprNode(kKind, type), name(std::move(name)) {}
};

// A scalar parameter's value.
struct Arg : ExprNode {
  static constexpr ExprKind kKind = ExprKind::arg;
  std::string name;
  static Expr make(std::string name, std::optional<DtypeCode> type = std::nullopt);
  Arg(std::string name, std::optional<DtypeCode> type) : ExprNode(kKind, type), name(std::move(name)) {}
};

enum class BinOp {
  add, sub, mul, truediv, floordiv, mod, pow, min, max, atan2,
  bit_and, bit_or, bit_xor, shl, shr, eq, ne, lt, le, gt, ge, logical_and, logical_or, rand_bits,
  raw_div, raw_mod,  // C semantics: truncating integer division, remainder with the dividend's sign, fmod
  lshr  // logical shift right: zeros shift in whatever the sign (qd.bit_shr)
};

struct Binary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::binary;
  BinOp op;
  Expr a, b;
  static Expr make(BinOp op, Expr a, Expr b, std::optional<DtypeCode> type = std::nullopt);
  Binary(BinOp op, Expr a, Expr b, std::optional<DtypeCode> type)
      : ExprNode(kKind, type), op(op), a(std::move(a)), b(std::move(b)) {}
};

enum class UnOp {
  neg, logical_not, bit_not, sqrt, rsqrt, sin, cos, tan, asin, acos, atan, tanh, exp, log, abs,
  floor, ceil, round, log2, exp2, isnan, isinf, popcnt, clz, ffs,
  // The operand itself, through which reverse and forward autodiff pass nothing (qd.stop_grad).
  stop_grad,
  // The operand, which must be a load, read from memory every time it is evaluated (qd.volatile_load).
  volatile_load
};

// isnan/isinf answer i32 0/1, like comparisons, and the bit counts popcnt/clz/ffs an i32 count; every
// other unary op keeps its operand's type.
bool unop_gives_i32(UnOp op);

struct Unary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::unary;
  UnOp op;
  Expr a;
  static Expr make(UnOp op, Expr a, std::optional<DtypeCode> type = std::nullopt);
  Unary(UnOp op, Expr a, std::optional<DtypeCode> type) : ExprNode(kKind, type), op(op), a(std::move(a)) {}
};

struct Cast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::cast;
  DtypeCode to;
  Expr a;
  static Expr make(DtypeCode to, Expr a);
  Cast(DtypeCode to, Expr a) : ExprNode(kKind, to), to(to), a(std::move(a)) {}
};

// A's bits reinterpreted as `to`; infer_types checks that the two types have the same size.
struct BitCast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::bit_cast;
  DtypeCode to;
  Expr a;
  static Expr make(DtypeCode to, Expr a);
  BitCast(DtypeCode to, Expr a) : ExprNode(kKind, to), to(to), a(std::move(a)) {}
};

struct Select : ExprNode {
  static constexpr ExprKind kKind = ExprKind::select;
  Expr cond, a, b;
  static Expr make(Expr cond, Expr a, Expr b, std::optional<DtypeCode> type = std::nullopt);
  Select(Expr cond, Expr a, Expr b, std::optional<DtypeCode> type)
      : ExprNode(kKind, type), cond(std::move(cond)), a(std::move(a)), b(std::move(b)) {}
};

// An element of an array param: one index per outer dim, one per element dim. Element indices are
// integer constants except where the frontend indexes a vector/matrix element at run time (`a[k][i]`).
struct ArrayRef {
  std::string array;
  std::vector<Expr> indices;
  std::vector<Expr> element_indices;
};

// The value of an integer constant element index; empty for a runtime one.
std::optional<int64_t> constant_index(const Expr& e);

struct Load : ExprNode {
  static constexpr ExprKind kKind = ExprKind::load;
  ArrayRef ref;
  static Expr make(ArrayRef ref, std::optional<DtypeCode> type = std::nullopt);
  Load(ArrayRef ref, std::optional<DtypeCode> type) : ExprNode(kKind, type), ref(std::move(ref)) {}
};

// The extent of outer dim `dim` of an array: i32 until infer_types gives it the kernel's index
// type (i64 when default_ip is 64-bit); an extent the type cannot hold is an error at launch.
struct Shape : ExprNode {
  static constexpr ExprKind kKind = ExprKind::shape;
  std::string array;
  int dim;
  static Expr make(std::string array, int dim, DtypeCode type = DtypeCode::i32);
  Shape(std::string array, int dim, DtypeCode type) : ExprNode(kKind, type), array(std::move(array)), dim(dim) {}
};

// A read of the hardware cycle counter (qd.clock_counter()): i64, no operands, and a new value at every
// evaluation, so no pass may merge two reads, move one out of a loop or evaluate it at compile time.
struct ClockCounter : ExprNode {
  static constexpr ExprKind kKind = ExprKind::clock_counter;
  static Expr make();
  ClockCounter() : ExprNode(kKind, DtypeCode::i64) {}
};

enum class AtomicOp { add, sub, min, max, bit_and, bit_or, bit_xor, mul, xchg, cas };

// Atomic read-modify-write of an array element, or of a local when `local` is set; yields the old value.
// cas stores `value` only where the old value equals `expected` (null for every other op).
struct Atomic : ExprNode {
  static constexpr ExprKind kKind = ExprKind::atomic;
  AtomicOp op;
  std::optional<std::string> local;
  ArrayRef ref;  // used when local is empty
  Expr value;
  Expr expected;
  static Expr make_array(AtomicOp op, ArrayRef ref, Expr value, std::optional<DtypeCode> type = std::nullopt,
                         Expr expected = nullptr);
  static Expr make_local(AtomicOp op, std::string local, Expr value, std::optional<DtypeCode> type = std::nullopt,
                         Expr expected = nullptr);
  Atomic(AtomicOp op, std::optional<std::string> local, ArrayRef ref, Expr value, std::optional<DtypeCode> type,
         Expr expected)
      : ExprNode(kKind, type), op(op), local(std::move(local)), ref(std::move(ref)), value(std::move(value)),
        expected(std::move(expected)) {}
};

// The value on top of an AD stack (AdStack); its type is the stack's element type (set by infer_types).
struct AdTop : ExprNode {
  static constexpr ExprKind kKind = ExprKind::ad_top;
  std::string stack;
  static Expr make(std::string stack, std::optional<DtypeCode> type = std::nullopt);
  AdTop(std::string stack, std::optional<DtypeCode> type) : ExprNode(kKind, type), stack(std::move(stack)) {}
};

enum class StmtKind {
  decl, assign, store, eval, if_, while_, break_, continue_, for_, parallel_for, return_, assert_, print, simt, call,
  ad_stack, ad_stack_op,  // reverse_ad's per-thread stacks (see AdStack)
  graph_do_while          // qd.graph.do_while: a host-driven loop around top-level statements (see GraphDoWhile)
};

struct StmtNode {
  virtual ~StmtNode() = default;
  StmtKind kind;
  SourceLoc loc;

 protected:
  StmtNode(StmtKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
};
using Stmt = std::shared_ptr<const StmtNode>;
using Block = std::vector<Stmt>;

template <class T>
const T* as(const Stmt& s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

// First assignment of a local; declared_type is empty until infer_types fixes it.
struct Decl : StmtNode {
  static constexpr StmtKind kKind = StmtKind::decl;
  std::string name;
  std::optional<DtypeCode> declared_type;
  Expr value;
  static Stmt make(std::string name, std::optional<DtypeCode> declared_type, Expr value, SourceLoc loc = {});
  Decl(std::string name, std::optional<DtypeCode> t, Expr value, SourceLoc loc)
      : StmtNode(kKind, loc), name(std::move(name)), declared_type(t), value(std::move(value)) {}
};

struct Assign : StmtNode {
  static constexpr StmtKind kKind = StmtKind::assign;
  std::string name;
  Expr value;
  static Stmt make(std::string name, Expr value, SourceLoc loc = {});
  Assign(std::string name, Expr value, SourceLoc loc)
      : StmtNode(kKind, loc), name(std::move(name)), value(std::move(value)) {}
};

struct Store : StmtNode {
  static constexpr StmtKind kKind = StmtKind::store;
  ArrayRef ref;
  Expr value;
  static Stmt make(ArrayRef ref, Expr value, SourceLoc loc = {});
  Store(ArrayRef ref, Expr value, SourceLoc loc) : StmtNode(kKind, loc), ref(std::move(ref)), value(std::move(value)) {}
};

struct Eval : StmtNode {
  static constexpr StmtKind kKind = StmtKind::eval;
  Expr value;
  static Stmt make(Expr value, SourceLoc loc = {});
  Eval(Expr value, SourceLoc loc) : StmtNode(kKind, loc), value(std::move(value)) {}
};

struct If : StmtNode {
  static constexpr StmtKind kKind = StmtKind::if_;
  Expr cond;
  Block then_body, else_body;
  static Stmt make(Expr cond, Block then_body, Block else_body, SourceLoc loc = {});
  If(Expr cond, Block t, Block e, SourceLoc loc)
      : StmtNode(kKind, loc), cond(std::move(cond)), then_body(std::move(t)), else_body(std::move(e)) {}
};

struct While : StmtNode {
  static constexpr StmtKind kKind = StmtKind::while_;
  Expr cond;
  Block body;
  static Stmt make(Expr cond, Block body, SourceLoc loc = {});
  While(Expr cond, Block body, SourceLoc loc) : StmtNode(kKind, loc), cond(std::move(cond)), body(std::move(body)) {}
};

struct Break : StmtNode {
  static constexpr StmtKind kKind = StmtKind::break_;
  static Stmt make(SourceLoc loc = {});
  explicit Break(SourceLoc loc) : StmtNode(kKind, loc) {}
};

struct Continue : StmtNode {
  static constexpr StmtKind kKind = StmtKind::continue_;
  static Stmt make(SourceLoc loc = {});
  explicit Continue(SourceLoc loc) : StmtNode(kKind, loc) {}
};

// Serial loop over [begin, end); the loop variable has begin's type once types are inferred.
struct For : StmtNode {
  static constexpr StmtKind kKind = StmtKind::for_;
  std::string var;
  Expr begin, end;
  Block body;
  static Stmt make(std::string var, Expr begin, Expr end, Block body, SourceLoc loc = {});
  For(std::string var, Expr begin, Expr end, Block body, SourceLoc loc)
      : StmtNode(kKind, loc), var(std::move(var)), begin(std::move(begin)), end(std::move(end)),
        body(std::move(body)) {}
};

// An atomic target that a parallel_for's chunks update in private and merge into once per chunk
// (privatize_atomics.cpp decides; a renderer that ignores it keeps the atomics, which stay correct).
// Every atomic on the target in the loop has op `op` (add also covers sub) and an unused result,
// and the loop reads or writes the target in no other way. Kind::own is another promise: the loop
// touches the array only at each iteration's own element (own_element_atomics.cpp), so its atomics,
// of any op and used or not, may be plain read-modify-writes.
struct Privatized {
  enum class Kind { element, local, array, own };
  Kind kind;
  AtomicOp op;        // add, min or max (Kind::own: add, unused)
  std::string local;  // Kind::local: a kernel-body local declared before the loop
  ArrayRef ref;       // Kind::element: the one element (loop-invariant indices); Kind::array: the array
};

// Parallel loop over the row-major product of [0, extent_k); only at the top level of a kernel.
struct ParallelFor : StmtNode {
  static constexpr StmtKind kKind = StmtKind::parallel_for;
  std::vector<std::string> vars;
  std::vector<Expr> extents;
  int block_dim;  // 0: let the runtime choose
  bool serialize;
  Block body;
  std::vector<Privatized> privatized;  // set by privatize_atomics
  // qd.loop_config(name=...): names the loop's task (upstream's loop_name): in IR dumps and in the CUDA
  // function's name, so profilers show it. "" when unnamed. Passes that rebuild the loop keep it.
  std::string name;
  static Stmt make(std::vector<std::string> vars, std::vector<Expr> extents, int block_dim, bool serialize,
                   Block body, SourceLoc loc = {}, std::vector<Privatized> privatized = {}, std::string name = "");
  ParallelFor(std::vector<std::string> vars, std::vector<Expr> extents, int block_dim, bool serialize, Block body,
              SourceLoc loc, std::vector<Privatized> privatized, std::string name)
      : StmtNode(kKind, loc), vars(std::move(vars)), extents(std::move(extents)), block_dim(block_dim),
        serialize(serialize), body(std::move(body)), privatized(std::move(privatized)), name(std::move(name)) {}
};

// qd.graph.do_while(COND): runs `body` once, then again while the single i32 element of the 0-d array param
// `cond` is nonzero. Only in the kernel body or directly in another GraphDoWhile's body; its body holds
// top-level statements (parallel_fors included), so the host side drives it: the CPU entry loops around
// its tasks, and the CUDA launcher reads `cond` back after each iteration (cuda_jit.h, CudaLoopEnd).
struct GraphDoWhile : StmtNode {
  static constexpr StmtKind kKind = StmtKind::graph_do_while;
  std::string cond;
  Block body;
  static Stmt make(std::string cond, Block body, SourceLoc loc = {});
  GraphDoWhile(std::string cond, Block body, SourceLoc loc)
      : StmtNode(kKind, loc), cond(std::move(cond)), body(std::move(body)) {}
};

// The statements that run at a kernel's top level, in order: `body`'s, with each GraphDoWhile replaced by
// its own body's (recursively). What renderers scan for top-level decls and parallel_fors.
std::vector<Stmt> top_level_statements(const Block& body);

// Ends the kernel with one value per entry of Kernel::returns (a vector, matrix or tuple is several).
struct Return : StmtNode {
  static constexpr StmtKind kKind = StmtKind::return_;
  std::vector<Expr> values;
  static Stmt make(std::vector<Expr> values, SourceLoc loc = {});
  Return(std::vector<Expr> values, SourceLoc loc) : StmtNode(kKind, loc), values(std::move(values)) {}
};

// One piece of a print: literal text when `value` is null, else a scalar printed in its type's format.
struct PrintItem {
  std::string text;
  Expr value;
  std::string spec;  // a value's format spec, "" for its type's default (ir/print_format.h)
};

// The most runtime values an assert's message may show: a failure carries them home in the kernel error
// record's index[] (QdKernelError, code 2), which has QD_MAX_NDIM slots.
constexpr int kMaxAssertValues = 8;

// Checked in debug mode only. `message` is the text shown on failure, as print items (at most
// kMaxAssertValues values), formatted when the kernel fails rather than when it runs.
struct Assert : StmtNode {
  static constexpr StmtKind kKind = StmtKind::assert_;
  Expr cond;
  std::vector<PrintItem> message;
  static Stmt make(Expr cond, std::vector<PrintItem> message, SourceLoc loc = {});
  static Stmt make(Expr cond, std::string message, SourceLoc loc = {});  // a constant message
  Assert(Expr cond, std::vector<PrintItem> message, SourceLoc loc)
      : StmtNode(kKind, loc), cond(std::move(cond)), message(std::move(message)) {}
};

// Writes its items, with no separator or newline of its own (the frontend adds them as text).
struct Print : StmtNode {
  static constexpr StmtKind kKind = StmtKind::print;
  std::vector<PrintItem> items;
  static Stmt make(std::vector<PrintItem> items, SourceLoc loc = {});
  Print(std::vector<PrintItem> items, SourceLoc loc) : StmtNode(kKind, loc), items(std::move(items)) {}
};

// A per-thread stack of `capacity` values of `type`, declared like a local (visible in its block, from
// here on); reverse_ad keeps loop-carried values on it. Renderers give it a fixed-size local array; a
// push past the capacity stops the kernel with error code 5 (never a silent overwrite).
struct AdStack : StmtNode {
  static constexpr StmtKind kKind = StmtKind::ad_stack;
  std::string name;
  DtypeCode type;
  int64_t capacity;
  static Stmt make(std::string name, DtypeCode type, int64_t capacity, SourceLoc loc = {});
  AdStack(std::string name, DtypeCode type, int64_t capacity, SourceLoc loc)
      : StmtNode(kKind, loc), name(std::move(name)), type(type), capacity(capacity) {}
};
// `(ad_push STACK VALUE)` when value is set, else `(ad_pop STACK)` (pops the top; the stack is not empty).
struct AdStackOp : StmtNode {
  static constexpr StmtKind kKind = StmtKind::ad_stack_op;
  std::string stack;
  Expr value;  // push: cast to the stack's type by infer_types; null: pop
  static Stmt make_push(std::string stack, Expr value, SourceLoc loc = {});
  static Stmt make_pop(std::string stack, SourceLoc loc = {});
  AdStackOp(std::string stack, Expr value, SourceLoc loc)
      : StmtNode(kKind, loc), stack(std::move(stack)), value(std::move(value)) {}
};

// Block- and subgroup-scope operations (qd.simt), valid only inside a parallel_for body (docs/IR.md,
// "Blocks and subgroups"). One node kind per side keeps them apart from the rest of the IR.
enum class SimtOp {
  thread_idx, block_idx, block_dim, lane, global_thread_idx,  // i32, no operands
  shuffle, shuffle_down, shuffle_up, shuffle_xor,             // (VALUE LANE_OR_DELTA): VALUE's type
  ballot, vote_all, vote_any,                                 // (PRED): u32 / i32 over the subgroup
  sync_all, sync_any, sync_count,                             // (PRED): block barrier with a reduction, i32
  lowest, highest,  // (V): the least / greatest value of V's type (-inf / inf for floats); typing folds them
  shared_load, shared_atomic                                  // on a shared array: (IDX...) / (IDX... VALUE)
};

struct Simt : ExprNode {
  static constexpr ExprKind kKind = ExprKind::simt;
  SimtOp op;
  std::string shared;                  // shared_load / shared_atomic: the shared array
  AtomicOp atomic_op = AtomicOp::add;  // shared_atomic
  std::vector<Expr> args;              // operands; for shared ops the indices, then the atomic's value
  static Expr make(SimtOp op, std::vector<Expr> args, std::optional<DtypeCode> type = std::nullopt,
                   std::string shared = {}, AtomicOp atomic_op = AtomicOp::add);
  Simt(SimtOp op, std::vector<Expr> args, std::optional<DtypeCode> type, std::string shared, AtomicOp atomic_op)
      : ExprNode(kKind, type), op(op), shared(std::move(shared)), atomic_op(atomic_op), args(std::move(args)) {}
};

enum class SimtStmtOp { shared_decl, shared_store, sync_block, sync_subgroup, fence_block, fence_subgroup, fence_grid };

struct SimtStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::simt;
  SimtStmtOp op;
  std::string shared;                 // shared_decl / shared_store
  DtypeCode dtype = DtypeCode::i32;   // shared_decl: the element type
  std::vector<int64_t> shape;         // shared_decl: constant extents
  std::vector<Expr> args;             // shared_store: the indices, then the value
  static Stmt make(SimtStmtOp op, std::string shared = {}, DtypeCode dtype = DtypeCode::i32,
                   std::vector<int64_t> shape = {}, std::vector<Expr> args = {}, SourceLoc loc = {});
  SimtStmt(SimtStmtOp op, std::string shared, DtypeCode dtype, std::vector<int64_t> shape, std::vector<Expr> args,
           SourceLoc loc)
      : StmtNode(kKind, loc), op(op), shared(std::move(shared)), dtype(dtype), shape(std::move(shape)),
        args(std::move(args)) {}
};

// Whether the op makes the threads of a subgroup or block wait for each other (a barrier or an exchange).
bool simt_waits(SimtOp op);
bool simt_waits(SimtStmtOp op);
std::string_view simt_op_name(SimtOp op);
std::string_view simt_stmt_op_name(SimtStmtOp op);
std::optional<SimtOp> simt_op_from_name(std::string_view name);

// Calls a Function of the kernel (a @qd.real_func): each argument is a value, or, where by_ref[k] is set,
// a `(var NAME)` whose local the callee reads and writes through a reference. The returned values are
// assigned, each cast, to the locals `results` (none: the values are dropped).
struct Call : StmtNode {
  static constexpr StmtKind kKind = StmtKind::call;
  std::string function;
  std::vector<Expr> args;
  std::vector<bool> by_ref;
  std::vector<std::string> results;
  static Stmt make(std::string function, std::vector<Expr> args, std::vector<bool> by_ref,
                   std::vector<std::string> results, SourceLoc loc = {});
  Call(std::string function, std::vector<Expr> args, std::vector<bool> by_ref, std::vector<std::string> results,
       SourceLoc loc)
      : StmtNode(kKind, loc), function(std::move(function)), args(std::move(args)), by_ref(std::move(by_ref)),
        results(std::move(results)) {}
};

// A parameter of a Function: a local of the callee initialized by the call (value), or a reference
// to the caller's local (ref); the body reads and assigns both as `(var NAME)`.
struct FunctionParam {
  enum class Kind { value, ref };
  Kind kind;
  std::string name;
  DtypeCode type;
};

// A function the kernel calls instead of inlining (docs/IR.md, `function`): its body has its own
// scope (the params, then its locals), reaches arrays through the kernel's array params by name, may
// call any function of the kernel (itself included) and ends with `return` of `returns.size()` values.
struct Function {
  std::string name;
  std::vector<FunctionParam> params;
  std::vector<DtypeCode> returns;  // empty: void
  Block body;
};

// A Python source line that statements come from: what debug messages printed by the kernel show.
struct SourceLine {
  std::string file;
  std::string function;
  std::string text;
};

struct KernelOptions {
  DtypeCode default_fp = DtypeCode::f32;
  DtypeCode default_ip = DtypeCode::i32;
  bool debug = false;   // (debug 1), qd.init(debug=True): every run-time check (bounds, asserts, overflow)
  bool bounds = false;  // (bounds 1), qd.init(check_out_of_bound=True): bounds checks only
  bool fast_math = false;
  std::string source_file;  // the Python file, for #line directives; empty when unknown
  int64_t ad_stack_size = 0;  // reverse_ad's stack capacity (qd.init(ad_stack_size=)); 0: kDefaultAdStackSize
  std::map<int, SourceLine> source_lines;  // by SourceLoc::line; the frontend writes them in debug mode only
  bool graph = false;  // (graph 1), @qd.kernel(graph=True): on CUDA the launch replays a CUDA graph of the tasks

  // Array and shared-array indices are checked: in debug mode, which implies it as upstream, or bounds mode.
  bool checks_bounds() const { return debug || bounds; }
};
// The AD stack capacity when qd.init(ad_stack_size=) is 0 (the default).
constexpr int64_t kDefaultAdStackSize = 1024;

struct Param {
  enum class Kind { scalar, array };
  Kind kind;
  std::string name;
  DtypeCode dtype;
  int ndim = 0;                    // arrays: outer dims
  std::vector<int> element_shape;  // arrays: () scalar, (3) vector, (3 2) matrix
  bool contiguous = false;
  bool writable = true;
  int total_dims() const { return ndim + static_cast<int>(element_shape.size()); }
};

// Reverse-mode autodiff: array param `grad` holds the gradient of array param `primal` (see reverse_ad.cpp).
struct AdjointPair {
  std::string primal, grad;
};

struct Kernel {
  std::string name;
  KernelOptions options;
  std::vector<Param> params;
  std::vector<AdjointPair> adjoints;  // non-empty: compile this kernel's adjoint instead (docs/IR.md)
  std::vector<AdjointPair> tangents;  // non-empty: also compute duals (forward mode): grad is the DUAL param
  // non-empty: check the global data access rule (validate_access.cpp): grad is PRIMAL's u8 READ marks
  std::vector<AdjointPair> validated;
  std::vector<DtypeCode> returns;  // the returned scalars in order; empty: void
  std::vector<Function> functions;  // called by `call` statements; every pass handles their bodies too
  Block body;
  std::vector<KernelWarning> warnings;  // found by the passes (infer_types: precision lost in assignments)
  const Param* find_param(const std::string& name) const;
  const Function* find_function(const std::string& name) const;
};

std::string_view binop_name(BinOp op);
std::string_view unop_name(UnOp op);
std::string_view atomic_op_name(AtomicOp op);
std::optional<BinOp> binop_from_name(std::string_view name);
std::optional<UnOp> unop_from_name(std::string_view name);
std::optional<AtomicOp> atomic_op_from_name(std::string_view name);

}  // namespace qd::ir
