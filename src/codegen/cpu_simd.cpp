// src/codegen/cpu_simd.cpp: a CPU parallel loop's innermost index run QD_SIMD_W iterations at a time.
//
// The C++ compiler vectorizes straight-line loop bodies by itself, but not a `while` whose trip count
// differs per iteration (Mandelbrot, root finding, rejection sampling). For those, each iteration of a
// group becomes one lane of a vector (runtime/qd_simd.h), as ISPC does: the body's locals are vectors,
// values the same for every lane (params, extents, outer indices, outer locals, `for` variables over
// such bounds) stay scalars, and control flow becomes masks. A statement under a mask changes only
// its active lanes; an `if` runs each side when some lane takes it; a `while` loops while any lane
// does. What has no vector form (integer division, math functions, gathers) runs lane by lane with
// the scalar renderer's own code, so the lanes compute exactly what the scalar loop computes. Loads
// under a mask touch only active lanes' elements, as the scalar loop would.
//
// A parallel loop's iterations are unordered, so running a group's statements lane by lane in step is
// one valid order (CUDA's warps run them so too).
#include "codegen/cpu_simd.h"

#include <map>
#include <set>

#include "ir/ir_mutator.h"

namespace qd::codegen {

using namespace qd::ir;

namespace {

// What a lane holds: the native-width types (narrower ones would need C's promotions lane by lane).
bool lane_type(DtypeCode t) { return is_native_width(t); }

std::string vector_type(DtypeCode t) { return "qd_v" + std::string(dtype_name(t)); }

struct LoadFinder : IRVisitor {
  bool found = false;
  void visit_load(const Load&) override { found = true; }
};

bool contains_load(const Expr& e) {
  LoadFinder finder;
  finder.visit(e);
  return finder.found;
}

struct WhileFinder : IRVisitor {
  bool found = false;
  void visit_while(const While& s) override {
    found = true;
    IRVisitor::visit_while(s);
  }
};

// The break and continue of a block that leave the loop around it (not those of loops inside it).
struct Jumps : IRVisitor {
  bool brk = false, cont = false;
  bool any() const { return brk || cont; }
  void visit_break(const Break&) override { brk = true; }
  void visit_continue(const Continue&) override { cont = true; }
  void visit_while(const While&) override {}
  void visit_for(const For&) override {}
};

Jumps jumps(const Block& b) {
  Jumps found;
  found.visit(b);
  return found;
}
Jumps jumps(const Stmt& s) {
  Jumps found;
  found.visit(s);
  return found;
}

// Whether an expression reads any of `names` (the body's per-lane locals).
struct NameFinder : IRVisitor {
  explicit NameFinder(const std::set<std::string>& names) : names(names) {}
  const std::set<std::string>& names;
  bool found = false;
  void visit_var(const Var& v) override { found = found || names.count(v.name) > 0; }
};

bool mentions(const Expr& e, const std::set<std::string>& names) {
  NameFinder finder(names);
  finder.visit(e);
  return finder.found;
}

// The check of simd_applies: statements and expressions lanes express, each of a lane type, and the
// per-lane locals (the innermost index, the body's declarations) with their types.
class LaneCheck : public IRVisitor {
 public:
  LaneCheck(const Kernel& kernel, const ParallelFor& loop)
      : lane_var(loop.vars.back()), kernel_(kernel), written_(written_locals(loop.body)) {
    varying.insert(lane_var);
  }
  bool ok = true;
  std::string lane_var;
  std::set<std::string> varying;  // the per-lane locals, vectors
  std::set<std::string> uniform;  // body locals that are never assigned and the same for every lane: scalars
  std::set<std::string> offsets;  // varying locals never assigned that hold lane_var plus a uniform value
  std::map<std::string, DtypeCode> local_types;

