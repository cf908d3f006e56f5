// src/codegen/cstyle_renderer.cpp: expressions and serial statements in C-like syntax.
#include "codegen/cstyle_renderer.h"

#include <cmath>
#include <cstdio>

#include "codegen/overflow_checks.h"
#include "ir/ir_mutator.h"
#include "ir/print_format.h"
#include "quadrants/errors.h"
#include "quadrants/kernel_abi.h"

namespace qd::codegen {

using namespace qd::ir;

bool is_native_width(DtypeCode t) {
  return t == DtypeCode::i32 || t == DtypeCode::i64 || t == DtypeCode::u32 || t == DtypeCode::u64 ||
         t == DtypeCode::f32 || t == DtypeCode::f64;
}

const char* binary_symbol(BinOp op) {
  switch (op) {
    case BinOp::add: return "+";
    case BinOp::sub: return "-";
    case BinOp::mul: return "*";
    case BinOp::truediv: return "/";
    case BinOp::bit_and: return "&";
    case BinOp::bit_or: return "|";
    case BinOp::bit_xor: return "^";
    case BinOp::shl: return "<<";
    case BinOp::shr: return ">>";
    case BinOp::eq: return "==";
    case BinOp::ne: return "!=";
    case BinOp::lt: return "<";
    case BinOp::le: return "<=";
    case BinOp::gt: return ">";
    case BinOp::ge: return ">=";
    default: return nullptr;
  }
}

namespace {

class WrittenLocals : public IRVisitor {
 public:
  std::set<std::string> names;

 private:
  void visit_assign(const Assign& s) override {
    names.insert(s.name);
    IRVisitor::visit_assign(s);
  }
  void visit_atomic(const Atomic& e) override {
    if (e.local) names.insert(*e.local);
    IRVisitor::visit_atomic(e);
  }
  void visit_call(const Call& c) override {
    names.insert(c.results.begin(), c.results.end());
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (c.by_ref[i]) names.insert(as<Var>(c.args[i])->name);
    }
    IRVisitor::visit_call(c);
  }
};

class AccessFinder : public IRVisitor {
 public:
  bool found = false;

 private:
  void visit_load(const Load&) override { found = true; }
  void visit_atomic(const Atomic& e) override {
    found = found || !e.local;
    IRVisitor::visit_atomic(e);
  }
  void visit_store(const Store&) override { found = true; }
  void visit_call(const Call&) override { found = true; }  // the callee may fail a check
  void visit_simt(const Simt& e) override {
    found = found || e.op == SimtOp::shared_load || e.op == SimtOp::shared_atomic;
    IRVisitor::visit_simt(e);
  }
  void visit_simt_stmt(const SimtStmt& s) override {
    found = found || s.op == SimtStmtOp::shared_store;
    IRVisitor::visit_simt_stmt(s);
  }
};

// The C type that + - * and unary - of a `t` compute in, where they can overflow: narrow types
// promote to int; unsigned int and wider unsigned types wrap by themselves (nullopt).
std::optional<DtypeCode> overflowing_type(DtypeCode t) {
  if (is_float(t) || t == DtypeCode::u1 || t == DtypeCode::u32 || t == DtypeCode::u64) return std::nullopt;
  return dtype_size(t) < 4 ? DtypeCode::i32 : t;
}

// An array's stride locals: t<dim>_<name>, like extent_name's.
std::string stride_name(const std::string& array, int dim) { return "t" + std::to_string(dim) + "_" + array; }

}  // namespace

// The dim comes first so that no two params' names collide (a suffix like a_x_n0 would also be the
// data of a param named x_n0).
std::string extent_name(const std::string& array, int dim) { return "n" + std::to_string(dim) + "_" + array; }

int param_index(const Kernel& k, const std::string& name) {
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (k.params[i].name == name) return static_cast<int>(i);
  }
  QD_ASSERT(false, "codegen: unknown param " + name);
}

std::set<std::string> written_locals(const Block& body) {
  WrittenLocals finder;
  finder.visit(body);
  return finder.names;
}

std::string CStyleRenderer::type_name(DtypeCode t) { return std::string(dtype_info(t).c_type); }

