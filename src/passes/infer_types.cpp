// src/passes/infer_types.cpp: gives every expression its type with Quadrants' (Taichi's) rules.
//
// Requires: Stage::checked.
// Ensures: Stage::typed. Untyped literals take default_ip/default_fp; a local's type is fixed by
//          its decl; assign/store/return/atomic values and binary operands are explicitly cast to
//          the target or promoted type; truediv and float math of integers compute in default_fp;
//          for/parallel_for bounds are i32, or i64 when a bound is 64-bit.
//          Function bodies are typed the same way from their params' types; a call casts each
//          by-value argument to its param's type.
// Rejects (type errors): bitwise operators and bitwise atomics on floats, a compare-and-swap on a float or
//          u1 target (type_rules' has_compare_and_swap), float indices or loop
//          bounds, a return in a kernel without a return type, a return with the wrong number of
//          values in a function, a by-reference argument or a call result whose local has another
//          type than the param or returned value.
// Warns (Kernel::warnings), as upstream does: an assign, store or atomic whose value has a wider type than
//          its target ("Assign may lose precision: f32 <- f64"), e.g. `total = 0.0` then `total += f64 value`.
#include <cmath>
#include <map>

#include "ir/ir_mutator.h"
#include "ir/print_format.h"
#include "ir/scopes.h"
#include "passes/passes.h"
#include "passes/type_rules.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;

std::string type_name(DtypeCode t) { return std::string(dtype_name(t)); }

// A literal that the target type holds exactly (`mask[i] = 1` into u8, `n = 3.0` into i32) loses nothing, so
// it does not warn; float literals into narrower floats do not either (0.1 is inexact in every width).
bool literal_fits(const Const& c, DtypeCode target) {
  bool is_float_literal = c.holds_float();
  if (is_float(target)) {
    if (is_float_literal || target == DtypeCode::f64) return true;
    int64_t exact = target == DtypeCode::f16 ? int64_t{1} << 11 : int64_t{1} << 24;
    return c.int_value >= -exact && c.int_value <= exact;
  }
  double value = is_float_literal ? c.float_value : static_cast<double>(c.int_value);
  if (is_float_literal && value != static_cast<double>(static_cast<int64_t>(value))) return false;
  int bits = 8 * dtype_size(target);
  double lo = is_signed(target) ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = is_signed(target) ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  return value >= lo && value <= hi;
}

Expr cast_to(const Expr& e, DtypeCode t) { return e->type == t ? e : Cast::make(t, e); }

class TypeInference : public IRMutator {
 public:
  explicit TypeInference(const Kernel& kernel) : kernel_(kernel), options_(kernel.options) {}

  std::vector<KernelWarning> warnings;  // in source order

  Block run(const Block& body) { return scoped(body, {}, DtypeCode::i32); }

  Block run_function(const Function& f) {
    function_ = &f;
    scopes_.push();
    for (const FunctionParam& p : f.params) scopes_.declare(p.name, p.type);
    Block body = scoped(f.body, {}, DtypeCode::i32);
    scopes_.pop();
    function_ = nullptr;
    return body;
  }

 private:
  [[noreturn]] void fail(const std::string& message) {
    throw KernelUserError(KernelUserError::Kind::type, message, loc_.line, loc_.col);
  }

  Block scoped(const Block& b, const std::vector<std::string>& loop_vars, DtypeCode loop_type) {
    SourceLoc outer = loc_;
    scopes_.push();
    for (const std::string& v : loop_vars) scopes_.declare(v, loop_type, true);
    Block out;
    for (const Stmt& s : b) {
      loc_ = s->loc.line ? s->loc : outer;
      Block replaced = mutate(s);
      out.insert(out.end(), replaced.begin(), replaced.end());
    }
    scopes_.pop();
    loc_ = outer;
    return out == b ? b : out;
  }

  // Upstream's rule: a value whose promotion with the target's type is not the target's type loses precision.
  // Statements without a location are the frontend's own (e.g. sparse activity masks), not the user's. A u1
  // target takes `value != 0`, and comparisons and `not` give i32 here (u1 upstream), so it never warns.
  void check_precision(const char* what, DtypeCode target, const Expr& value) {
    DtypeCode from = type_of(value);
    if (from == target || promote(target, from) == target || loc_.line == 0 || target == DtypeCode::u1) return;
    if (const Const* c = as<Const>(value); c && literal_fits(*c, target)) return;
    warnings.push_back({std::string(what) + " may lose precision: " + type_name(target) + " <- " + type_name(from),
                        loc_.line, loc_.col});
  }