  // Whether e is lane_var (or an `offsets` local) plus or minus values the same for every lane, so
  // that lane k's value is lane 0's plus k.
  bool lane_offset(const Expr& e) const {
    if (const Var* v = as<Var>(e)) return v->name == lane_var || offsets.count(v->name);
    const Binary* b = as<Binary>(e);
    if (!b || (b->op != BinOp::add && b->op != BinOp::sub) || b->type != b->a->type || b->type != b->b->type) {
      return false;
    }
    if (lane_offset(b->a) && !mentions(b->b, varying)) return true;
    return b->op == BinOp::add && !mentions(b->a, varying) && lane_offset(b->b);
  }

  void check(const Block& b) {
    for (const Stmt& s : b) {
      if (ok) check(s);
    }
  }

 private:
  void check(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::decl: {
        const Decl& d = *as<Decl>(s);
        // A name declared twice could be a scalar in one place and a vector in another.
        expect(lane_type(*d.declared_type) && d.value->type == d.declared_type && !local_types.count(d.name) &&
               d.name != lane_var && !for_vars_.count(d.name));
        visit(d.value);
        local_types[d.name] = *d.declared_type;
        bool constant = !written_.count(d.name);
        if (constant && !mentions(d.value, varying)) return (void)uniform.insert(d.name);
        if (constant && lane_offset(d.value)) offsets.insert(d.name);
        varying.insert(d.name);
        return;
      }
      case StmtKind::assign: {  // only the body's own locals: an outer one would be shared by all lanes
        const Assign& a = *as<Assign>(s);
        auto local = local_types.find(a.name);
        expect(local != local_types.end() && a.value->type == local->second);
        return visit(a.value);
      }
      case StmtKind::store: {
        const Store& st = *as<Store>(s);
        const Param* p = kernel_.find_param(st.ref.array);
        expect(p && lane_type(p->dtype) && st.value->type == p->dtype);
        return visit(s);
      }
      case StmtKind::if_:
        visit(as<If>(s)->cond);
        check(as<If>(s)->then_body);
        return check(as<If>(s)->else_body);
      case StmtKind::while_:
        visit(as<While>(s)->cond);
        ++loop_depth_;
        check(as<While>(s)->body);
        --loop_depth_;
        return;
      case StmtKind::for_: {  // bounds the same for every lane: the variable stays a scalar
        const For& f = *as<For>(s);
        expect(!mentions(f.begin, varying) && !mentions(f.end, varying) && !local_types.count(f.var));
        for_vars_.insert(f.var);
        visit(f.begin);
        visit(f.end);
        ++loop_depth_;
        check(f.body);
        --loop_depth_;
        return;
      }
      case StmtKind::break_:
      case StmtKind::continue_: return expect(loop_depth_ > 0);  // not the parallel loop's own
      case StmtKind::assert_: return;  // release mode: no code
      default: ok = false;
    }
  }
  void expect(bool condition) { ok = ok && condition; }

  // Every expression node: a lane type and a kind lanes compute.
  void check_node(const ExprNode& e) { expect(e.type && lane_type(*e.type)); }
  void visit_const(const Const& e) override { check_node(e); }
  void visit_var(const Var& e) override { check_node(e); }
  void visit_arg(const Arg& e) override { check_node(e); }
  void visit_shape(const Shape& e) override { check_node(e); }
  void visit_binary(const Binary& e) override {
    check_node(e);
    IRVisitor::visit_binary(e);
  }
  void visit_unary(const Unary& e) override {
    check_node(e);
    IRVisitor::visit_unary(e);
  }
  void visit_cast(const Cast& e) override {
    check_node(e);
    IRVisitor::visit_cast(e);
  }
  void visit_bit_cast(const BitCast& e) override {
    check_node(e);
    IRVisitor::visit_bit_cast(e);
  }
  void visit_select(const Select& e) override {
    check_node(e);
    IRVisitor::visit_select(e);
  }
  void visit_load(const Load& e) override {
    check_node(e);
    IRVisitor::visit_load(e);
  }
  void visit_atomic(const Atomic&) override { ok = false; }
  void visit_ad_top(const AdTop&) override { ok = false; }
  void visit_clock_counter(const ClockCounter&) override { ok = false; }  // one read per lane, in lane order
  void visit_simt(const Simt&) override { ok = false; }

