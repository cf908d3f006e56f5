// src/ir/verifier.cpp: checks the invariants of each Stage; user-facing versions of these checks live
// in src/passes/check_*.cpp, so a failure here is always our bug, never the user's.
#include "ir/verifier.h"

#include <map>

#include "ir/ir_printer.h"
#include "ir/scopes.h"
#include "quadrants/errors.h"

namespace qd::ir {
namespace {

bool is_comparison(BinOp op) {
  return op == BinOp::eq || op == BinOp::ne || op == BinOp::lt || op == BinOp::le || op == BinOp::gt ||
         op == BinOp::ge || op == BinOp::logical_and || op == BinOp::logical_or;
}

class Verifier {
 public:
  Verifier(const Kernel& kernel, Stage stage) : kernel_(kernel), stage_(stage) {}

  void run() {
    for (const Function& f : kernel_.functions) {
      in_function_ = true;
      returns_ = &f.returns;
      scopes_.push();
      for (const FunctionParam& p : f.params) {
        require(scopes_.declare(p.name, p.type) || stage_ == Stage::parsed, "function parameter declared twice");
      }
      block(f.body);
      scopes_.pop();
    }
    in_function_ = false;
    returns_ = &kernel_.returns;
    scopes_.push();
    block(kernel_.body);
  }

 private:
  void require(bool cond, const std::string& what) { QD_ASSERT(cond, "verify(): " + what); }

  void expect_type(const Expr& e, std::optional<DtypeCode> t, const char* what) {
    if (stage_ != Stage::typed) return;
    require(e->type.has_value(), std::string(what) + " has no type: " + print_expr(e));
    require(!t || e->type == t, std::string(what) + " has type " + std::string(dtype_name(*e->type)) +
                                    " where " + std::string(dtype_name(*t)) + " is required: " + print_expr(e));
  }

  const Param& array(const ArrayRef& ref) {
    const Param* p = kernel_.find_param(ref.array);
    require(p && p->kind == Param::Kind::array, "no array param named " + ref.array);
    if (stage_ == Stage::parsed) return *p;
    require(static_cast<int>(ref.indices.size()) == p->ndim, "wrong index count on " + ref.array);
    require(ref.element_indices.size() == p->element_shape.size(), "wrong element index count on " + ref.array);
    for (size_t i = 0; i < ref.element_indices.size(); ++i) {
      std::optional<int64_t> constant = constant_index(ref.element_indices[i]);
      require(!constant || (*constant >= 0 && *constant < p->element_shape[i]),
              "element index out of range on " + ref.array);
    }
    for (const std::vector<Expr>* list : {&ref.indices, &ref.element_indices}) {
      for (const Expr& i : *list) {
        expr(i);
        if (stage_ == Stage::typed) require(i->type && is_integral(*i->type), "non-integer index on " + ref.array);
      }
    }
    return *p;
  }

  std::optional<DtypeCode> local(const std::string& name) {
    const LocalInfo* info = scopes_.find(name);
    require(stage_ == Stage::parsed || info != nullptr, "undeclared local " + name);
    return info ? info->type : std::nullopt;
  }

  void expr(const Expr& e) {
    require(e != nullptr, "null expression");
    if (stage_ == Stage::typed) require(e->type.has_value(), "untyped expression " + print_expr(e));
    switch (e->kind) {
      case ExprKind::constant:
        require(stage_ != Stage::typed || as<Const>(e)->literal == LiteralKind::typed, "untyped literal");
        return;
      case ExprKind::var: return expect_type(e, local(as<Var>(e)->name), "a local");
      case ExprKind::arg: {
        const Param* p = kernel_.find_param(as<Arg>(e)->name);
        require(stage_ == Stage::parsed || (p && p->kind == Param::Kind::scalar), "unknown scalar param");
        require(stage_ == Stage::parsed || !in_function_, "a kernel's scalar param read inside a function");
        return expect_type(e, p ? std::optional(p->dtype) : std::nullopt, "a scalar param");
      }
      case ExprKind::binary: return binary(*as<Binary>(e), e);
      case ExprKind::unary: {
        const Unary& u = *as<Unary>(e);
        expr(u.a);
        return expect_type(e, unop_gives_i32(u.op) ? DtypeCode::i32 : u.a->type.value_or(DtypeCode::i32),
                           "a unary result");
      }
      case ExprKind::cast: return expr(as<Cast>(e)->a);
      case ExprKind::bit_cast: {
        const BitCast& c = *as<BitCast>(e);
        expr(c.a);
        return require(stage_ != Stage::typed || dtype_size(c.to) == dtype_size(*c.a->type), "bit_cast between sizes");
      }
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        expr(s.cond), expr(s.a), expr(s.b);
        expect_type(s.b, s.a->type, "select's second branch");
        return expect_type(e, s.a->type, "select");
      }
      case ExprKind::load: return expect_type(e, array(as<Load>(e)->ref).dtype, "a load");
      case ExprKind::shape: {
        const Param* p = kernel_.find_param(as<Shape>(e)->array);
        require(p && p->kind == Param::Kind::array, "shape of a non-array");
        return require(stage_ == Stage::parsed || as<Shape>(e)->dim < p->ndim, "shape dim out of range");
      }
      case ExprKind::atomic: return atomic(*as<Atomic>(e), e);
      case ExprKind::ad_top: return expect_type(e, local(as<AdTop>(e)->stack), "an ad_top");
      case ExprKind::clock_counter: return expect_type(e, DtypeCode::i64, "a clock_counter");
      case ExprKind::simt: return simt(*as<Simt>(e), e);
    }
  }

