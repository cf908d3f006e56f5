// src/ir/ir_parser.cpp: the IR parser: text -> generic s-expression tree -> IR nodes.
#include "ir/ir_parser.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "quadrants/errors.h"
#include "quadrants/kernel_abi.h"

namespace qd::ir {
namespace {

struct SExpr {
  bool is_list = false;
  bool is_string = false;
  std::string atom;
  std::vector<SExpr> items;
  int line = 0, col = 0;
};

[[noreturn]] void fail(const SExpr& at, const std::string& what) {
  throw ValueError("IR text, line " + std::to_string(at.line) + " column " + std::to_string(at.col) + ": " + what);
}

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  SExpr read_top() {
    SExpr e = read();
    skip_space();
    if (pos_ < text_.size()) fail(here(), "unexpected text after the kernel.");
    return e;
  }

 private:
  SExpr here() const {
    SExpr s;
    s.line = line_;
    s.col = col_;
    return s;
  }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else {
        return;
      }
    }
  }
  SExpr read() {
    skip_space();
    SExpr out = here();
    if (pos_ >= text_.size()) fail(out, "the text ended inside an expression; a ')' is missing.");
    char c = text_[pos_];
    if (c == ')') fail(out, "unexpected ')'.");
    if (c == '(') {
      out.is_list = true;
      advance();
      for (skip_space(); pos_ < text_.size() && text_[pos_] != ')'; skip_space()) out.items.push_back(read());
      if (pos_ >= text_.size()) fail(out, "this '(' is never closed.");
      advance();
      return out;
    }
    if (c == '"') return read_string(out);
    while (pos_ < text_.size() && std::string_view(" \t\r\n();\"").find(text_[pos_]) == std::string_view::npos) {
      out.atom += text_[pos_];
      advance();
    }
    return out;
  }
  SExpr read_string(SExpr out) {
    out.is_string = true;
    advance();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        advance();
        out.atom += text_[pos_] == 'n' ? '\n' : text_[pos_];
      } else {
        out.atom += text_[pos_];
      }
      advance();
    }
    if (pos_ >= text_.size()) fail(out, "this string is never closed.");
    advance();
    return out;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

std::string describe(const SExpr& e) {
  if (e.is_list) return e.items.empty() || e.items[0].is_list ? "a list" : "(" + e.items[0].atom + " ...)";
  return e.is_string ? "a string" : "'" + e.atom + "'";
}

const std::string& atom(const SExpr& e, const char* what) {
  if (e.is_list || e.is_string || e.atom.empty()) fail(e, std::string("expected ") + what + ", found " + describe(e) + ".");
  return e.atom;
}

// A list whose head is `head`, with `count` items after the head (-1: any number).
const SExpr& form(const SExpr& e, const char* head, int count) {
  if (!e.is_list || e.items.empty() || e.items[0].is_list || e.items[0].atom != head) {
    fail(e, std::string("expected (") + head + " ...), found " + describe(e) + ".");
  }
  if (count >= 0 && static_cast<int>(e.items.size()) != count + 1) {
    fail(e, std::string("(") + head + " ...) takes " + std::to_string(count) + " items, found " +
                std::to_string(e.items.size() - 1) + ".");
  }
  return e;
}

const SExpr& list(const SExpr& e, const char* what) {
  if (!e.is_list) fail(e, std::string("expected a list of ") + what + ", found " + describe(e) + ".");
  return e;
}

int64_t parse_int(const SExpr& e) {
  const std::string& text = atom(e, "an integer");
  errno = 0;
  char* end = nullptr;
  int64_t value = text[0] == '-' ? std::strtoll(text.c_str(), &end, 10)
                                 : static_cast<int64_t>(std::strtoull(text.c_str(), &end, 10));
  if (*end != '\0' || errno == ERANGE) fail(e, "expected an integer, found '" + text + "'.");
  return value;
}

double parse_float(const SExpr& e) {
  const std::string& text = atom(e, "a number");
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (*end != '\0') fail(e, "expected a number, found '" + text + "'.");
  return value;
}

DtypeCode parse_type(const SExpr& e) {
  const std::string& name = atom(e, "a type");
  std::optional<DtypeCode> t = dtype_from_name(name);
  if (!t || name != dtype_name(*t)) {
    fail(e, "expected a type (u1 i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64), found '" + name + "'.");
  }
  return *t;
}

