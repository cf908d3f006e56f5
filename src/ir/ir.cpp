// src/ir/ir.cpp: make() constructors of the IR nodes and the operator name tables of the text form.
#include "ir/ir.h"

#include <array>
#include <utility>

namespace qd::ir {

Expr Const::make_int(DtypeCode type, int64_t value) {
  return std::make_shared<Const>(LiteralKind::typed, type, value, static_cast<double>(value));
}
Expr Const::make_float(DtypeCode type, double value) {
  return std::make_shared<Const>(LiteralKind::typed, type, static_cast<int64_t>(0), value);
}
Expr Const::make_untyped_int(int64_t value) {
  return std::make_shared<Const>(LiteralKind::untyped_int, std::nullopt, value, static_cast<double>(value));
}
Expr Const::make_untyped_float(double value) {
  return std::make_shared<Const>(LiteralKind::untyped_float, std::nullopt, static_cast<int64_t>(0), value);
}
Expr Var::make(std::string name, std::optional<DtypeCode> type) {
  return std::make_shared<Var>(std::move(name), type);
}
Expr Arg::make(std::string name, std::optional<DtypeCode> type) {
  return std::make_shared<Arg>(std::move(name), type);
}
Expr Binary::make(BinOp op, Expr a, Expr b, std::optional<DtypeCode> type) {
  return std::make_shared<Binary>(op, std::move(a), std::move(b), type);
}
Expr Unary::make(UnOp op, Expr a, std::optional<DtypeCode> type) {
  return std::make_shared<Unary>(op, std::move(a), type);
}
Expr Cast::make(DtypeCode to, Expr a) { return std::make_shared<Cast>(to, std::move(a)); }
Expr BitCast::make(DtypeCode to, Expr a) { return std::make_shared<BitCast>(to, std::move(a)); }
Expr Select::make(Expr cond, Expr a, Expr b, std::optional<DtypeCode> type) {
  return std::make_shared<Select>(std::move(cond), std::move(a), std::move(b), type);
}
Expr Load::make(ArrayRef ref, std::optional<DtypeCode> type) { return std::make_shared<Load>(std::move(ref), type); }
Expr ClockCounter::make() { return std::make_shared<ClockCounter>(); }
Expr Shape::make(std::string array, int dim, DtypeCode type) {
  return std::make_shared<Shape>(std::move(array), dim, type);
}
Expr Atomic::make_array(AtomicOp op, ArrayRef ref, Expr value, std::optional<DtypeCode> type, Expr expected) {
  return std::make_shared<Atomic>(op, std::nullopt, std::move(ref), std::move(value), type, std::move(expected));
}
Expr Atomic::make_local(AtomicOp op, std::string local, Expr value, std::optional<DtypeCode> type, Expr expected) {
  return std::make_shared<Atomic>(op, std::move(local), ArrayRef{}, std::move(value), type, std::move(expected));
}

Expr AdTop::make(std::string stack, std::optional<DtypeCode> type) {
  return std::make_shared<AdTop>(std::move(stack), type);
}
Stmt AdStack::make(std::string name, DtypeCode type, int64_t capacity, SourceLoc loc) {
  return std::make_shared<AdStack>(std::move(name), type, capacity, loc);
}
Stmt AdStackOp::make_push(std::string stack, Expr value, SourceLoc loc) {
  return std::make_shared<AdStackOp>(std::move(stack), std::move(value), loc);
}
Stmt AdStackOp::make_pop(std::string stack, SourceLoc loc) {
  return std::make_shared<AdStackOp>(std::move(stack), nullptr, loc);
}
Stmt Decl::make(std::string name, std::optional<DtypeCode> declared_type, Expr value, SourceLoc loc) {
  return std::make_shared<Decl>(std::move(name), declared_type, std::move(value), loc);
}
Stmt Assign::make(std::string name, Expr value, SourceLoc loc) {
  return std::make_shared<Assign>(std::move(name), std::move(value), loc);
}
Stmt Store::make(ArrayRef ref, Expr value, SourceLoc loc) {
  return std::make_shared<Store>(std::move(ref), std::move(value), loc);
}
Stmt Eval::make(Expr value, SourceLoc loc) { return std::make_shared<Eval>(std::move(value), loc); }
Stmt If::make(Expr cond, Block then_body, Block else_body, SourceLoc loc) {
  return std::make_shared<If>(std::move(cond), std::move(then_body), std::move(else_body), loc);
}
Stmt While::make(Expr cond, Block body, SourceLoc loc) {
  return std::make_shared<While>(std::move(cond), std::move(body), loc);
}
Stmt Break::make(SourceLoc loc) { return std::make_shared<Break>(loc); }
Stmt Continue::make(SourceLoc loc) { return std::make_shared<Continue>(loc); }
Stmt For::make(std::string var, Expr begin, Expr end, Block body, SourceLoc loc) {
  return std::make_shared<For>(std::move(var), std::move(begin), std::move(end), std::move(body), loc);
}
Stmt ParallelFor::make(std::vector<std::string> vars, std::vector<Expr> extents, int block_dim, bool serialize,
                       Block body, SourceLoc loc, std::vector<Privatized> privatized, std::string name) {
  return std::make_shared<ParallelFor>(std::move(vars), std::move(extents), block_dim, serialize, std::move(body),
                                       loc, std::move(privatized), std::move(name));
}
Stmt GraphDoWhile::make(std::string cond, Block body, SourceLoc loc) {
  return std::make_shared<GraphDoWhile>(std::move(cond), std::move(body), loc);
}
std::vector<Stmt> top_level_statements(const Block& body) {
  std::vector<Stmt> out;
  for (const Stmt& s : body) {
    if (const GraphDoWhile* g = as<GraphDoWhile>(s)) {
      std::vector<Stmt> inner = top_level_statements(g->body);
      out.insert(out.end(), inner.begin(), inner.end());
    } else {
      out.push_back(s);
    }
  }
  return out;
}
Stmt Return::make(std::vector<Expr> values, SourceLoc loc) {
  return std::make_shared<Return>(std::move(values), loc);
}
Stmt Assert::make(Expr cond, std::vector<PrintItem> message, SourceLoc loc) {
  return std::make_shared<Assert>(std::move(cond), std::move(message), loc);
}
Stmt Assert::make(Expr cond, std::string message, SourceLoc loc) {
  return make(std::move(cond), std::vector<PrintItem>{PrintItem{std::move(message), nullptr, ""}}, loc);
}

Stmt Print::make(std::vector<PrintItem> items, SourceLoc loc) {
  return std::make_shared<Print>(std::move(items), loc);
}

Stmt Call::make(std::string function, std::vector<Expr> args, std::vector<bool> by_ref, std::vector<std::string> results,
                SourceLoc loc) {
  return std::make_shared<Call>(std::move(function), std::move(args), std::move(by_ref), std::move(results), loc);
}

const Function* Kernel::find_function(const std::string& function_name) const {
  for (const Function& f : functions) {
    if (f.name == function_name) return &f;
  }
  return nullptr;
}

const Param* Kernel::find_param(const std::string& param_name) const {
  for (const Param& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

namespace {

// Indexed by the enum's value; the text form's spelling of each operator.
constexpr std::array<std::string_view, 27> kBinOpNames = {
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "min", "max", "atan2", "bit_and", "bit_or",
    "bit_xor", "shl", "shr", "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "rand_bits", "raw_div", "raw_mod",
    "lshr"};
constexpr std::array<std::string_view, 27> kUnOpNames = {
    "neg", "not", "bit_not", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "tanh",
    "exp", "log", "abs", "floor", "ceil", "round", "log2", "exp2", "isnan", "isinf", "popcnt", "clz", "ffs",
    "stop_grad", "volatile_load"};
constexpr std::array<std::string_view, 10> kAtomicOpNames = {"add", "sub", "min",  "max",  "and",
                                                             "or",  "xor", "mul", "xchg", "cas"};

template <class Op, size_t N>
std::optional<Op> find_op(const std::array<std::string_view, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}

}  // namespace

std::string_view binop_name(BinOp op) { return kBinOpNames[static_cast<size_t>(op)]; }
bool unop_gives_i32(UnOp op) {
  return op == UnOp::logical_not || op == UnOp::isnan || op == UnOp::isinf || op == UnOp::popcnt ||
         op == UnOp::clz || op == UnOp::ffs;
}

std::optional<int64_t> constant_index(const Expr& e) {
  const Const* c = as<Const>(e);
  if (!c || c->holds_float()) return std::nullopt;
  return c->int_value;
}

std::string_view unop_name(UnOp op) { return kUnOpNames[static_cast<size_t>(op)]; }
std::string_view atomic_op_name(AtomicOp op) { return kAtomicOpNames[static_cast<size_t>(op)]; }
std::optional<BinOp> binop_from_name(std::string_view name) { return find_op<BinOp>(kBinOpNames, name); }
std::optional<UnOp> unop_from_name(std::string_view name) { return find_op<UnOp>(kUnOpNames, name); }
std::optional<AtomicOp> atomic_op_from_name(std::string_view name) {
  return find_op<AtomicOp>(kAtomicOpNames, name);
}

}  // namespace qd::ir