  // A shared array's declaration, which must come before any use (names are unique in a kernel).
  const SimtStmt* shared_array(const std::string& name, size_t indices) {
    auto it = shared_.find(name);
    require(it != shared_.end(), "use of undeclared shared array " + name);
    require(indices == it->second->shape.size(), "shared array " + name + " indexed with a wrong index count");
    return it->second;
  }

  void simt(const Simt& m, const Expr& e) {
    for (const Expr& a : m.args) expr(a);
    require(stage_ == Stage::parsed || parallel_depth_ > 0, "simt op outside a parallel_for");
    if (m.op == SimtOp::shared_load || m.op == SimtOp::shared_atomic) {
      size_t n = m.args.size() - (m.op == SimtOp::shared_atomic ? 1 : 0);
      const SimtStmt* decl = shared_array(m.shared, n);
      if (m.op == SimtOp::shared_atomic) expect_type(m.args.back(), decl->dtype, "a shared atomic's value");
      return expect_type(e, decl->dtype, "a shared array read");
    }
    bool shuffle = m.op >= SimtOp::shuffle && m.op <= SimtOp::shuffle_xor;
    size_t arity = m.op < SimtOp::shuffle ? 0 : shuffle ? 2 : 1;
    require(m.args.size() == arity, "simt op with a wrong operand count");
    if (shuffle) return expect_type(e, m.args[0]->type, "a shuffle");
    expect_type(e, m.op == SimtOp::ballot ? DtypeCode::u32 : DtypeCode::i32, "a simt result");
  }

  void simt_stmt(const SimtStmt& m) {
    for (const Expr& a : m.args) expr(a);
    bool checked = stage_ != Stage::parsed;
    require(!checked || parallel_depth_ > 0, "simt statement outside a parallel_for");
    if (m.op == SimtStmtOp::shared_decl) {
      require(!m.shape.empty(), "shared array without extents");
      require(shared_.emplace(m.shared, &m).second || !checked, "shared array declared twice: " + m.shared);
    }
    if (m.op == SimtStmtOp::shared_store) {
      require(!m.args.empty(), "shared_store without a value");
      expect_type(m.args.back(), shared_array(m.shared, m.args.size() - 1)->dtype, "a shared store's value");
    }
  }

  void binary(const Binary& b, const Expr& e) {
    expr(b.a), expr(b.b);
    if (stage_ != Stage::typed) return;
    // A float to an integer power keeps its integer exponent (infer_types); every other operator's operands agree.
    bool integer_power = b.op == BinOp::pow && b.a->type && is_float(*b.a->type) && b.b->type && !is_float(*b.b->type);
    if (!integer_power) expect_type(b.b, b.a->type, "a binary operand");
    expect_type(e, is_comparison(b.op) ? DtypeCode::i32 : *b.a->type, "a binary result");
  }

  void atomic(const Atomic& a, const Expr& e) {
    require((a.op == AtomicOp::cas) == (a.expected != nullptr), "an expected value is cas's alone, and cas needs one");
    if (a.expected) expr(a.expected);
    expr(a.value);
    std::optional<DtypeCode> target = a.local ? local(*a.local) : std::optional(array(a.ref).dtype);
    if (!a.local) require(stage_ == Stage::parsed || kernel_.find_param(a.ref.array)->writable, "atomic on read-only");
    if (a.expected) expect_type(a.expected, target, "a cas's expected value");
    expect_type(a.value, target, "an atomic's value");
    expect_type(e, target, "an atomic");
  }