std::string CStyleRenderer::render_const(const Const& c) {
  DtypeCode t = *c.type;
  if (is_float(t)) {
    double v = c.float_value;
    bool single = t != DtypeCode::f64;
    std::string text;
    if (std::isnan(v)) {
      text = single ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
    } else if (std::isinf(v)) {
      text = std::string(v < 0 ? "-" : "") + (single ? "__builtin_inff()" : "__builtin_inf()");
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, single ? "%af" : "%a", single ? static_cast<double>(static_cast<float>(v)) : v);
      text = buf;
    }
    return t == DtypeCode::f16 ? "qd_half(" + text + ")" : text;
  }
  if (t == DtypeCode::u1) return c.int_value ? "true" : "false";
  if (!is_signed(t)) return "(" + type_name(t) + ")" + std::to_string(static_cast<uint64_t>(c.int_value)) + "ull";
  // An int literal is 32-bit on every target we generate for; INT32_MIN itself is not a literal.
  if (t == DtypeCode::i32 && c.int_value > INT32_MIN) return std::to_string(c.int_value);
  if (c.int_value == INT64_MIN) return "(" + type_name(t) + ")(-9223372036854775807ll - 1)";
  return "(" + type_name(t) + ")" + std::to_string(c.int_value) + "ll";
}

std::string CStyleRenderer::operand(const Expr& e) {
  return e->type == DtypeCode::f16 ? "(float)(" + expr(e) + ")" : expr(e);
}

std::string CStyleRenderer::wrap(DtypeCode t, const std::string& value) {
  if (t == DtypeCode::f16) return "qd_half(" + value + ")";
  return "(" + type_name(t) + ")(" + value + ")";
}

// Integer + - * that can overflow the type C computes them in wrap through qd_runtime.h's helpers;
// the rest stay plain C, which the compiler may widen (int_ranges.h says why that matters).
std::string CStyleRenderer::wrapping_binary(const Binary& b, const std::string& x, const std::string& y) {
  if (b.op != BinOp::add && b.op != BinOp::sub && b.op != BinOp::mul) return "";
  std::optional<DtypeCode> computed = overflowing_type(*b.type);
  if (!computed || !ranges_.may_overflow(b.op, b.a, b.b, *computed)) return "";
  return "qd_wrapping_" + std::string(binop_name(b.op)) + "<" + type_name(*b.type) + ">(" + x + ", " + y + ")";
}

std::string CStyleRenderer::binary(const Binary& b) {
  std::string x = operand(b.a), y = operand(b.b);
  DtypeCode t = *b.type;
  // Debug mode reports what overflows its type (overflow_checks.h), then wraps as release mode does.
  if (const char* check = kernel_.options.debug ? overflow_check(b, loc_, ranges_) : nullptr) {
    return std::string(check) + "<" + type_name(t) + ">(" + x + ", " + y + ", " + source_where_literal(kernel_, loc_) +
           ")";
  }
  std::string wrapping = wrapping_binary(b, x, y);
  if (!wrapping.empty()) return wrapping;
  switch (b.op) {
    case BinOp::logical_and: return "(int32_t)((" + x + ") != 0 && (" + y + ") != 0)";
    case BinOp::logical_or: return "(int32_t)((" + x + ") != 0 || (" + y + ") != 0)";
    case BinOp::floordiv: return wrap(t, "qd_floordiv(" + x + ", " + y + ")");
    case BinOp::mod: return wrap(t, "qd_mod(" + x + ", " + y + ")");
    case BinOp::raw_div: return wrap(t, "qd_raw_div(" + x + ", " + y + ")");
    case BinOp::raw_mod: return wrap(t, "qd_raw_mod(" + x + ", " + y + ")");
    case BinOp::pow:  // a float to an integer power squares and multiplies (qd_powi), as upstream
      return wrap(t, (is_float(t) && !is_float(*b.b->type) ? "qd_powi(" : "qd_pow(") + x + ", " + y + ")");
    case BinOp::min: return wrap(t, "qd_min(" + x + ", " + y + ")");
    case BinOp::max: return wrap(t, "qd_max(" + x + ", " + y + ")");
    case BinOp::atan2: return wrap(t, "qd_atan2(" + x + ", " + y + ")");
    case BinOp::rand_bits: return "qd_rand_bits(" + x + ", " + y + ")";
    case BinOp::shl: return "qd_shl<" + type_name(t) + ">(" + x + ", " + y + ")";
    case BinOp::shr: return "qd_shr<" + type_name(t) + ">(" + x + ", " + y + ")";
    case BinOp::lshr: return "qd_lshr<" + type_name(t) + ">(" + x + ", " + y + ")";
    default: break;
  }
  std::string text = "(" + x + " " + binary_symbol(b.op) + " " + y + ")";
  // A C comparison is a bool; the IR says i32, and helpers like qd_max(int32_t, ...) need exactly that.
  bool comparison = b.op == BinOp::eq || b.op == BinOp::ne || b.op == BinOp::lt || b.op == BinOp::le ||
                    b.op == BinOp::gt || b.op == BinOp::ge;
  if (comparison) return "(int32_t)" + text;
  // C promotes narrow operands to int; native-width results need no cast back.
  if (t == DtypeCode::i32 && b.a->type != DtypeCode::f16) return text;
  return is_native_width(t) && b.a->type == t ? text : wrap(t, text);
}