  const Kernel& kernel_;
  std::set<std::string> written_;
  int loop_depth_ = 0;  // loops of the body around the statement checked
  std::set<std::string> for_vars_;
};

bool is_comparison(BinOp op) {
  return op == BinOp::eq || op == BinOp::ne || op == BinOp::lt || op == BinOp::le || op == BinOp::gt ||
         op == BinOp::ge;
}

// The C operator a vector takes as it is: shifts are not among them (C leaves out-of-range amounts undefined).
const char* symbol(BinOp op) { return op == BinOp::shl || op == BinOp::shr ? nullptr : binary_symbol(op); }

// The unsigned type of the same width, in which signed lanes wrap.
DtypeCode unsigned_of(DtypeCode t) { return dtype_size(t) == 4 ? DtypeCode::u32 : DtypeCode::u64; }

}  // namespace

// Emits one group's body.
class SimdLanes {
 public:
  SimdLanes(CStyleRenderer& r, const Kernel& kernel, const ParallelFor& loop, const LaneCheck& facts)
      : r_(r), kernel_(kernel), loop_(loop), facts_(facts), varying_(facts.varying) {}

  void emit(const std::string& counter, const std::string& stop, const std::string& t) {
    lane0_[loop_.vars.back()] = "(" + t + ")" + counter;
    DtypeCode index_type = *loop_.extents[0]->type;
    r_.emit_line("for (; " + stop + " - " + counter + " >= QD_SIMD_W; " + counter + " += QD_SIMD_W) {");
    r_.emit_line("  const " + vector_type(index_type) + " " + CStyleRenderer::local_name(loop_.vars.back()) +
                 " = qd_vlanes<" + vector_type(index_type) + ">(" + lane0_[loop_.vars.back()] + ");");
    block(loop_.body);
    r_.emit_line("}");
  }

 private:
  void line(const std::string& text) { r_.emit_line(text); }
  std::string id() { return std::to_string(r_.next_id_++); }
  bool varying(const Expr& e) const { return mentions(e, varying_); }

  std::string mask() const { return masks_.empty() ? "" : masks_.back(); }
  std::string mask_or_all() const { return masks_.empty() ? "qd_vsplat<qd_vmask>((int32_t)-1)" : masks_.back(); }