bool parse_flag(const SExpr& e) {
  int64_t v = parse_int(e);
  if (v != 0 && v != 1) fail(e, "expected 0 or 1, found " + std::to_string(v) + ".");
  return v == 1;
}

Expr parse_expr(const SExpr& e);

ArrayRef parse_ref(const SExpr& name, const SExpr& indices, const SExpr& element_indices) {
  ArrayRef ref{atom(name, "an array name"), {}, {}};
  for (const SExpr& i : list(indices, "index expressions").items) ref.indices.push_back(parse_expr(i));
  for (const SExpr& i : list(element_indices, "element indices").items) {
    // A bare integer is a constant element index; an expression is a runtime one.
    ref.element_indices.push_back(i.is_list ? parse_expr(i) : Const::make_int(DtypeCode::i32, parse_int(i)));
  }
  return ref;
}

Expr parse_const(const SExpr& e) {
  form(e, "const", 2);
  const std::string& type = atom(e.items[1], "a type");
  if (type == "int") return Const::make_untyped_int(parse_int(e.items[2]));
  if (type == "float") return Const::make_untyped_float(parse_float(e.items[2]));
  DtypeCode t = parse_type(e.items[1]);
  if (is_float(t)) return Const::make_float(t, parse_float(e.items[2]));
  return Const::make_int(t, parse_int(e.items[2]));
}

Expr parse_atomic(const SExpr& e) {
  const std::string& op_name = e.items.size() > 1 ? atom(e.items[1], "an atomic operator") : "";
  std::optional<AtomicOp> op = atomic_op_from_name(op_name);
  if (!op) fail(e, "expected (atomic OP ...) with OP one of add sub min max and or xor mul xchg cas.");
  // cas takes the expected value before the stored one: (atomic cas TARGET EXPECTED VALUE)
  const size_t extra = *op == AtomicOp::cas ? 1 : 0;
  if (e.items.size() == 4 + extra) {
    Expr expected = extra ? parse_expr(e.items[3]) : nullptr;
    return Atomic::make_local(*op, atom(form(e.items[2], "var", 1).items[1], "a local name"),
                              parse_expr(e.items[3 + extra]), std::nullopt, expected);
  }
  form(e, "atomic", static_cast<int>(5 + extra));
  Expr expected = extra ? parse_expr(e.items[5]) : nullptr;
  return Atomic::make_array(*op, parse_ref(e.items[2], e.items[3], e.items[4]), parse_expr(e.items[5 + extra]),
                            std::nullopt, expected);
}

// (simt OP ARG...), (shared_load NAME (IDX...)), (shared_atomic OP NAME (IDX...) VALUE); null for other heads.
Expr parse_simt_expr(const SExpr& e, const std::string& head) {
  std::vector<Expr> args;
  if (head == "simt") {
    std::optional<SimtOp> op = simt_op_from_name(e.items.size() > 1 ? atom(e.items[1], "a simt operator") : "");
    if (!op) fail(e, "expected (simt OP ...) with OP a block or subgroup operator (docs/IR.md).");
    for (size_t i = 2; i < e.items.size(); ++i) args.push_back(parse_expr(e.items[i]));
    return Simt::make(*op, std::move(args));
  }
  if (head == "shared_load") {
    form(e, "shared_load", 2);
    for (const SExpr& i : list(e.items[2], "index expressions").items) args.push_back(parse_expr(i));
    return Simt::make(SimtOp::shared_load, std::move(args), std::nullopt, atom(e.items[1], "a shared array name"));
  }
  if (head != "shared_atomic") return nullptr;
  form(e, "shared_atomic", 4);
  std::optional<AtomicOp> op = atomic_op_from_name(atom(e.items[1], "an atomic operator"));
  if (!op) fail(e, "expected (shared_atomic OP ...) with OP one of add sub min max and or xor mul xchg.");
  for (const SExpr& i : list(e.items[3], "index expressions").items) args.push_back(parse_expr(i));
  args.push_back(parse_expr(e.items[4]));
  return Simt::make(SimtOp::shared_atomic, std::move(args), std::nullopt, atom(e.items[2], "a shared array name"),
                    *op);
}