  DtypeCode type_of(const Expr& e) {
    QD_ASSERT(e->type.has_value(), "infer_types(): an operand was left untyped");
    return *e->type;
  }

  Expr visit_const(const Const& c, const Expr& self) override {
    if (c.literal == LiteralKind::untyped_int) return Const::make_int(options_.default_ip, c.int_value);
    if (c.literal == LiteralKind::untyped_float) return Const::make_float(options_.default_fp, c.float_value);
    return self;
  }
  Expr visit_var(const Var& v, const Expr& self) override {
    std::optional<DtypeCode> t = scopes_.find(v.name)->type;
    return v.type == t ? self : Var::make(v.name, t);
  }
  // Extents take the kernel's index type, so default_ip=i64 kernels reach every element of a large array.
  Expr visit_shape(const Shape& e, const Expr& self) override {
    DtypeCode t = dtype_size(options_.default_ip) == 8 ? DtypeCode::i64 : DtypeCode::i32;
    return e.type == t ? self : Shape::make(e.array, e.dim, t);
  }
  Expr visit_arg(const Arg& a, const Expr& self) override {
    DtypeCode t = kernel_.find_param(a.name)->dtype;
    return a.type == t ? self : Arg::make(a.name, t);
  }
  Expr visit_binary(const Binary& b, const Expr& self) override;
  Expr visit_unary(const Unary& u, const Expr& self) override;
  Expr visit_cast(const Cast& c, const Expr& self) override {
    Expr a = mutate(c.a);
    return a == c.a ? self : Cast::make(c.to, a);
  }
  Expr visit_bit_cast(const BitCast& c, const Expr& self) override {
    Expr a = mutate(c.a);
    DtypeCode from = type_of(a);
    if (dtype_size(from) != dtype_size(c.to)) {
      fail("qd.bit_cast() needs a value and a type of the same size, but was given " + type_name(from) + " (" +
           std::to_string(dtype_size(from)) + " bytes) to reinterpret as " + type_name(c.to) + " (" +
           std::to_string(dtype_size(c.to)) + " bytes).");
    }
    return a == c.a ? self : BitCast::make(c.to, a);
  }
  Expr visit_select(const Select& s, const Expr& self) override {
    Expr cond = mutate(s.cond), a = mutate(s.a), b = mutate(s.b);
    DtypeCode t = promote(type_of(a), type_of(b));
    a = cast_to(a, t), b = cast_to(b, t);
    if (cond == s.cond && a == s.a && b == s.b && s.type == t) return self;
    return Select::make(cond, a, b, t);
  }
  ArrayRef typed_ref(const ArrayRef& ref, bool* changed) {
    ArrayRef out = mutate_ref(ref, changed);
    for (size_t i = 0; i < out.indices.size(); ++i) {
      if (is_float(type_of(out.indices[i]))) {
        fail("Array indices must be integers, but index " + std::to_string(i) + " of array '" + ref.array + "' is " +
             type_name(type_of(out.indices[i])) + ". Convert it with qd.cast(..., qd.i32).");
      }
    }
    for (const Expr& e : out.element_indices) {
      if (is_float(type_of(e))) {
        fail("A vector or matrix element of array '" + ref.array + "' is indexed with a " + type_name(type_of(e)) +
             "; indices must be integers. Convert it with qd.cast(..., qd.i32).");
      }
    }
    return out;
  }
  Expr visit_load(const Load& l, const Expr& self) override {
    bool changed = false;
    ArrayRef ref = typed_ref(l.ref, &changed);
    DtypeCode t = kernel_.find_param(l.ref.array)->dtype;
    return !changed && l.type == t ? self : Load::make(std::move(ref), t);
  }
  Expr visit_atomic(const Atomic& a, const Expr& self) override;

