// src/ir/ir_printer.cpp: the IR printer; one statement per line, nested blocks indented by two spaces.
#include "ir/ir_printer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace qd::ir {
namespace {

std::string type_text(std::optional<DtypeCode> t) { return t ? std::string(dtype_name(*t)) : "?"; }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string print_const(const Const& c) {
  std::string type = c.literal == LiteralKind::untyped_int     ? "int"
                     : c.literal == LiteralKind::untyped_float ? "float"
                                                               : type_text(c.type);
  std::string value;
  if (c.holds_float()) {
    value = format_float(c.float_value);
  } else if (c.type == DtypeCode::u64) {
    value = std::to_string(static_cast<uint64_t>(c.int_value));
  } else {
    value = std::to_string(c.int_value);
  }
  return "(const " + type + " " + value + ")";
}

std::string print_ref(const ArrayRef& ref) {
  std::string out = ref.array + " (";
  for (size_t i = 0; i < ref.indices.size(); ++i) out += (i ? " " : "") + print_expr(ref.indices[i]);
  out += ") (";
  for (size_t i = 0; i < ref.element_indices.size(); ++i) {
    std::optional<int64_t> constant = constant_index(ref.element_indices[i]);
    out += (i ? " " : "") + (constant ? std::to_string(*constant) : print_expr(ref.element_indices[i]));
  }
  return out + ")";
}

std::string print_stmt(const Stmt& s, const std::string& indent);

// (reduce OP (var NAME)), (reduce OP ARRAY (IDX...) (EIDX...)), (privatize OP ARRAY) or (own ARRAY).
std::string print_privatized(const Privatized& p) {
  std::string op(atomic_op_name(p.op));
  switch (p.kind) {
    case Privatized::Kind::local: return "(reduce " + op + " (var " + p.local + "))";
    case Privatized::Kind::element: return "(reduce " + op + " " + print_ref(p.ref) + ")";
    case Privatized::Kind::array: return "(privatize " + op + " " + p.ref.array + ")";
    case Privatized::Kind::own: return "(own " + p.ref.array + ")";
  }
  return "";
}

std::string print_block(const Block& block, const std::string& indent) {
  if (block.empty()) return "()";
  std::string out = "(";
  for (const Stmt& s : block) out += "\n" + indent + "  " + print_stmt(s, indent + "  ");
  return out + ")";
}

// (call NAME (ARG...) (RESULT...)); an argument passed by reference is (ref NAME).
std::string print_call(const Call& c) {
  std::string args, results;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Var* v = as<Var>(c.args[i]);
    args += (i ? " " : "") + (c.by_ref[i] && v ? "(ref " + v->name + ")" : print_expr(c.args[i]));
  }
  for (size_t i = 0; i < c.results.size(); ++i) results += (i ? " " : "") + c.results[i];
  return "(call " + c.function + " (" + args + ") (" + results + "))";
}

std::string print_returns(const std::vector<DtypeCode>& returns) {
  std::string out;
  for (DtypeCode t : returns) out += (out.empty() ? "" : " ") + type_text(t);
  return "(returns " + (returns.empty() ? std::string("void") : out) + ")";
}

// (function NAME (params (scalar N T) (ref N T)...) (returns ...) (body ...)), between returns and body.
std::string print_function(const Function& f) {
  std::string out = "(function " + f.name + " (params";
  for (const FunctionParam& p : f.params) {
    out += std::string(p.kind == FunctionParam::Kind::ref ? " (ref " : " (scalar ") + p.name + " " + type_text(p.type) + ")";
  }
  out += ") " + print_returns(f.returns) + "\n    (body";
  for (const Stmt& s : f.body) out += "\n      " + print_stmt(s, "      ");
  return out + "))";
}

// A print's or an assert message's items, each after a space.
std::string print_items(const std::vector<PrintItem>& items) {
  std::string out;
  for (const PrintItem& item : items) {
    std::string value = item.value ? print_expr(item.value) : quote(item.text);
    out += " " + (item.spec.empty() ? value : "(fmt " + quote(item.spec) + " " + value + ")");
  }
  return out;
}