// (shared NAME TYPE (EXTENT...)), (shared_store NAME (IDX...) VALUE), (sync SCOPE), (fence SCOPE); null otherwise.
Stmt parse_simt_stmt(const SExpr& e, const std::string& head, SourceLoc loc) {
  if (head == "shared") {
    form(e, "shared", 3);
    std::vector<int64_t> shape;
    for (const SExpr& d : list(e.items[3], "extents").items) shape.push_back(parse_int(d));
    return SimtStmt::make(SimtStmtOp::shared_decl, atom(e.items[1], "a shared array name"), parse_type(e.items[2]),
                          std::move(shape), {}, loc);
  }
  if (head == "shared_store") {
    form(e, "shared_store", 3);
    std::vector<Expr> args;
    for (const SExpr& i : list(e.items[2], "index expressions").items) args.push_back(parse_expr(i));
    args.push_back(parse_expr(e.items[3]));
    return SimtStmt::make(SimtStmtOp::shared_store, atom(e.items[1], "a shared array name"), DtypeCode::i32, {},
                          std::move(args), loc);
  }
  if (head != "sync" && head != "fence") return nullptr;
  const std::string& scope = atom(form(e, head.c_str(), 1).items[1], "a scope");
  if (head == "sync" && (scope == "block" || scope == "subgroup")) {
    return SimtStmt::make(scope == "block" ? SimtStmtOp::sync_block : SimtStmtOp::sync_subgroup, {}, DtypeCode::i32,
                          {}, {}, loc);
  }
  if (head == "fence" && (scope == "block" || scope == "subgroup" || scope == "grid")) {
    SimtStmtOp op = scope == "block" ? SimtStmtOp::fence_block
                    : scope == "grid" ? SimtStmtOp::fence_grid : SimtStmtOp::fence_subgroup;
    return SimtStmt::make(op, {}, DtypeCode::i32, {}, {}, loc);
  }
  fail(e, "expected (" + head + " block|subgroup" + (head == "fence" ? "|grid" : "") + "), found scope '" + scope +
              "'.");
}

Expr parse_expr(const SExpr& e) {
  if (!e.is_list || e.items.empty()) fail(e, "expected an expression, found " + describe(e) + ".");
  const std::string& head = atom(e.items[0], "an expression name");
  if (head == "const") return parse_const(e);
  if (head == "var") return Var::make(atom(form(e, "var", 1).items[1], "a local name"));
  if (head == "arg") return Arg::make(atom(form(e, "arg", 1).items[1], "a parameter name"));
  if (head == "bin") {
    form(e, "bin", 3);
    std::optional<BinOp> op = binop_from_name(atom(e.items[1], "a binary operator"));
    if (!op) fail(e.items[1], "unknown binary operator '" + e.items[1].atom + "'.");
    return Binary::make(*op, parse_expr(e.items[2]), parse_expr(e.items[3]));
  }
  if (head == "un") {
    form(e, "un", 2);
    std::optional<UnOp> op = unop_from_name(atom(e.items[1], "a unary operator"));
    if (!op) fail(e.items[1], "unknown unary operator '" + e.items[1].atom + "'.");
    return Unary::make(*op, parse_expr(e.items[2]));
  }
  if (head == "cast") return Cast::make(parse_type(form(e, "cast", 2).items[1]), parse_expr(e.items[2]));
  if (head == "bit_cast") return BitCast::make(parse_type(form(e, "bit_cast", 2).items[1]), parse_expr(e.items[2]));
  if (head == "select") {
    form(e, "select", 3);
    return Select::make(parse_expr(e.items[1]), parse_expr(e.items[2]), parse_expr(e.items[3]));
  }
  if (head == "load") return Load::make(parse_ref(form(e, "load", 3).items[1], e.items[2], e.items[3]));
  if (head == "shape") {
    form(e, "shape", 2);
    return Shape::make(atom(e.items[1], "an array name"), static_cast<int>(parse_int(e.items[2])));
  }
  if (head == "atomic") return parse_atomic(e);
  if (head == "ad_top") return AdTop::make(atom(form(e, "ad_top", 1).items[1], "an AD stack name"));
  if (head == "clock_counter") {
    form(e, "clock_counter", 0);
    return ClockCounter::make();
  }
  if (Expr simt = parse_simt_expr(e, head)) return simt;
  fail(e, "unknown expression (" + head + " ...).");
}

Block parse_block(const SExpr& e);
Stmt parse_stmt(const SExpr& e, SourceLoc loc);