  Block visit_decl(const Decl& d, const Stmt& self) override {
    Expr v = mutate(d.value);
    DtypeCode t = d.declared_type ? *d.declared_type : type_of(v);
    v = cast_to(v, t);
    scopes_.declare(d.name, t);
    return {v == d.value && d.declared_type == t ? self : Decl::make(d.name, t, v, d.loc)};
  }
  // AD stacks live among the locals, with their element type.
  Block visit_ad_stack(const AdStack& s, const Stmt& self) override {
    scopes_.declare(s.name, s.type);
    return {self};
  }
  Expr visit_ad_top(const AdTop& e, const Expr& self) override {
    std::optional<DtypeCode> t = scopes_.find(e.stack)->type;
    return e.type == t ? self : AdTop::make(e.stack, t);
  }
  Block visit_ad_stack_op(const AdStackOp& s, const Stmt& self) override {
    if (!s.value) return {self};
    Expr v = cast_to(mutate(s.value), *scopes_.find(s.stack)->type);
    return {v == s.value ? self : AdStackOp::make_push(s.stack, v, s.loc)};
  }
  Block visit_assign(const Assign& a, const Stmt& self) override {
    Expr v = mutate(a.value);
    check_precision("Assign", *scopes_.find(a.name)->type, v);
    v = cast_to(v, *scopes_.find(a.name)->type);
    return {v == a.value ? self : Assign::make(a.name, v, a.loc)};
  }
  Block visit_print(const Print& s, const Stmt& self) override {
    Block out = IRMutator::visit_print(s, self);
    for (const PrintItem& item : as<Print>(out.front())->items) {
      if (item.spec.empty()) continue;
      std::string error = print_spec_error(item.spec, *item.value->type);
      if (!error.empty()) fail(error);
    }
    return out;
  }
  Block visit_assert(const Assert& s, const Stmt& self) override {
    Block out = IRMutator::visit_assert(s, self);
    for (const PrintItem& item : as<Assert>(out.front())->message) {
      if (item.spec.empty()) continue;
      std::string error = assert_spec_error(item.spec, *item.value->type);
      if (!error.empty()) fail("assert message: " + error);
    }
    return out;
  }
  Block visit_store(const Store& s, const Stmt& self) override {
    bool changed = false;
    ArrayRef ref = typed_ref(s.ref, &changed);
    Expr v = mutate(s.value);
    check_precision("Assign", kernel_.find_param(s.ref.array)->dtype, v);
    v = cast_to(v, kernel_.find_param(s.ref.array)->dtype);
    return {!changed && v == s.value ? self : Store::make(std::move(ref), v, s.loc)};
  }
  Block visit_if(const If& s, const Stmt& self) override {
    Expr c = mutate(s.cond);
    Block t = scoped(s.then_body, {}, DtypeCode::i32), e = scoped(s.else_body, {}, DtypeCode::i32);
    return {c == s.cond && t == s.then_body && e == s.else_body ? self : If::make(c, t, e, s.loc)};
  }
  Block visit_while(const While& s, const Stmt& self) override {
    Expr c = mutate(s.cond);
    Block body = scoped(s.body, {}, DtypeCode::i32);
    return {c == s.cond && body == s.body ? self : While::make(c, body, s.loc)};
  }
  Block visit_graph_do_while(const GraphDoWhile& s, const Stmt& self) override {
    Block body = scoped(s.body, {}, DtypeCode::i32);
    return {body == s.body ? self : GraphDoWhile::make(s.cond, body, s.loc)};
  }
  // Loop bounds: i32 unless one of them is 64-bit, then i64.
  DtypeCode loop_type(const std::vector<Expr>& bounds) {
    DtypeCode t = DtypeCode::i32;
    for (const Expr& b : bounds) {
      if (is_float(type_of(b))) {
        fail("Loop bounds must be integers, but one is " + type_name(type_of(b)) + ".");
      }
      if (dtype_size(type_of(b)) == 8) t = DtypeCode::i64;
    }
    return t;
  }
  Block visit_for(const For& f, const Stmt& self) override {
    Expr begin = mutate(f.begin), end = mutate(f.end);
    DtypeCode t = loop_type({begin, end});
    begin = cast_to(begin, t), end = cast_to(end, t);
    Block body = scoped(f.body, {f.var}, t);
    if (begin == f.begin && end == f.end && body == f.body) return {self};
    return {For::make(f.var, begin, end, body, f.loc)};
  }
  Block visit_parallel_for(const ParallelFor& p, const Stmt& self) override {
    std::vector<Expr> extents;
    for (const Expr& e : p.extents) extents.push_back(mutate(e));
    DtypeCode t = loop_type(extents);
    for (Expr& e : extents) e = cast_to(e, t);
    Block body = scoped(p.body, p.vars, t);
    if (extents == p.extents && body == p.body) return {self};
    return {ParallelFor::make(p.vars, extents, p.block_dim, p.serialize, body, p.loc, {}, p.name)};
  }
  Block visit_return(const Return& r, const Stmt& self) override {
    if (function_) return function_return(r, self);
    if (kernel_.returns.empty() && !r.values.empty()) {
      fail("Kernel '" + kernel_.name + "' returns a value but declares no return type; annotate it, e.g. "
           "'-> qd.f32'.");
    }
    if (r.values.size() != kernel_.returns.size()) {
      fail("Kernel '" + kernel_.name + "' declares " + std::to_string(kernel_.returns.size()) +
           " returned value(s) but this return gives " + std::to_string(r.values.size()) + ".");
    }
    std::vector<Expr> values;
    for (size_t i = 0; i < r.values.size(); ++i) values.push_back(cast_to(mutate(r.values[i]), kernel_.returns[i]));
    return {values == r.values ? self : Return::make(values, r.loc)};
  }