std::string CStyleRenderer::unary(const Unary& u) {
  std::string x = operand(u.a);
  DtypeCode t = *u.type;
  switch (u.op) {
    case UnOp::neg: {
      std::optional<DtypeCode> computed = overflowing_type(t);
      if (computed && ranges_.may_overflow_neg(u.a, *computed)) return "qd_wrapping_neg<" + type_name(t) + ">(" + x + ")";
      return wrap(t, "-(" + x + ")");
    }
    case UnOp::logical_not: return "(int32_t)((" + x + ") == 0)";
    case UnOp::bit_not: return wrap(t, "~(" + x + ")");
    case UnOp::stop_grad: return x;  // only autodiff treats it differently
    // The autodiff passes may replace the load by a replayed local: then there is nothing left to reread.
    case UnOp::volatile_load: return as<Load>(u.a) ? volatile_load(*as<Load>(u.a)) : x;
    default: return wrap(t, "qd_" + std::string(unop_name(u.op)) + "(" + x + ")");
  }
}

std::string CStyleRenderer::cast(const Cast& c) {
  std::string x = operand(c.a);
  if (c.to == DtypeCode::f16) {  // from f64 in one rounding (qd_runtime.h), else through float exactly
    return *c.a->type == DtypeCode::f64 ? "qd_half::from_double(" + x + ")" : "qd_half((float)(" + x + "))";
  }
  if (c.to == DtypeCode::u1) return "((" + x + ") != 0)";
  if (is_float(*c.a->type) && !is_float(c.to)) return "qd_float_to_int<" + type_name(c.to) + ">(" + x + ")";
  return "(" + type_name(c.to) + ")(" + x + ")";
}

// Release mode: contiguous arrays index from the shape, so the offset is affine in the innermost
// index and loops vectorize; strided arrays use the strides. Debug and bounds mode check every index. A
// runtime element index is clamped into its element dim in release mode, so a wrong one reads
// another entry of the same element instead of memory outside the array.
std::string CStyleRenderer::element_offset(const ArrayRef& ref) {
  const Param& p = *kernel_.find_param(ref.array);
  std::vector<std::string> index;
  for (const Expr& i : ref.indices) index.push_back("(int64_t)(" + expr(i) + ")");
  for (size_t e = 0; e < ref.element_indices.size(); ++e) {
    std::optional<int64_t> constant = constant_index(ref.element_indices[e]);
    std::string value = "(int64_t)(" + expr(ref.element_indices[e]) + ")";
    if (constant) {
      value = std::to_string(*constant);
    } else if (!kernel_.options.checks_bounds()) {
      value = "qd_clamp_index(" + value + ", " + std::to_string(p.element_shape[e]) + ")";
    }
    index.push_back(value);
  }
  if (index.empty()) return "0";  // a 0-d array's one element: nothing to check
  if (kernel_.options.checks_bounds()) {
    int k = param_index(kernel_, p.name);
    std::string list;
    for (size_t d = 0; d < index.size(); ++d) list += (d ? ", " : "") + index[d];
    return "qd_checked_offset<" + std::to_string(index.size()) + ">(ctx, &args[" + std::to_string(k) + "], " +
           std::to_string(k) + ", {" + list + "})";
  }
  std::string offset;
  for (size_t d = 0; d < index.size(); ++d) {
    int dim = static_cast<int>(d);
    if (p.contiguous) {
      offset = d == 0 ? index[0] : "(" + offset + ") * " + extent_name(p.name, dim) + " + " + index[d];
    } else {
      offset += (d ? " + " : "") + index[d] + " * " + stride_name(p.name, dim);
    }
  }
  return offset;
}