// (reduce OP (var NAME)), (reduce OP ARRAY (IDX...) (EIDX...)), (privatize OP ARRAY) or (own ARRAY); see ir.h.
Privatized parse_privatized(const SExpr& e) {
  const std::string& head = e.is_list && !e.items.empty() ? atom(e.items[0], "reduce, privatize or own") : "";
  if (head == "own") return {Privatized::Kind::own, AtomicOp::add, "", {atom(form(e, "own", 1).items[1], "an array name"), {}, {}}};
  if (head != "reduce" && head != "privatize") {
    fail(e, "expected (reduce ...), (privatize ...) or (own ...) in a config.");
  }
  std::optional<AtomicOp> op = e.items.size() > 1 ? atomic_op_from_name(atom(e.items[1], "an atomic operator"))
                                                  : std::nullopt;
  if (!op || (*op != AtomicOp::add && *op != AtomicOp::min && *op != AtomicOp::max)) {
    fail(e, "a privatized update's operator is add, min or max.");
  }
  if (head == "privatize") {
    return {Privatized::Kind::array, *op, "", {atom(form(e, "privatize", 2).items[2], "an array name"), {}, {}}};
  }
  if (e.items.size() == 3) {
    return {Privatized::Kind::local, *op, atom(form(e.items[2], "var", 1).items[1], "a local name"), {}};
  }
  form(e, "reduce", 4);
  return {Privatized::Kind::element, *op, "", parse_ref(e.items[2], e.items[3], e.items[4])};
}

Stmt parse_parallel_for(const SExpr& e, SourceLoc loc) {
  form(e, "parallel_for", 4);
  std::vector<std::string> vars;
  for (const SExpr& v : list(e.items[1], "loop variables").items) vars.push_back(atom(v, "a loop variable"));
  std::vector<Expr> extents;
  for (const SExpr& x : list(e.items[2], "extents").items) extents.push_back(parse_expr(x));
  if (vars.empty() || vars.size() != extents.size()) {
    fail(e, "a parallel_for needs one or more loop variables and one extent per variable.");
  }
  const SExpr& config = form(e.items[3], "config", -1);
  if (config.items.size() < 3) {
    fail(config, "expected (config (block_dim N) (serialize 0|1) [(name \"NAME\")] PRIVATIZED...).");
  }
  int block_dim = static_cast<int>(parse_int(form(config.items[1], "block_dim", 1).items[1]));
  bool serialize = parse_flag(form(config.items[2], "serialize", 1).items[1]);
  size_t next = 3;
  std::string name;
  const SExpr* named = next < config.items.size() ? &config.items[next] : nullptr;
  if (named && named->is_list && !named->items.empty() && !named->items[0].is_list && named->items[0].atom == "name") {
    const SExpr& text = form(*named, "name", 1).items[1];
    if (!text.is_string || text.atom.empty()) fail(text, "expected the loop's name as a non-empty string.");
    name = text.atom;
    ++next;
  }
  std::vector<Privatized> privatized;
  for (size_t i = next; i < config.items.size(); ++i) privatized.push_back(parse_privatized(config.items[i]));
  return ParallelFor::make(vars, extents, block_dim, serialize, parse_block(e.items[4]), loc, std::move(privatized),
                           std::move(name));
}

// (call NAME (ARG...) (RESULT...)): ARG is an expression, or (ref NAME) for a local passed by reference.
Stmt parse_call(const SExpr& e, SourceLoc loc) {
  form(e, "call", 3);
  std::vector<Expr> args;
  std::vector<bool> by_ref;
  for (const SExpr& a : list(e.items[2], "call arguments").items) {
    bool ref = a.is_list && !a.items.empty() && !a.items[0].is_list && a.items[0].atom == "ref";
    args.push_back(ref ? Var::make(atom(form(a, "ref", 1).items[1], "a local name")) : parse_expr(a));
    by_ref.push_back(ref);
  }
  std::vector<std::string> results;
  for (const SExpr& r : list(e.items[3], "result locals").items) results.push_back(atom(r, "a local name"));
  return Call::make(atom(e.items[1], "a function name"), std::move(args), std::move(by_ref), std::move(results), loc);
}