  Expr visit_simt(const Simt& e, const Expr& self) override;
  Expr type_extreme(const Expr& value, bool highest);
  Block visit_simt_stmt(const SimtStmt& s, const Stmt& self) override;
  std::vector<Expr> integer_indices(const std::vector<Expr>& indices, const std::string& what);
  Block function_return(const Return& r, const Stmt& self);
  Block visit_call(const Call& c, const Stmt& self) override;

  const Kernel& kernel_;
  const KernelOptions& options_;
  const Function* function_ = nullptr;  // the function whose body is typed; null in the kernel body
  Scopes scopes_;
  SourceLoc loc_;
  std::map<std::string, DtypeCode> shared_types_;  // shared arrays declared so far (names are kernel-unique)
};

std::vector<Expr> TypeInference::integer_indices(const std::vector<Expr>& indices, const std::string& what) {
  std::vector<Expr> out;
  for (const Expr& i : indices) {
    out.push_back(mutate(i));
    if (is_float(type_of(out.back()))) {
      fail(what + " must be an integer, but it is " + type_name(type_of(out.back())) +
           ". Convert it with qd.cast(..., qd.i32).");
    }
  }
  return out;
}

// `(simt lowest|highest V)`: a constant of V's type (V itself is not evaluated), the identity that an
// exclusive min/max scan gives its first lane; +-inf for floats, the integer range's ends otherwise.
Expr TypeInference::type_extreme(const Expr& value, bool highest) {
  DtypeCode t = type_of(value);
  const DtypeInfo& info = dtype_info(t);
  if (info.kind == DtypeKind::floating) {
    return Const::make_float(t, highest ? __builtin_inf() : -__builtin_inf());
  }
  if (info.kind == DtypeKind::boolean) return Const::make_int(t, highest ? 1 : 0);
  if (info.kind == DtypeKind::unsigned_int) {
    int64_t top = info.size == 8 ? -1 : (int64_t(1) << (info.size * 8)) - 1;  // u64's all-ones bit pattern
    return Const::make_int(t, highest ? top : 0);
  }
  int64_t top = info.size == 8 ? INT64_MAX : (int64_t(1) << (info.size * 8 - 1)) - 1;
  return Const::make_int(t, highest ? top : -top - 1);
}