// Through a volatile pointer, so neither the C++ compiler nor NVRTC reuses an earlier read or hoists it.
std::string CStyleRenderer::volatile_load(const Load& l) {
  std::string checked = kernel_.options.checks_bounds() ? "qd_volatile_load_checked(" : "qd_volatile_load(";
  return checked + "a_" + l.ref.array + ", " + element_offset(l.ref) + ")";
}

std::string CStyleRenderer::element(const ArrayRef& ref) {
  return "a_" + ref.array + "[" + element_offset(ref) + "]";
}

std::string CStyleRenderer::atomic(const Atomic& a) {
  std::string update = private_update(a);
  if (!update.empty()) return update;
  // cas's operands are the expected value, then the stored one.
  std::string op(atomic_op_name(a.op)), operands = (a.expected ? expr(a.expected) + ", " : "") + expr(a.value);
  LocalStorage storage = a.local ? local_storage(*a.local) : LocalStorage::shared;
  if (storage != LocalStorage::shared) {
    std::string target = "&" + local_name(*a.local);
    std::string plain = "qd_local_" + op + "(" + target + ", " + operands + ")";
    if (storage == LocalStorage::thread_private) return plain;
    return "(__isLocal(" + target + ") ? " + plain + " : qd_atomic_" + op + "(" + target + ", " + operands + "))";
  }
  std::string target = a.local ? "&" + local_name(*a.local)
                       : kernel_.options.checks_bounds() ? "qd_checked_ptr(a_" + a.ref.array + ", " + element_offset(a.ref) + ")"
                                               : "&" + element(a.ref);
  return "qd_atomic_" + op + "(" + target + ", " + operands + ")";
}

std::string CStyleRenderer::expr(const Expr& e) {
  QD_ASSERT(e->type.has_value(), "codegen: untyped expression");
  switch (e->kind) {
    case ExprKind::constant: return render_const(*as<Const>(e));
    case ExprKind::var: {
      const std::string& name = as<Var>(e)->name;
      auto text = var_text_.find(name);
      return text == var_text_.end() ? local_name(name) : text->second;
    }
    case ExprKind::arg: return "p_" + as<Arg>(e)->name;
    case ExprKind::binary: return binary(*as<Binary>(e));
    case ExprKind::unary: return unary(*as<Unary>(e));
    case ExprKind::cast: return cast(*as<Cast>(e));
    // expr, not operand: an f16 is reinterpreted as its 16 bits, not first widened to float.
    case ExprKind::bit_cast: {
      const BitCast& c = *as<BitCast>(e);
      return "qd_bit_cast<" + type_name(c.to) + ">(" + expr(c.a) + ")";
    }
    case ExprKind::select: {
      const Select& s = *as<Select>(e);
      return "((" + operand(s.cond) + ") ? " + expr(s.a) + " : " + expr(s.b) + ")";
    }
    case ExprKind::load: {
      const Load& l = *as<Load>(e);
      if (kernel_.options.checks_bounds()) return "qd_load_checked(a_" + l.ref.array + ", " + element_offset(l.ref) + ")";
      return element(l.ref);
    }
    case ExprKind::shape: return "(" + type_name(*e->type) + ")" + extent_name(as<Shape>(e)->array, as<Shape>(e)->dim);
    case ExprKind::atomic: return atomic(*as<Atomic>(e));
    case ExprKind::ad_top: return local_name(as<AdTop>(e)->stack) + ".top()";
    case ExprKind::simt: return simt(*as<Simt>(e));
    case ExprKind::clock_counter: return "qd_clock_counter()";  // per backend in the runtime header
  }
  return "";
}

std::string CStyleRenderer::location_directive(const SourceLoc& loc) {
  const std::string& file = kernel_.options.source_file;
  std::string name = file.empty() ? "<kernel " + kernel_.name + ">" : file;
  std::string quoted;
  for (char c : name) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return "#line " + std::to_string(loc.line) + " \"" + quoted + "\"";
}

namespace {

struct AdStackFinder : IRVisitor {
  bool found = false;
  void visit_ad_stack(const AdStack&) override { found = true; }
};

}  // namespace

bool uses_ad_stack(const Kernel& kernel) {
  AdStackFinder finder;
  finder.visit(kernel.body);
  return finder.found;
}