// The items of a print or an assert message from e.items[first] on: a string, an expression, or
// (fmt "SPEC" EXPR).
std::vector<PrintItem> parse_print_items(const SExpr& e, size_t first) {
  std::vector<PrintItem> items;
  for (size_t i = first; i < e.items.size(); ++i) {
    const SExpr& item = e.items[i];
    bool formatted = item.is_list && !item.items.empty() && !item.items[0].is_list && item.items[0].atom == "fmt";
    if (formatted) {
      form(item, "fmt", 2);
      if (!item.items[1].is_string) fail(item.items[1], "expected the format spec as a string.");
      items.push_back(PrintItem{"", parse_expr(item.items[2]), item.items[1].atom});
      continue;
    }
    items.push_back(item.is_string ? PrintItem{item.atom, nullptr, ""} : PrintItem{"", parse_expr(item), ""});
  }
  return items;
}

Stmt parse_stmt_form(const SExpr& e, const std::string& head, SourceLoc loc) {
  if (head == "decl") {
    if (e.items.size() == 4) {
      return Decl::make(atom(e.items[1], "a local name"), parse_type(e.items[2]), parse_expr(e.items[3]), loc);
    }
    form(e, "decl", 2);
    return Decl::make(atom(e.items[1], "a local name"), std::nullopt, parse_expr(e.items[2]), loc);
  }
  if (head == "assign") return Assign::make(atom(form(e, "assign", 2).items[1], "a local name"), parse_expr(e.items[2]), loc);
  if (head == "store") {
    form(e, "store", 4);
    return Store::make(parse_ref(e.items[1], e.items[2], e.items[3]), parse_expr(e.items[4]), loc);
  }
  if (head == "eval") return Eval::make(parse_expr(form(e, "eval", 1).items[1]), loc);
  if (head == "if") {
    form(e, "if", 3);
    return If::make(parse_expr(e.items[1]), parse_block(e.items[2]), parse_block(e.items[3]), loc);
  }
  if (head == "while") return While::make(parse_expr(form(e, "while", 2).items[1]), parse_block(e.items[2]), loc);
  if (head == "graph_do_while") {
    form(e, "graph_do_while", 2);
    return GraphDoWhile::make(atom(e.items[1], "an array name"), parse_block(e.items[2]), loc);
  }
  if (head == "break" || head == "continue") {
    form(e, head.c_str(), 0);
    return head == "break" ? Break::make(loc) : Continue::make(loc);
  }
  if (head == "ad_stack") {
    form(e, "ad_stack", 3);
    int64_t capacity = parse_int(e.items[3]);
    if (capacity < 1) fail(e.items[3], "an AD stack's capacity is at least 1, found " + std::to_string(capacity) + ".");
    return AdStack::make(atom(e.items[1], "an AD stack name"), parse_type(e.items[2]), capacity, loc);
  }
  if (head == "ad_push") {
    form(e, "ad_push", 2);
    return AdStackOp::make_push(atom(e.items[1], "an AD stack name"), parse_expr(e.items[2]), loc);
  }
  if (head == "ad_pop") return AdStackOp::make_pop(atom(form(e, "ad_pop", 1).items[1], "an AD stack name"), loc);
  if (head == "for") {
    form(e, "for", 4);
    return For::make(atom(e.items[1], "a loop variable"), parse_expr(e.items[2]), parse_expr(e.items[3]),
                     parse_block(e.items[4]), loc);
  }
  if (head == "parallel_for") return parse_parallel_for(e, loc);
  if (head == "return") {
    std::vector<Expr> values;
    for (size_t i = 1; i < e.items.size(); ++i) values.push_back(parse_expr(e.items[i]));
    return Return::make(std::move(values), loc);
  }
  if (head == "assert") {  // (assert COND ITEM...): the message's items, as print's
    if (e.items.size() < 3) fail(e, "expected (assert COND MESSAGE...): the message is missing.");
    return Assert::make(parse_expr(e.items[1]), parse_print_items(e, 2), loc);
  }
  if (head == "print") return Print::make(parse_print_items(e, 1), loc);
  if (Stmt simt = parse_simt_stmt(e, head, loc)) return simt;
  if (head == "call") return parse_call(e, loc);
  fail(e, "unknown statement (" + head + " ...).");
}

Stmt parse_stmt(const SExpr& e, SourceLoc loc) {
  if (!e.is_list || e.items.empty()) fail(e, "expected a statement, found " + describe(e) + ".");
  const std::string& head = atom(e.items[0], "a statement name");
  if (head == "loc") {
    form(e, "loc", 3);
    SourceLoc inner{static_cast<int>(parse_int(e.items[1])), static_cast<int>(parse_int(e.items[2]))};
    return parse_stmt(e.items[3], inner);
  }
  return parse_stmt_form(e, head, loc);
}