  void block(const Block& b) {
    for (const Stmt& s : b) stmt(s);
  }

  void scoped(const Block& b) {
    scopes_.push();
    block(b);
    scopes_.pop();
  }

  void stmt(const Stmt& s);
  void call(const Call& c);
  void assert_stmt(const Assert& a);
  void loop_stmt(const Stmt& s);
  void graph_do_while(const GraphDoWhile& g);
  void privatized(const Privatized& entry);

  const Kernel& kernel_;
  Stage stage_;
  Scopes scopes_;
  int loop_depth_ = 0;
  int parallel_depth_ = 0;
  int graph_depth_ = 0;  // enclosing graph_do_while bodies: each is one more scope of top-level statements
  std::map<std::string, const SimtStmt*> shared_;
  bool in_function_ = false;
  const std::vector<DtypeCode>* returns_ = nullptr;  // of the kernel or the function being checked
};

// A call names a function of the kernel with one argument per param (a by-reference one is a local of
// the param's type) and assigns none or all of its returned values to assignable locals.
void Verifier::call(const Call& c) {
  const Function* f = kernel_.find_function(c.function);
  require(f != nullptr, "call of an unknown function " + c.function);
  require(c.args.size() == c.by_ref.size(), "call with mismatched by_ref flags");
  if (stage_ == Stage::parsed) return;
  require(c.args.size() == f->params.size(), "call of " + c.function + " with a wrong number of arguments");
  require(c.results.empty() || c.results.size() == f->returns.size(), "call with a wrong number of results");
  for (size_t i = 0; i < c.args.size(); ++i) {
    expr(c.args[i]);
    bool ref = f->params[i].kind == FunctionParam::Kind::ref;
    require(ref == c.by_ref[i] && (!ref || as<Var>(c.args[i])), "by-reference argument mismatch in call");
    expect_type(c.args[i], f->params[i].type, "a call argument");
  }
  for (const std::string& r : c.results) {
    const LocalInfo* info = scopes_.find(r);
    require(info && !info->is_loop_var, "call result to an undeclared local or loop var " + r);
  }
}

// A privatized target is a writable array or a kernel-body local, updated by add, min or max; an own
// array is a writable array.
void Verifier::privatized(const Privatized& entry) {
  if (entry.kind == Privatized::Kind::own) {
    const Param* p = kernel_.find_param(entry.ref.array);
    require(p && p->kind == Param::Kind::array && p->writable, "own-element target is no writable array");
    return;
  }
  require(entry.op == AtomicOp::add || entry.op == AtomicOp::min || entry.op == AtomicOp::max,
          "privatized update that is not add, min or max");
  if (entry.kind == Privatized::Kind::local) {
    local(entry.local);
    return;
  }
  const Param* p = kernel_.find_param(entry.ref.array);
  require(p && p->kind == Param::Kind::array && p->writable, "privatized target is no writable array");
  if (entry.kind == Privatized::Kind::element) array(entry.ref);
}

void Verifier::loop_stmt(const Stmt& s) {
  ++loop_depth_;
  if (const While* w = as<While>(s)) {
    expr(w->cond);
    scoped(w->body);
  } else if (const For* f = as<For>(s)) {
    expr(f->begin), expr(f->end);
    expect_type(f->end, f->begin->type, "a for loop's end");
    require(stage_ != Stage::typed || is_integral(*f->begin->type), "non-integer for bounds");
    scopes_.push();
    scopes_.declare(f->var, f->begin->type, true);
    scoped(f->body);
    scopes_.pop();
  } else if (const ParallelFor* p = as<ParallelFor>(s)) {
    require(stage_ == Stage::parsed || (scopes_.depth() == 1 + graph_depth_ && parallel_depth_ == 0 &&
                                        loop_depth_ == 1 && !in_function_),
            "parallel_for below the top level or in a function");
    require(p->vars.size() == p->extents.size() && !p->vars.empty(), "parallel_for vars and extents differ");
    for (const Expr& extent : p->extents) {
      expr(extent);
      expect_type(extent, p->extents[0]->type, "a parallel_for extent");
      require(stage_ != Stage::typed || is_integral(*extent->type), "non-integer extent");
    }
    for (const Privatized& entry : p->privatized) privatized(entry);
    ++parallel_depth_;
    scopes_.push();
    for (const std::string& var : p->vars) scopes_.declare(var, p->extents[0]->type, true);
    // The body counts as a loop for continue, not for break: a parallel loop cannot stop early.
    scoped(p->body);
    scopes_.pop();
    --parallel_depth_;
  }
  --loop_depth_;
}

void Verifier::stmt(const Stmt& s) {
  require(s != nullptr, "null statement");
  bool checked = stage_ != Stage::parsed;
  switch (s->kind) {
    case StmtKind::decl: {
      const Decl& d = *as<Decl>(s);
      expr(d.value);
      require(stage_ != Stage::typed || d.declared_type, "decl without a type");
      expect_type(d.value, d.declared_type, "a decl's value");
      require(scopes_.declare(d.name, d.declared_type) || !checked, "local declared twice: " + d.name);
      return;
    }
    case StmtKind::assign: {
      const Assign& a = *as<Assign>(s);
      expr(a.value);
      const LocalInfo* info = scopes_.find(a.name);
      require(!checked || (info && !info->is_loop_var), "assign to undeclared local or loop var " + a.name);
      return expect_type(a.value, info ? info->type : std::nullopt, "an assigned value");
    }
    case StmtKind::store: {
      const Store& st = *as<Store>(s);
      const Param& p = array(st.ref);
      require(!checked || p.writable, "store to read-only array " + p.name);
      expr(st.value);
      return expect_type(st.value, p.dtype, "a stored value");
    }
    case StmtKind::eval: return expr(as<Eval>(s)->value);
    case StmtKind::if_: {
      const If& i = *as<If>(s);
      expr(i.cond);
      scoped(i.then_body);
      return scoped(i.else_body);
    }
    case StmtKind::while_:
    case StmtKind::for_:
    case StmtKind::parallel_for: return loop_stmt(s);
    case StmtKind::break_: return require(!checked || loop_depth_ > parallel_depth_, "break outside a serial loop");
    case StmtKind::continue_: return require(!checked || loop_depth_ > 0, "continue outside a loop");
    case StmtKind::return_: {
      const std::vector<Expr>& values = as<Return>(s)->values;
      for (const Expr& v : values) expr(v);
      require(!checked || parallel_depth_ == 0, "return inside parallel_for");
      require(!checked || values.size() == returns_->size(), "return with a wrong number of values");
      for (size_t i = 0; i < values.size() && i < returns_->size(); ++i) {
        expect_type(values[i], (*returns_)[i], "a returned value");
      }
      return;
    }
    case StmtKind::assert_: return assert_stmt(*as<Assert>(s));
    case StmtKind::ad_stack: {
      const AdStack& a = *as<AdStack>(s);
      require(a.capacity > 0, "AD stack without room: " + a.name);
      return require(scopes_.declare(a.name, a.type) || !checked, "AD stack declared twice: " + a.name);
    }
    case StmtKind::ad_stack_op: {
      const AdStackOp& op = *as<AdStackOp>(s);
      std::optional<DtypeCode> t = local(op.stack);
      if (!op.value) return;
      expr(op.value);
      return expect_type(op.value, t, "a pushed value");
    }
    case StmtKind::print:
      for (const PrintItem& item : as<Print>(s)->items) {
        if (item.value) expr(item.value);
      }
      return;
    case StmtKind::simt: return simt_stmt(*as<SimtStmt>(s));
    case StmtKind::call: return call(*as<Call>(s));
    case StmtKind::graph_do_while: return graph_do_while(*as<GraphDoWhile>(s));
  }
}

// The message's values travel in the kernel error record, which has room for kMaxAssertValues.
void Verifier::assert_stmt(const Assert& a) {
  expr(a.cond);
  int values = 0;
  for (const PrintItem& item : a.message) {
    if (!item.value) continue;
    expr(item.value);
    ++values;
  }
  require(values <= kMaxAssertValues, "assert message with more than " + std::to_string(kMaxAssertValues) +
                                          " values");
}

// Its body is top-level code one scope down: only in the kernel body or another graph_do_while's body.
void Verifier::graph_do_while(const GraphDoWhile& g) {
  bool checked = stage_ != Stage::parsed;
  require(!checked || (scopes_.depth() == 1 + graph_depth_ && loop_depth_ == 0 && !in_function_),
          "graph_do_while below the top level or in a function");
  const Param* p = kernel_.find_param(g.cond);
  require(p && p->kind == Param::Kind::array, "graph_do_while on no array param: " + g.cond);
  require(!checked || (p->dtype == DtypeCode::i32 && p->total_dims() == 0), "graph_do_while on a non-0-d-i32 array");
  ++graph_depth_;
  scoped(g.body);
  --graph_depth_;
}

}  // namespace

void verify(const Kernel& kernel, Stage stage) { Verifier(kernel, stage).run(); }

}  // namespace qd::ir