CStyleRenderer::CStyleRenderer(const Kernel& kernel)
    : kernel_(kernel), checks_errors_(kernel.options.checks_bounds() || uses_ad_stack(kernel)) {
  written_ = written_locals(kernel.body);
  for (const Function& f : kernel.functions) {
    std::set<std::string> names = written_locals(f.body);
    written_.insert(names.begin(), names.end());
  }
}

// A parallel loop's variables, of the first extent's type, each in [0, its extent), in a new scope
// that the caller pops after the body.
void CStyleRenderer::bind_loop_vars(const ParallelFor& loop) {
  ranges_.push();
  for (size_t d = 0; d < loop.vars.size(); ++d) {
    bind_loop_var(loop.vars[d], nullptr, loop.extents[d], *loop.extents[0]->type);
    ranges_.bind_offset(loop.vars[d], loop.extents[d]);
  }
}

void CStyleRenderer::bind_loop_var(const std::string& name, const Expr* begin, const Expr& end, DtypeCode type) {
  ranges_.bind(name, written_.count(name) ? std::nullopt : ranges_.loop_range(begin, end, type));
}

void CStyleRenderer::emit_error_check(const Stmt& s) {
  if (!kernel_.options.checks_bounds()) return;
  AccessFinder finder;
  finder.visit(s);
  if (finder.found) emit_line("if (qd_error_raised(ctx)) " + error_return());
}

void CStyleRenderer::emit_block(const Block& b) {
  indent_ += 2;
  ranges_.push();
  for (const Stmt& s : b) emit_stmt(s);
  ranges_.pop();
  indent_ -= 2;
}

void CStyleRenderer::emit_for(const For& f) {
  std::string t = type_name(*f.begin->type), id = std::to_string(next_id_++);
  emit_line("{");
  indent_ += 2;
  emit_line("const " + t + " qd_end" + id + " = " + expr(f.end) + ";");
  emit_line("for (" + t + " qd_i" + id + " = " + expr(f.begin) + "; qd_i" + id + " < qd_end" + id + "; ++qd_i" + id +
            ") {");
  emit_line("  const " + t + " " + local_name(f.var) + " = qd_i" + id + ";");
  ranges_.push();
  bind_loop_var(f.var, &f.begin, f.end, *f.begin->type);
  emit_block(f.body);
  ranges_.pop();
  emit_line("}");
  indent_ -= 2;
  emit_line("}");
}

// ret holds one QdArg per returned value (kernel_abi.h).
void CStyleRenderer::emit_return(const Return& r) {
  for (size_t k = 0; k < r.values.size(); ++k) {
    bool f = is_float(*r.values[k]->type);
    emit_line("ret[" + std::to_string(k) + "].scalar." + (f ? "f = (double)" : "i = (int64_t)") + "(" +
              operand(r.values[k]) + ");");
  }
  emit_line("return;");
}

// One printf per print statement, so the pieces of one line stay together when threads interleave.
void CStyleRenderer::emit_print(const Print& p) {
  std::string format, values;
  for (const PrintItem& item : p.items) {
    if (!item.value) {
      for (char c : item.text) {
        if (c == '%') format += "%%";
        else if (c == '"' || c == '\\') format += std::string("\\") + c;
        else if (c == '\n') format += "\\n";
        else format += c;
      }
      continue;
    }
    auto [conversion, c_type] = print_conversion(item.spec, *item.value->type);
    format += conversion;
    values += ", (" + c_type + ")(" + operand(item.value) + ")";
  }
  emit_line("qd_printf(\"" + format + "\"" + values + ");");
}