// Shared array accesses take the array's type; indices, lanes and offsets are integers; thread
// indices are i32, a ballot u32, votes i32 0/1; a shuffle keeps its value's type.
Expr TypeInference::visit_simt(const Simt& e, const Expr& self) {
  if (e.op == SimtOp::lowest || e.op == SimtOp::highest) {
    return type_extreme(mutate(e.args[0]), e.op == SimtOp::highest);
  }
  bool shared = e.op == SimtOp::shared_load || e.op == SimtOp::shared_atomic;
  bool shuffle = e.op >= SimtOp::shuffle && e.op <= SimtOp::shuffle_xor;
  std::vector<Expr> args;
  DtypeCode t = e.op == SimtOp::ballot ? DtypeCode::u32 : DtypeCode::i32;
  if (shared) {
    t = shared_types_.at(e.shared);
    size_t n = e.args.size() - (e.op == SimtOp::shared_atomic ? 1 : 0);
    args = integer_indices({e.args.begin(), e.args.begin() + n}, "An index of shared array '" + e.shared + "'");
    if (e.op == SimtOp::shared_atomic) args.push_back(cast_to(mutate(e.args.back()), t));
  } else if (shuffle) {
    args = {mutate(e.args[0])};
    std::vector<Expr> lane = integer_indices({e.args[1]}, "A shuffle's lane or offset");
    args.push_back(lane[0]);
    t = type_of(args[0]);
  } else {
    for (const Expr& a : e.args) args.push_back(mutate(a));
  }
  if (args == e.args && e.type == t) return self;
  return Simt::make(e.op, std::move(args), t, e.shared, e.atomic_op);
}

Block TypeInference::visit_simt_stmt(const SimtStmt& s, const Stmt& self) {
  if (s.op == SimtStmtOp::shared_decl) shared_types_[s.shared] = s.dtype;
  if (s.op != SimtStmtOp::shared_store) return {self};
  DtypeCode t = shared_types_.at(s.shared);
  std::vector<Expr> args = integer_indices({s.args.begin(), s.args.end() - 1},
                                           "An index of shared array '" + s.shared + "'");
  args.push_back(cast_to(mutate(s.args.back()), t));
  return {args == s.args ? self : SimtStmt::make(s.op, s.shared, s.dtype, s.shape, std::move(args), s.loc)};
}

Expr TypeInference::visit_binary(const Binary& b, const Expr& self) {
  Expr x = mutate(b.a), y = mutate(b.b);
  DtypeCode tx = type_of(x), ty = type_of(y);
  if (needs_integers(b.op) && (is_float(tx) || is_float(ty))) {
    fail("unsupported operand type(s) for '" + std::string(python_symbol(b.op)) + "': " + type_name(tx) + " and " +
         type_name(ty) + "; operator '" + std::string(binop_name(b.op)) + "' needs integer operands.");
  }
  // Shifts compute in the left operand's type, as upstream (u8 << i32 is u8); other operators promote. A float
  // to an integer power keeps its integer exponent: it is computed by squaring, as upstream does (docs/IR.md).
  bool shift = b.op == BinOp::shl || b.op == BinOp::shr || b.op == BinOp::lshr;
  bool integer_power = b.op == BinOp::pow && is_float(tx) && !is_float(ty);
  DtypeCode t = shift || integer_power ? tx : promote(tx, ty);
  // Dividing two integers, or atan2 of them, computes in the default float type.
  if ((b.op == BinOp::truediv || b.op == BinOp::atan2) && !is_float(t)) t = options_.default_fp;
  if (b.op == BinOp::rand_bits) t = DtypeCode::u64;  // a 64-bit key and counter give 64 random bits
  x = cast_to(x, t);
  if (!integer_power) y = cast_to(y, t);
  DtypeCode result = gives_i32(b.op) ? DtypeCode::i32 : t;
  if (x == b.a && y == b.b && b.type == result) return self;
  return Binary::make(b.op, x, y, result);
}

Expr TypeInference::visit_unary(const Unary& u, const Expr& self) {
  Expr x = mutate(u.a);
  DtypeCode t = type_of(x);
  if (u.op == UnOp::volatile_load && x->kind != ExprKind::load) {  // the frontend only wraps loads
    fail("qd.volatile_load() reads an array element from memory, but was given a value that is not one (a "
         "local array, or an expression).");
  }
  if (needs_integer(u.op) && is_float(t)) {
    fail("Operator '" + std::string(unop_name(u.op)) + "' takes integral inputs only, but was given " +
         type_name(t) + ".");
  }
  if (needs_real(u.op) && !is_float(t)) {
    fail("Operator '" + std::string(unop_name(u.op)) + "' takes real inputs only, but was given " + type_name(t) +
         "; cast it first, e.g. qd." + std::string(unop_name(u.op)) + "(qd.cast(x, qd.f32)).");
  }
  if (is_float_math(u.op) && !is_float(t)) {
    t = options_.default_fp;
    x = cast_to(x, t);
  }
  DtypeCode result = unop_gives_i32(u.op) ? DtypeCode::i32 : t;
  if (x == u.a && u.type == result) return self;
  return Unary::make(u.op, x, result);
}