std::string print_stmt_body(const Stmt& s, const std::string& indent) {
  switch (s->kind) {
    case StmtKind::decl: {
      const Decl& d = *as<Decl>(s);
      std::string type = d.declared_type ? std::string(dtype_name(*d.declared_type)) + " " : "";
      return "(decl " + d.name + " " + type + print_expr(d.value) + ")";
    }
    case StmtKind::assign: return "(assign " + as<Assign>(s)->name + " " + print_expr(as<Assign>(s)->value) + ")";
    case StmtKind::store: return "(store " + print_ref(as<Store>(s)->ref) + " " + print_expr(as<Store>(s)->value) + ")";
    case StmtKind::eval: return "(eval " + print_expr(as<Eval>(s)->value) + ")";
    case StmtKind::if_: {
      const If& i = *as<If>(s);
      return "(if " + print_expr(i.cond) + " " + print_block(i.then_body, indent) + " " +
             print_block(i.else_body, indent) + ")";
    }
    case StmtKind::while_:
      return "(while " + print_expr(as<While>(s)->cond) + " " + print_block(as<While>(s)->body, indent) + ")";
    case StmtKind::graph_do_while:
      return "(graph_do_while " + as<GraphDoWhile>(s)->cond + " " + print_block(as<GraphDoWhile>(s)->body, indent) + ")";
    case StmtKind::break_: return "(break)";
    case StmtKind::continue_: return "(continue)";
    case StmtKind::for_: {
      const For& f = *as<For>(s);
      return "(for " + f.var + " " + print_expr(f.begin) + " " + print_expr(f.end) + " " +
             print_block(f.body, indent) + ")";
    }
    case StmtKind::parallel_for: {
      const ParallelFor& p = *as<ParallelFor>(s);
      std::string vars, extents;
      for (size_t i = 0; i < p.vars.size(); ++i) vars += (i ? " " : "") + p.vars[i];
      for (size_t i = 0; i < p.extents.size(); ++i) extents += (i ? " " : "") + print_expr(p.extents[i]);
      std::string privatized;
      for (const Privatized& entry : p.privatized) privatized += " " + print_privatized(entry);
      std::string name = p.name.empty() ? "" : " (name " + quote(p.name) + ")";
      return "(parallel_for (" + vars + ") (" + extents + ") (config (block_dim " + std::to_string(p.block_dim) +
             ") (serialize " + (p.serialize ? "1" : "0") + ")" + name + privatized + ") " + print_block(p.body, indent) +
             ")";
    }
    case StmtKind::return_: {
      std::string out = "(return";
      for (const Expr& v : as<Return>(s)->values) out += " " + print_expr(v);
      return out + ")";
    }
    case StmtKind::assert_:
      return "(assert " + print_expr(as<Assert>(s)->cond) + print_items(as<Assert>(s)->message) + ")";
    case StmtKind::ad_stack: {
      const AdStack& a = *as<AdStack>(s);
      return "(ad_stack " + a.name + " " + type_text(a.type) + " " + std::to_string(a.capacity) + ")";
    }
    case StmtKind::ad_stack_op: {
      const AdStackOp& op = *as<AdStackOp>(s);
      return op.value ? "(ad_push " + op.stack + " " + print_expr(op.value) + ")" : "(ad_pop " + op.stack + ")";
    }
    case StmtKind::simt: {
      const SimtStmt& m = *as<SimtStmt>(s);
      if (m.op == SimtStmtOp::shared_decl) {
        std::string shape;
        for (size_t i = 0; i < m.shape.size(); ++i) shape += (i ? " " : "") + std::to_string(m.shape[i]);
        return "(shared " + m.shared + " " + type_text(m.dtype) + " (" + shape + "))";
      }
      if (m.op != SimtStmtOp::shared_store) return "(" + std::string(simt_stmt_op_name(m.op)) + ")";
      std::string indices;
      for (size_t i = 0; i + 1 < m.args.size(); ++i) indices += (i ? " " : "") + print_expr(m.args[i]);
      return "(shared_store " + m.shared + " (" + indices + ") " + print_expr(m.args.back()) + ")";
    }
    case StmtKind::print: return "(print" + print_items(as<Print>(s)->items) + ")";
    case StmtKind::call: return print_call(*as<Call>(s));
  }
  return "";
}

std::string print_stmt(const Stmt& s, const std::string& indent) {
  std::string body = print_stmt_body(s, indent);
  if (s->loc.line == 0) return body;
  return "(loc " + std::to_string(s->loc.line) + " " + std::to_string(s->loc.col) + " " + body + ")";
}

std::string print_param(const Param& p) {
  if (p.kind == Param::Kind::scalar) return "(scalar " + p.name + " " + type_text(p.dtype) + ")";
  std::string shape;
  for (size_t i = 0; i < p.element_shape.size(); ++i) shape += (i ? " " : "") + std::to_string(p.element_shape[i]);
  return "(array " + p.name + " " + type_text(p.dtype) + " " + std::to_string(p.ndim) + " (" + shape + ") " +
         (p.contiguous ? "1" : "0") + " " + (p.writable ? "1" : "0") + ")";
}

}  // namespace

std::string format_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  std::string out = buf;
  if (out.find_first_of(".en") == std::string::npos) out += ".0";
  return out;
}

std::string print_statement(const Stmt& stmt, const std::string& indent) { return print_stmt(stmt, indent); }

std::string print_simt(const Simt& m);