// The message becomes a printf template in assert_messages_ ('%' in its text doubled), formatted by the
// host only when the assert fails (src/runtime/kernel_error.cpp); a failure stores each value, converted
// to the 64-bit type its conversion reads, as bits in the error record.
void CStyleRenderer::emit_assert(const Assert& a) {
  static_assert(kMaxAssertValues <= QD_MAX_NDIM, "assert values travel in QdKernelError::index");
  std::string message, values;
  int count = 0;
  for (const PrintItem& item : a.message) {
    if (!item.value) {
      for (char c : item.text) message += c == '%' ? std::string("%%") : std::string(1, c);
      continue;
    }
    DtypeCode t = *item.value->type;
    auto [conversion, c_type] = assert_conversion(item.spec, t);
    message += conversion;
    // Floats reach integer types through double: CUDA's f16 converts to nothing else unambiguously.
    std::string value = is_float(t) || c_type == "double" ? "(double)(" + operand(item.value) + ")"
                                                          : operand(item.value);
    // %x of a negative i32 shows its own 32 bits, as print does, not 64.
    if (c_type == "unsigned long long" && is_integral(t) && is_signed(t) && dtype_size(t) < 8) {
      value = "(uint" + std::to_string(8 * dtype_size(t)) + "_t)(" + value + ")";
    }
    value = c_type == "double" ? "qd_bit_cast<int64_t>(" + value + ")" : "(int64_t)(" + c_type + ")(" + value + ")";
    values += (count++ ? ", " : "") + value;
  }
  std::string index = std::to_string(assert_messages_.size());
  assert_messages_.push_back(message);
  std::string report = "qd_report_assert(ctx, " + index + ");";
  if (count) {
    report = "const int64_t qd_values[] = {" + values + "}; qd_report_assert_values(ctx, " + index + ", " +
             std::to_string(count) + ", qd_values);";
  }
  emit_line("if (!(" + operand(a.cond) + ")) { " + report + " " + error_return() + " }");
}

void CStyleRenderer::emit_simple_stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::decl: {
      const Decl& d = *as<Decl>(s);
      emit_line(type_name(*d.declared_type) + " " + local_name(d.name) + " = " + expr(d.value) + ";");
      ranges_.bind(d.name, written_.count(d.name) ? std::nullopt : ranges_.of_as(d.value, *d.declared_type));
      break;
    }
    case StmtKind::assign: emit_line(local_name(as<Assign>(s)->name) + " = " + expr(as<Assign>(s)->value) + ";"); break;
    case StmtKind::store: {
      const Store& st = *as<Store>(s);
      if (kernel_.options.checks_bounds()) {
        emit_line("{ const int64_t qd_o = " + element_offset(st.ref) + "; if (qd_o >= 0) a_" + st.ref.array +
                  "[qd_o] = " + expr(st.value) + "; }");
      } else {
        emit_line(element(st.ref) + " = " + expr(st.value) + ";");
      }
      break;
    }
    case StmtKind::eval: emit_line("(void)(" + expr(as<Eval>(s)->value) + ");"); break;
    case StmtKind::return_:
      if (current_function_) emit_function_return(*as<Return>(s));
      if (!current_function_) emit_return(*as<Return>(s));
      break;
    case StmtKind::call: emit_call(*as<Call>(s)); break;
    case StmtKind::assert_:
      // In bounds mode the frontend writes only its index checks as asserts; a kernel's own asserts only in debug.
      if (kernel_.options.checks_bounds()) emit_assert(*as<Assert>(s));
      break;
    case StmtKind::print: emit_print(*as<Print>(s)); break;
    case StmtKind::ad_stack: {
      const AdStack& a = *as<AdStack>(s);
      emit_line("QdAdStack<" + type_name(a.type) + ", " + std::to_string(a.capacity) + "> " + local_name(a.name) + ";");
      break;
    }
    case StmtKind::ad_stack_op: {
      const AdStackOp& op = *as<AdStackOp>(s);
      if (!op.value) {
        emit_line(local_name(op.stack) + ".pop();");
      } else {
        // A full stack stops the task (error code 5), in every mode.
        emit_line("if (!qd_ad_push(ctx, " + local_name(op.stack) + ", " + expr(op.value) + ")) return;");
      }
      break;
    }
    case StmtKind::simt: emit_simt_stmt(*as<SimtStmt>(s)); break;
    default: QD_ASSERT(false, "codegen: not a simple statement");
  }
}

void CStyleRenderer::emit_stmt(const Stmt& s) {
  const SourceLoc outer = loc_;
  loc_ = s->loc;
  if (s->loc.line > 0) out_ += location_directive(s->loc) + "\n";
  switch (s->kind) {
    case StmtKind::if_: {
      const If& i = *as<If>(s);
      emit_line("if (" + operand(i.cond) + ") {");
      emit_block(i.then_body);
      if (!i.else_body.empty()) {
        emit_line("} else {");
        emit_block(i.else_body);
      }
      emit_line("}");
      break;
    }
    case StmtKind::while_:
      emit_line("while (" + operand(as<While>(s)->cond) + ") {");
      // A condition that failed a bounds check reads 0 from then on; stop before looping forever.
      indent_ += 2;
      emit_error_check(Eval::make(as<While>(s)->cond));
      indent_ -= 2;
      emit_block(as<While>(s)->body);
      emit_line("}");
      break;
    case StmtKind::break_: emit_line("break;"); break;
    case StmtKind::continue_: emit_line("continue;"); break;
    case StmtKind::for_: emit_for(*as<For>(s)); break;
    case StmtKind::parallel_for: emit_parallel_for(*as<ParallelFor>(s)); break;
    case StmtKind::graph_do_while: emit_graph_do_while(*as<GraphDoWhile>(s)); break;
    default: emit_simple_stmt(s);
  }
  if (s->kind != StmtKind::parallel_for && s->kind != StmtKind::graph_do_while) emit_error_check(s);
  loc_ = outer;
}