Expr TypeInference::visit_atomic(const Atomic& a, const Expr& self) {
  bool changed = false;
  ArrayRef ref = a.local ? a.ref : typed_ref(a.ref, &changed);
  DtypeCode t = a.local ? *scopes_.find(*a.local)->type : kernel_.find_param(a.ref.array)->dtype;
  bool bitwise = a.op == AtomicOp::bit_and || a.op == AtomicOp::bit_or || a.op == AtomicOp::bit_xor;
  if (bitwise && is_float(t)) {
    fail("Atomic '" + std::string(atomic_op_name(a.op)) + "' needs an integer target, but '" +
         (a.local ? *a.local : a.ref.array) + "' is " + type_name(t) + ".");
  }
  if (a.op == AtomicOp::cas && !has_compare_and_swap(t)) {
    fail("qd.atomic_cas() needs an integer target of 8 to 64 bits (i8, i16, i32, i64, u8, u16, u32 or u64), but '" +
         (a.local ? *a.local : a.ref.array) + "' is " + type_name(t) + ".");
  }
  Expr expected = a.expected ? cast_to(mutate(a.expected), t) : nullptr;
  Expr v = mutate(a.value);
  check_precision(("Atomic " + std::string(atomic_op_name(a.op))).c_str(), t, v);
  v = cast_to(v, t);
  if (!changed && v == a.value && a.type == t && expected == a.expected) return self;
  if (a.local) return Atomic::make_local(a.op, *a.local, v, t, expected);
  return Atomic::make_array(a.op, std::move(ref), v, t, expected);
}

Block TypeInference::function_return(const Return& r, const Stmt& self) {
  const std::vector<DtypeCode>& returns = function_->returns;
  if (r.values.size() != returns.size()) {
    fail("Function '" + function_->name + "' returns " + std::to_string(returns.size()) +
         " value(s), but this return gives " + std::to_string(r.values.size()) + ".");
  }
  std::vector<Expr> values;
  for (size_t i = 0; i < r.values.size(); ++i) values.push_back(cast_to(mutate(r.values[i]), returns[i]));
  return {values == r.values ? self : Return::make(values, r.loc)};
}

Block TypeInference::visit_call(const Call& c, const Stmt& self) {
  const Function& f = *kernel_.find_function(c.function);
  std::vector<Expr> args;
  for (size_t i = 0; i < c.args.size(); ++i) {
    Expr a = mutate(c.args[i]);
    if (c.by_ref[i] && type_of(a) != f.params[i].type) {
      fail("Argument '" + f.params[i].name + "' of function '" + f.name + "' is a reference to a " +
           type_name(f.params[i].type) + ", but local '" + as<Var>(a)->name + "' is " + type_name(type_of(a)) + ".");
    }
    args.push_back(c.by_ref[i] ? a : cast_to(a, f.params[i].type));
  }
  for (size_t i = 0; i < c.results.size(); ++i) {
    DtypeCode t = *scopes_.find(c.results[i])->type;
    if (t != f.returns[i]) {
      fail("Value " + std::to_string(i) + " returned by function '" + f.name + "' is " + type_name(f.returns[i]) +
           ", but the call assigns it to local '" + c.results[i] + "', which is " + type_name(t) + ".");
    }
  }
  return {args == c.args ? self : Call::make(c.function, args, c.by_ref, c.results, c.loc)};
}

}  // namespace

Kernel infer_types(const Kernel& kernel) {
  Kernel out = kernel;
  for (Function& f : out.functions) {
    TypeInference types(kernel);
    f.body = types.run_function(f);
    out.warnings.insert(out.warnings.end(), types.warnings.begin(), types.warnings.end());
  }
  TypeInference types(kernel);
  out.body = types.run(kernel.body);
  out.warnings.insert(out.warnings.end(), types.warnings.begin(), types.warnings.end());
  return out;
}

}  // namespace qd::passes