std::string print_expr(const Expr& e) {
  switch (e->kind) {
    case ExprKind::constant: return print_const(*as<Const>(e));
    case ExprKind::var: return "(var " + as<Var>(e)->name + ")";
    case ExprKind::arg: return "(arg " + as<Arg>(e)->name + ")";
    case ExprKind::binary: {
      const Binary& b = *as<Binary>(e);
      return "(bin " + std::string(binop_name(b.op)) + " " + print_expr(b.a) + " " + print_expr(b.b) + ")";
    }
    case ExprKind::unary:
      return "(un " + std::string(unop_name(as<Unary>(e)->op)) + " " + print_expr(as<Unary>(e)->a) + ")";
    case ExprKind::cast:
      return "(cast " + std::string(dtype_name(as<Cast>(e)->to)) + " " + print_expr(as<Cast>(e)->a) + ")";
    case ExprKind::bit_cast:
      return "(bit_cast " + std::string(dtype_name(as<BitCast>(e)->to)) + " " + print_expr(as<BitCast>(e)->a) + ")";
    case ExprKind::select: {
      const Select& s = *as<Select>(e);
      return "(select " + print_expr(s.cond) + " " + print_expr(s.a) + " " + print_expr(s.b) + ")";
    }
    case ExprKind::load: return "(load " + print_ref(as<Load>(e)->ref) + ")";
    case ExprKind::shape: return "(shape " + as<Shape>(e)->array + " " + std::to_string(as<Shape>(e)->dim) + ")";
    case ExprKind::atomic: {
      const Atomic& a = *as<Atomic>(e);
      std::string target = a.local ? "(var " + *a.local + ")" : print_ref(a.ref);
      std::string expected = a.expected ? print_expr(a.expected) + " " : "";
      return "(atomic " + std::string(atomic_op_name(a.op)) + " " + target + " " + expected + print_expr(a.value) + ")";
    }
    case ExprKind::ad_top: return "(ad_top " + as<AdTop>(e)->stack + ")";
    case ExprKind::clock_counter: return "(clock_counter)";
    case ExprKind::simt: return print_simt(*as<Simt>(e));
  }
  return "";
}

std::string print_simt(const Simt& m) {
  if (m.op != SimtOp::shared_load && m.op != SimtOp::shared_atomic) {
    std::string out = "(simt " + std::string(simt_op_name(m.op));
    for (const Expr& a : m.args) out += " " + print_expr(a);
    return out + ")";
  }
  size_t n = m.args.size() - (m.op == SimtOp::shared_atomic ? 1 : 0);
  std::string indices;
  for (size_t i = 0; i < n; ++i) indices += (i ? " " : "") + print_expr(m.args[i]);
  if (m.op == SimtOp::shared_load) return "(shared_load " + m.shared + " (" + indices + "))";
  return "(shared_atomic " + std::string(atomic_op_name(m.atomic_op)) + " " + m.shared + " (" + indices + ") " +
         print_expr(m.args.back()) + ")";
}

std::string print_kernel(const Kernel& k) {
  const KernelOptions& o = k.options;
  std::string out = "(kernel " + k.name + "\n  (options (default_fp " + type_text(o.default_fp) +
                    ") (default_ip " + type_text(o.default_ip) + ") (debug " + (o.debug ? "1" : "0") +
                    ") (fast_math " + (o.fast_math ? "1" : "0") + ")";
  if (o.bounds) out += " (bounds 1)";
  if (!o.source_file.empty()) out += " (source_file " + quote(o.source_file) + ")";
  if (o.ad_stack_size != 0) out += " (ad_stack_size " + std::to_string(o.ad_stack_size) + ")";
  if (o.graph) out += " (graph 1)";
  if (!o.source_lines.empty()) {
    out += "\n    (source_lines (";
    for (const auto& [line, s] : o.source_lines) {
      out += "\n      (" + std::to_string(line) + " " + quote(s.file) + " " + quote(s.function) + " " + quote(s.text) +
             ")";
    }
    out += "))";
  }
  out += ")\n  (params";
  for (const Param& p : k.params) out += "\n    " + print_param(p);
  if (!k.adjoints.empty()) {
    out += ")\n  (adjoint";
    for (const AdjointPair& pair : k.adjoints) out += " (" + pair.primal + " " + pair.grad + ")";
  }
  if (!k.tangents.empty()) {
    out += ")\n  (tangent";
    for (const AdjointPair& pair : k.tangents) out += " (" + pair.primal + " " + pair.grad + ")";
  }
  if (!k.validated.empty()) {
    out += ")\n  (validate";
    for (const AdjointPair& pair : k.validated) out += " (" + pair.primal + " " + pair.grad + ")";
  }
  out += ")\n  " + print_returns(k.returns);
  for (const Function& f : k.functions) out += "\n  " + print_function(f);
  out += "\n  (body";
  for (const Stmt& s : k.body) out += "\n    " + print_stmt(s, "    ");
  return out + "))\n";
}

}  // namespace qd::ir