namespace {

struct NarrowExtents : IRVisitor {
  std::set<std::pair<std::string, int>> found;
  void visit_shape(const Shape& e) override {
    if (e.type == DtypeCode::i32) found.insert({e.array, e.dim});
  }
};

}  // namespace

std::vector<std::pair<int, int>> i32_extents(const Kernel& kernel) {
  NarrowExtents narrow;
  narrow.visit(kernel.body);
  visit_functions(narrow, kernel);
  std::vector<std::pair<int, int>> out;
  for (size_t k = 0; k < kernel.params.size(); ++k) {
    for (int d = 0; d < kernel.params[k].ndim; ++d) {
      if (narrow.found.count({kernel.params[k].name, d})) out.emplace_back(static_cast<int>(k), d);
    }
  }
  return out;
}

// Unpacks the arguments into named locals that closures capture by value.
void CStyleRenderer::emit_prologue() {
  std::set<std::pair<int, int>> checked;
  if (checks_extents_on_entry()) {
    for (const auto& extent : i32_extents(kernel_)) checked.insert(extent);
  }
  for (size_t k = 0; k < kernel_.params.size(); ++k) {
    const Param& p = kernel_.params[k];
    std::string arg = "args[" + std::to_string(k) + "]", t = type_name(p.dtype);
    if (p.kind == Param::Kind::scalar) {
      std::string raw = is_float(p.dtype) ? arg + ".scalar.f" : arg + ".scalar.i";
      std::string value = p.dtype == DtypeCode::f16 ? "qd_half::from_double(" + raw + ")" : "(" + t + ")" + raw;
      emit_line("const " + t + " p_" + p.name + " = " + value + ";");
      continue;
    }
    emit_line(t + "* const a_" + p.name + " = (" + t + "*)" + arg + ".data;");
    for (int d = 0; d < p.total_dims(); ++d) {
      std::string dim = std::to_string(d);
      emit_line("const int64_t " + extent_name(p.name, d) + " = " + arg + ".shape[" + dim + "];");
      if (checked.count({static_cast<int>(k), d})) {
        emit_line("if (!qd_check_i32_extent(ctx, " + std::to_string(k) + ", " + dim + ", " + extent_name(p.name, d) +
                  ")) return;");
      }
      if (!p.contiguous) emit_line("const int64_t " + stride_name(p.name, d) + " = " + arg + ".strides[" + dim + "];");
    }
  }
}

// Top-level statements: their decls become what later parallel loops' closures may capture by reference.
void CStyleRenderer::emit_top_level(const Block& body) {
  for (const Stmt& s : body) {
    emit_stmt(s);
    if (const Decl* d = as<Decl>(s)) top_level_locals_.insert(d->name);
  }
}

// The entry itself loops on the host thread, each parallel_for inside finished before the next statement,
// so the condition is read with every task of the iteration done. A failed debug check stops the loop:
// the statements that would end it may be what the failure skipped.
void CStyleRenderer::emit_graph_do_while(const GraphDoWhile& loop) {
  emit_line("do {");
  indent_ += 2;
  ranges_.push();
  emit_top_level(loop.body);
  ranges_.pop();
  if (checks_errors_) emit_line("if (qd_error_raised(ctx)) " + error_return());
  indent_ -= 2;
  emit_line("} while (*(volatile const int32_t*)a_" + loop.cond + " != 0);");
}

GeneratedSource CStyleRenderer::render() {
  out_ = preamble();
  emit_functions();
  out_ += entry_signature() + " {\n";
  indent_ = 2;
  emit_line("(void)args; (void)ctx; (void)ret;");
  emit_prologue();
  emit_functions_instance();
  emit_top_level(kernel_.body);
  out_ += "}\n";
  return {out_, assert_messages_};
}

}  // namespace qd::codegen