  // After a statement that may take lanes out (break, continue), the rest of the block runs only
  // while some lane remains, so that nothing runs for none (a load the same for every lane included).
  void block(const Block& b) {
    r_.indent_ += 2;
    int opened = 0;
    for (size_t k = 0; k < b.size(); ++k) {
      stmt(b[k]);
      if (k + 1 < b.size() && !masks_.empty() && jumps(b[k]).any()) {
        line("if (qd_vany(" + mask() + ")) {");
        r_.indent_ += 2;
        ++opened;
      }
    }
    for (; opened > 0; --opened) {
      r_.indent_ -= 2;
      line("}");
    }
    r_.indent_ -= 2;
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::decl: {
        const Decl& d = *as<Decl>(s);
        std::string name = CStyleRenderer::local_name(d.name);
        if (facts_.uniform.count(d.name)) {
          return line("const " + r_.type_name(*d.declared_type) + " " + name + " = " + r_.expr(d.value) + ";");
        }
        if (facts_.offsets.count(d.name)) lane0_[d.name] = in_lane0([&] { return r_.expr(d.value); });
        return line(vector_type(*d.declared_type) + " " + name + " = " + vexpr(d.value) + ";");
      }
      case StmtKind::assign: {
        const Assign& a = *as<Assign>(s);
        std::string name = CStyleRenderer::local_name(a.name), value = vexpr(a.value);
        return line(name + " = " + (masks_.empty() ? value : "qd_vsel(" + mask() + ", " + value + ", " + name + ")") +
                    ";");
      }
      case StmtKind::store: return store(*as<Store>(s));
      case StmtKind::if_: return if_stmt(*as<If>(s));
      case StmtKind::while_: return while_stmt(*as<While>(s));
      case StmtKind::for_: return for_stmt(*as<For>(s));
      case StmtKind::break_: return leave(loops_.back().persistent);
      case StmtKind::continue_: return leave(loops_.back().iteration);
      default: return;  // release-mode asserts: nothing (simd_applies admits nothing else)
    }
  }

  // The active lanes leave every mask from masks_[from] inward: the loop (break) or its iteration (continue).
  void leave(size_t from) {
    std::string b = "qd_b" + id();
    line("{");
    line("  const qd_vmask " + b + " = " + mask() + ";");
    for (size_t k = from; k < masks_.size(); ++k) line("  " + masks_[k] + " &= ~" + b + ";");
    line("}");
  }

  // Both sides under their own masks; a condition the same for every lane stays a plain `if`.
  void if_stmt(const If& s) {
    if (!varying(s.cond)) {
      line("if (" + r_.operand(s.cond) + ") {");
      block(s.then_body);
      line("} else {");
      block(s.else_body);
      line("}");
      return;
    }
    std::string n = id(), c = "qd_c" + n, outer = mask();
    line("{");
    r_.indent_ += 2;
    line("const qd_vmask " + c + " = qd_vtrue(" + vexpr(s.cond) + ");");
    masked_side(s.then_body, "qd_t" + n, outer.empty() ? c : outer + " & " + c);
    if (!s.else_body.empty()) masked_side(s.else_body, "qd_f" + n, outer.empty() ? "~" + c : mask() + " & ~" + c);
    r_.indent_ -= 2;
    line("}");
  }
  void masked_side(const Block& body, const std::string& name, const std::string& value) {
    line("qd_vmask " + name + " = " + value + ";");
    line("if (qd_vany(" + name + ")) {");
    masks_.push_back(name);
    block(body);
    masks_.pop_back();
    line("}");
  }

  // A loop's lanes: `persistent` (the loop's mask) loses lanes that leave the loop; a body with
  // `continue` runs under a copy per iteration (`iteration`), which also loses the lanes that continue.
  void enter_loop(const std::string& n, const Block& body) {
    size_t persistent = masks_.size() - 1, iteration = persistent;
    if (jumps(body).cont) {
      line("  qd_vmask qd_i" + n + " = " + masks_.back() + ";");
      masks_.push_back("qd_i" + n);
      iteration = masks_.size() - 1;
    }
    loops_.push_back({persistent, iteration});
    block(body);
    loops_.pop_back();
    masks_.resize(persistent);
  }

  // Lanes leave the loop as their condition fails; the body runs under the lanes still in it.
  void while_stmt(const While& s) {
    std::string n = id(), w = "qd_w" + n;
    line("{");
    r_.indent_ += 2;
    line("qd_vmask " + w + " = " + mask_or_all() + ";");
    line("for (;;) {");
    masks_.push_back(w);
    line("  " + w + " &= qd_vtrue(" + vexpr(s.cond) + ");");
    line("  if (!qd_vany(" + w + ")) break;");
    enter_loop(n, s.body);
    line("}");
    r_.indent_ -= 2;
    line("}");
  }

  // Bounds the same for every lane (simd_applies): a scalar loop around the body. With break or
  // continue the body runs under the loop's own mask, and the loop ends once no lane is in it.
  void for_stmt(const For& f) {
    std::string t = r_.type_name(*f.begin->type), n = id(), i = "qd_i" + n + "_";
    bool masked = jumps(f.body).any();
    line("{");
    r_.indent_ += 2;
    if (masked) line("qd_vmask qd_w" + n + " = " + mask_or_all() + ";");
    line("const " + t + " qd_end" + n + " = " + r_.expr(f.end) + ";");
    line("for (" + t + " " + i + " = " + r_.expr(f.begin) + "; " + i + " < qd_end" + n + "; ++" + i + ") {");
    line("  const " + t + " " + CStyleRenderer::local_name(f.var) + " = " + i + ";");
    if (masked) {
      line("  if (!qd_vany(qd_w" + n + ")) break;");
      masks_.push_back("qd_w" + n);
      enter_loop(n, f.body);
    } else {
      block(f.body);
    }
    line("}");
    r_.indent_ -= 2;
    line("}");
  }

  void store(const Store& s) {
    std::string value = vexpr(s.value), first = masks_.empty() ? consecutive_offset(s.ref) : "";
    if (!first.empty()) return line("qd_vstore(a_" + s.ref.array + " + (" + first + "), " + value + ");");
    std::string n = "qd_s" + id();
    line("{");
    line("  const " + vector_type(*s.value->type) + " " + n + " = " + value + ";");
    line("  for (int qd_k = 0; qd_k < QD_SIMD_W; ++qd_k) {");
    std::string target = in_lanes([&] { return r_.element(s.ref); });
    line("    " + (masks_.empty() ? "" : "if (" + mask() + "[qd_k]) ") + target + " = " + n + "[qd_k];");
    line("  }");
    line("}");
  }

  // The offset of lane 0's element where lane k's is k further on (a contiguous array of scalars
  // indexed by LaneCheck::lane_offset in its last dim, by values the same for every lane in the
  // others); "" otherwise.
  std::string consecutive_offset(const ArrayRef& ref) {
    const Param* p = kernel_.find_param(ref.array);
    if (!p->contiguous || !ref.element_indices.empty() || ref.indices.empty()) return "";
    for (size_t d = 0; d + 1 < ref.indices.size(); ++d) {
      if (varying(ref.indices[d])) return "";
    }
    if (!facts_.lane_offset(ref.indices.back())) return "";
    return in_lane0([&] { return r_.element_offset(ref); });
  }

  // Renders with the scalar renderer, the innermost index and the offsets locals as lane 0's.
  template <class F>
  std::string in_lane0(F render) {
    r_.var_text_ = lane0_;
    std::string text = render();
    r_.var_text_.clear();
    return text;
  }

  // Renders with the scalar renderer, each per-lane local as its lane qd_k.
  template <class F>
  std::string in_lanes(F render) {
    for (const std::string& name : varying_) r_.var_text_[name] = CStyleRenderer::local_name(name) + "[qd_k]";
    std::string text = render();
    r_.var_text_.clear();
    return text;
  }

  // e lane by lane: the scalar code for each lane; only active lanes where it loads.
  std::string lanewise(const Expr& e) {
    std::string t = r_.type_name(*e->type), v = vector_type(*e->type);
    std::string body = in_lanes([&] { return r_.operand(e); });
    std::string map = masks_.empty() || !contains_load(e) ? "qd_vmap<" + v + ">("
                                                          : "qd_vmap_masked<" + v + ">(" + mask() + ", ";
    return map + "[&](int qd_k) { return (" + t + ")(" + body + "); })";
  }

  std::string vexpr(const Expr& e) {
    DtypeCode t = *e->type;
    // The same for every lane (its loads too: some lane is active wherever a group's code runs).
    if (!varying(e)) {
      return "qd_vsplat<" + vector_type(t) + ">((" + r_.type_name(t) + ")(" + r_.operand(e) + "))";
    }
    switch (e->kind) {
      case ExprKind::var: return CStyleRenderer::local_name(as<Var>(e)->name);
      case ExprKind::binary: return binary(*as<Binary>(e), e);
      case ExprKind::unary: return unary(*as<Unary>(e), e);
      case ExprKind::cast: return cast(*as<Cast>(e), e);
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        // C's ?: evaluates one side per lane; both sides for every lane only when neither loads.
        if (contains_load(s.a) || contains_load(s.b)) return lanewise(e);
        return "qd_vsel(qd_vtrue(" + vexpr(s.cond) + "), " + vexpr(s.a) + ", " + vexpr(s.b) + ")";
      }
      case ExprKind::load: {
        const Load& l = *as<Load>(e);
        std::string first = masks_.empty() ? consecutive_offset(l.ref) : "";
        if (first.empty()) return lanewise(e);
        return "qd_vload<" + vector_type(t) + ">(a_" + l.ref.array + " + (" + first + "))";
      }
      default: return lanewise(e);
    }
  }

  std::string binary(const Binary& b, const Expr& e) {
    DtypeCode t = *b.type, a_type = *b.a->type;
    const char* op = symbol(b.op);
    bool same = b.a->type == b.b->type;
    if (op && same && is_comparison(b.op)) return "qd_vbool(" + vexpr(b.a) + " " + op + " " + vexpr(b.b) + ")";
    if (b.op == BinOp::logical_and || b.op == BinOp::logical_or) {
      std::string join = b.op == BinOp::logical_and ? " & " : " | ";
      return "(qd_vtrue(" + vexpr(b.a) + ")" + join + "qd_vtrue(" + vexpr(b.b) + ") & 1)";
    }
    if (!same || a_type != t) return lanewise(e);
    if ((b.op == BinOp::min || b.op == BinOp::max)) {
      return std::string(b.op == BinOp::min ? "qd_vmin(" : "qd_vmax(") + vexpr(b.a) + ", " + vexpr(b.b) + ")";
    }
    if (!op || (b.op == BinOp::truediv && !is_float(t))) return lanewise(e);
    bool bitwise = b.op == BinOp::bit_and || b.op == BinOp::bit_or || b.op == BinOp::bit_xor;
    if (is_float(t) || bitwise || !is_signed(t)) return "(" + vexpr(b.a) + " " + op + " " + vexpr(b.b) + ")";
    // Signed lanes wrap, as the scalar code's (docs/IR.md): the arithmetic happens unsigned.
    std::string u = vector_type(unsigned_of(t));
    return "(" + vector_type(t) + ")((" + u + ")" + vexpr(b.a) + " " + op + " (" + u + ")" + vexpr(b.b) + ")";
  }

  std::string unary(const Unary& u, const Expr& e) {
    DtypeCode t = *u.type;
    switch (u.op) {
      case UnOp::neg:
        if (is_float(t)) return "(-" + vexpr(u.a) + ")";
        if (!is_signed(t)) return "(-" + vexpr(u.a) + ")";
        return "(" + vector_type(t) + ")(-(" + vector_type(unsigned_of(t)) + ")" + vexpr(u.a) + ")";
      case UnOp::logical_not: return "qd_vbool(" + vexpr(u.a) + " == 0)";
      case UnOp::stop_grad: return vexpr(u.a);
      case UnOp::bit_not:
        if (!is_float(t)) return "(~" + vexpr(u.a) + ")";
        return lanewise(e);
      default: return lanewise(e);
    }
  }

  // Conversions C defines for every value convert lane by lane in one instruction; float to int goes
  // through qd_float_to_int (saturating), lane by lane.
  std::string cast(const Cast& c, const Expr& e) {
    if (is_float(*c.a->type) && !is_float(c.to)) return lanewise(e);
    return "__builtin_convertvector(" + vexpr(c.a) + ", " + vector_type(c.to) + ")";
  }

  CStyleRenderer& r_;
  const Kernel& kernel_;
  const ParallelFor& loop_;
  const LaneCheck& facts_;
  const std::set<std::string>& varying_;
  std::map<std::string, std::string> lane0_;  // lane 0's value of the innermost index and offsets locals
  std::vector<std::string> masks_;  // the masks in effect, innermost last; none: every lane is active
  struct LoopMasks {
    size_t persistent, iteration;  // indices into masks_
  };
  std::vector<LoopMasks> loops_;
};

bool simd_applies(const Kernel& kernel, const ParallelFor& loop) {
  if (kernel.options.checks_bounds() || loop.serialize || !loop.privatized.empty() || loop.vars.empty()) return false;
  if (!lane_type(*loop.extents[0]->type)) return false;
  WhileFinder loops;
  loops.visit(loop.body);
  if (!loops.found) return false;
  LaneCheck check(kernel, loop);
  check.check(loop.body);
  return check.ok;
}

void emit_simd_groups(CStyleRenderer& renderer, const ParallelFor& loop, const std::string& counter,
                      const std::string& stop, const std::string& t) {
  LaneCheck check(renderer.kernel_, loop);
  check.check(loop.body);
  SimdLanes(renderer, renderer.kernel_, loop, check).emit(counter, stop, t);
}

}  // namespace qd::codegen