Block parse_block(const SExpr& e) {
  Block block;
  for (const SExpr& s : list(e, "statements").items) block.push_back(parse_stmt(s, {}));
  return block;
}

Param parse_param(const SExpr& e) {
  if (e.is_list && !e.items.empty() && e.items[0].atom == "scalar") {
    form(e, "scalar", 2);
    return Param{Param::Kind::scalar, atom(e.items[1], "a parameter name"), parse_type(e.items[2]), 0, {}, false, false};
  }
  form(e, "array", 6);
  Param p{Param::Kind::array, atom(e.items[1], "a parameter name"), parse_type(e.items[2]),
          static_cast<int>(parse_int(e.items[3])), {}, parse_flag(e.items[5]), parse_flag(e.items[6])};
  for (const SExpr& d : list(e.items[4], "element dims").items) p.element_shape.push_back(static_cast<int>(parse_int(d)));
  if (p.ndim < 0 || p.total_dims() > QD_MAX_NDIM) {
    fail(e, "an array has 0 to " + std::to_string(QD_MAX_NDIM) + " dims in all, outer and element dims together.");
  }
  return p;
}

// ((LINE "FILE" "FUNCTION" "TEXT")...): the source lines debug messages quote.
std::map<int, SourceLine> parse_source_lines(const SExpr& e) {
  std::map<int, SourceLine> lines;
  for (const SExpr& entry : list(e, "a list of source lines").items) {
    const SExpr& l = list(entry, "a source line (LINE \"FILE\" \"FUNCTION\" \"TEXT\")");
    bool strings = l.items.size() == 4 && l.items[1].is_string && l.items[2].is_string && l.items[3].is_string;
    if (!strings) fail(l, "expected a source line (LINE \"FILE\" \"FUNCTION\" \"TEXT\").");
    lines[static_cast<int>(parse_int(l.items[0]))] = SourceLine{l.items[1].atom, l.items[2].atom, l.items[3].atom};
  }
  return lines;
}

KernelOptions parse_options(const SExpr& e) {
  KernelOptions o;
  for (size_t i = 1; i < form(e, "options", -1).items.size(); ++i) {
    const SExpr& opt = e.items[i];
    if (!opt.is_list || opt.items.size() != 2) fail(opt, "expected an option (NAME VALUE).");
    const std::string& name = atom(opt.items[0], "an option name");
    if (name == "default_fp") o.default_fp = parse_type(opt.items[1]);
    else if (name == "default_ip") o.default_ip = parse_type(opt.items[1]);
    else if (name == "debug") o.debug = parse_flag(opt.items[1]);
    else if (name == "bounds") o.bounds = parse_flag(opt.items[1]);
    else if (name == "fast_math") o.fast_math = parse_flag(opt.items[1]);
    else if (name == "source_file" && opt.items[1].is_string) o.source_file = opt.items[1].atom;
    else if (name == "ad_stack_size") o.ad_stack_size = parse_int(opt.items[1]);
    else if (name == "graph") o.graph = parse_flag(opt.items[1]);
    else if (name == "source_lines") o.source_lines = parse_source_lines(opt.items[1]);
    else fail(opt, "unknown option '" + name + "'.");
  }
  return o;
}

// Removes the optional (adjoint (PRIMAL GRAD)...) clause between params and returns; its pairs.
std::vector<AdjointPair> take_adjoint_clause(SExpr& top) {
  std::vector<AdjointPair> pairs;
  if (!top.is_list || top.items.size() != 7) return pairs;
  for (size_t i = 1; i < form(top.items[4], "adjoint", -1).items.size(); ++i) {
    const SExpr& pair = list(top.items[4].items[i], "a pair (PRIMAL GRAD)");
    if (pair.items.size() != 2) fail(pair, "expected a pair (PRIMAL GRAD) of array param names.");
    pairs.push_back({atom(pair.items[0], "an array param name"), atom(pair.items[1], "an array param name")});
  }
  top.items.erase(top.items.begin() + 4);
  return pairs;
}

// Removes the optional (CLAUSE (PRIMAL PARTNER)...) clause between params and returns: `tangent` (forward
// mode, PARTNER is the dual) or `validate` (qd.ad.Tape(validation=True), PARTNER holds the read marks).
std::vector<AdjointPair> take_pairs_clause(SExpr& top, const std::string& clause_name) {
  if (!top.is_list || top.items.size() != 7) return {};
  const SExpr& clause = top.items[4];
  if (!clause.is_list || clause.items.empty() || clause.items[0].is_list || clause.items[0].atom != clause_name) return {};
  std::vector<AdjointPair> pairs;
  for (size_t i = 1; i < clause.items.size(); ++i) {
    const SExpr& pair = list(clause.items[i], "a pair (PRIMAL PARTNER)");
    if (pair.items.size() != 2) fail(pair, "expected a pair (PRIMAL PARTNER) of array param names.");
    pairs.push_back({atom(pair.items[0], "an array param name"), atom(pair.items[1], "an array param name")});
  }
  top.items.erase(top.items.begin() + 4);
  return pairs;
}

std::vector<DtypeCode> parse_returns(const SExpr& e) {
  const SExpr& returns = form(e, "returns", -1);
  if (returns.items.size() < 2) fail(returns, "(returns ...) takes void or one type per returned value, found none.");
  bool is_void = !returns.items[1].is_list && returns.items[1].atom == "void";
  if (is_void && returns.items.size() > 2) fail(returns.items[2], "(returns void) takes nothing after void.");
  std::vector<DtypeCode> types;
  for (size_t i = 1; i < returns.items.size() && !is_void; ++i) types.push_back(parse_type(returns.items[i]));
  return types;
}

// (function NAME (params (scalar N T) | (ref N T)...) (returns ...) (body STMT...)).
Function parse_function(const SExpr& e) {
  form(e, "function", 4);
  Function f{atom(e.items[1], "a function name"), {}, parse_returns(e.items[3]), {}};
  for (size_t i = 1; i < form(e.items[2], "params", -1).items.size(); ++i) {
    const SExpr& p = e.items[2].items[i];
    bool ref = p.is_list && !p.items.empty() && !p.items[0].is_list && p.items[0].atom == "ref";
    form(p, ref ? "ref" : "scalar", 2);
    f.params.push_back({ref ? FunctionParam::Kind::ref : FunctionParam::Kind::value, atom(p.items[1], "a parameter name"),
                        parse_type(p.items[2])});
  }
  for (size_t i = 1; i < form(e.items[4], "body", -1).items.size(); ++i) f.body.push_back(parse_stmt(e.items[4].items[i], {}));
  return f;
}

// Removes the (function ...) forms, which sit between returns and body; the functions, in order.
std::vector<Function> take_functions(SExpr& top) {
  std::vector<Function> functions;
  if (!top.is_list) return functions;
  for (size_t i = 4; i < top.items.size();) {
    const SExpr& f = top.items[i];
    if (!f.is_list || f.items.empty() || f.items[0].is_list || f.items[0].atom != "function") {
      ++i;
      continue;
    }
    functions.push_back(parse_function(f));
    top.items.erase(top.items.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return functions;
}

}  // namespace

Kernel parse_kernel(std::string_view text) {
  SExpr top = Reader(text).read_top();
  std::vector<Function> functions = take_functions(top);
  std::vector<AdjointPair> tangents = take_pairs_clause(top, "tangent");
  std::vector<AdjointPair> validated = take_pairs_clause(top, "validate");
  std::vector<AdjointPair> adjoints = take_adjoint_clause(top);
  form(top, "kernel", 5);
  Kernel k;
  k.name = atom(top.items[1], "the kernel's name");
  // The name becomes file names in the kernel cache and C symbols: an identifier, nothing else.
  bool identifier = !k.name.empty() && !std::isdigit(static_cast<unsigned char>(k.name[0]));
  for (char c : k.name) identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!identifier) fail(top.items[1], "the kernel's name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), but got '" +
                                          k.name + "'.");
  k.options = parse_options(top.items[2]);
  k.adjoints = std::move(adjoints);
  k.tangents = std::move(tangents);
  k.validated = std::move(validated);
  for (size_t i = 1; i < form(top.items[3], "params", -1).items.size(); ++i) {
    k.params.push_back(parse_param(top.items[3].items[i]));
  }
  k.returns = parse_returns(top.items[4]);
  k.functions = std::move(functions);
  for (size_t i = 1; i < form(top.items[5], "body", -1).items.size(); ++i) {
    k.body.push_back(parse_stmt(top.items[5].items[i], {}));
  }
  return k;
}

}  // namespace qd::ir
