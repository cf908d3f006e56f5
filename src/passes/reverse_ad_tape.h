// src/passes/reverse_ad_tape.h: reverse_ad's first half: each region as a tape of single-assignment values.
//
// TapeBuilder turns a region (kernel body, parallel_for body, serial for body) into versions, entries,
// sinks and nested regions; AdjointEmitter (reverse_ad.cpp) writes the replay and the sweep from it.
// Included only by reverse_ad.cpp, which is why the definitions stay inline here.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"
#include "quadrants/errors.h"

namespace qd::passes::reverse_tape {

using namespace qd::ir;
using namespace qd::passes::ad;

struct Version {
  DtypeCode type;
  bool active = false;  // depends on a differentiable array, so it has an adjoint
  int region = 0;       // nesting depth of the region that owns it; 0: the kernel body
  bool parallel = false;  // owned by a parallel_for body or a region inside one
};

struct Entry;
using Tape = std::vector<Entry>;

// A local declared outside a serial loop and assigned inside it: its value flows between iterations.
struct Carried {
  std::string in, entry, last, out;  // versions: before the loop; at an iteration's start and end; after it
  DtypeCode type;
};

// A kernel body, parallel_for body or serial for body: the unit that is replayed, then reversed.
struct Region {
  std::vector<Carried> carried;      // serial for body: its loop-carried locals
  bool linear = false;  // every carried local only accumulates (s += e, s = s - e; s read nowhere else)
  std::vector<std::string> hoisted;  // versions assigned inside branches: declared at the region's top
  std::vector<std::string> owned;    // every version of the region, for its adjoint declarations
  Tape tape;
};

struct Entry {
  enum class Kind { def, sink, branch, loop, parallel };
  Kind kind;
  std::string name;  // def: the version; branch: the local holding the condition
  Expr value;        // def: a leaf or one operator over leaves; sink: the stored or added leaf
  ArrayRef ref;      // sink: the element of PRIMAL
  bool store = false;
  AtomicOp op = AtomicOp::add;
  Tape then_tape, else_tape;        // branch
  std::vector<std::string> vars;    // loop (one), parallel
  std::vector<Expr> bounds;         // loop: begin, end; parallel: extents
  const ParallelFor* loop = nullptr;  // parallel: block_dim and serialize
  std::shared_ptr<Region> body;     // loop, parallel
  std::string count;                // loop from a while or a for with a break: its trip count (a version)
                                    // while: name holds its condition
  std::string exit;                 // loop with a break: the break flag's version at an iteration's end
  SourceLoc loc;
  explicit Entry(Kind kind) : kind(kind) {}
};

bool is_leaf(const Expr& e) { return as<Var>(e) || as<Const>(e) || as<Arg>(e); }

class TapeBuilder {
 public:
  explicit TapeBuilder(const Kernel& kernel, const std::map<std::string, std::string>& grad_of)
      : kernel_(kernel), grad_of_(grad_of) {
    for (const Param& p : kernel.params) used_.insert(p.name);
    collect_names(kernel.body);
  }

  Region build() {
    Region top;
    enter_region(top, [&] { block(kernel_.body); });
    return top;
  }

  // A name no other local or param has: base_0, base_1, ... (base itself first when !numbered).
  std::string fresh(const std::string& base, bool numbered = true) {
    if (!numbered && used_.insert(base).second) return base;
    for (int n = 0;; ++n) {
      std::string name = base + "_" + std::to_string(n);
      if (used_.insert(name).second) return name;
    }
  }
  const Version& version(const std::string& name) const { return versions_.at(name); }

 private:
  [[noreturn]] void fail(const std::string& message) {
    throw KernelUserError(KernelUserError::Kind::syntax, message, loc_.line, loc_.col);
  }

  void collect_names(const Block& b) {
    collect_local_names(b, used_);
  }

  template <class Fn>
  void enter_region(Region& region, Fn&& fn) {
    Region* outer_region = region_;
    Tape* outer_out = out_;
    int outer_branches = branch_depth_;
    region_ = &region;
    out_ = &region.tape;
    branch_depth_ = 0;
    ++depth_;
    scopes_.emplace_back();
    fn();
    scopes_.pop_back();
    --depth_;
    region_ = outer_region;
    out_ = outer_out;
    branch_depth_ = outer_branches;
  }

  std::string new_version(const std::string& base, DtypeCode type, bool active) {
    std::string name = fresh(base);
    versions_[name] = Version{type, active && is_float(type), depth_ - 1, in_parallel_};
    region_->owned.push_back(name);
    if (branch_depth_ > 0) region_->hoisted.push_back(name);
    return name;
  }

  // The scope slot of a source local: (scope index, current version).
  std::pair<size_t, std::string*> lookup(const std::string& name) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto found = scopes_[i].find(name);
      if (found != scopes_[i].end()) return {i, &found->second};
    }
    QD_ASSERT(false, "reverse_ad(): undeclared local " + name);
    return {0, nullptr};
  }

  bool has_grad(const std::string& array) const { return grad_of_.count(array) != 0; }

  [[noreturn]] void fail_simt() {
    fail("Kernel '" + kernel_.name + "' uses qd.simt block or subgroup operations, which reverse-mode autodiff " +
         "does not support. Differentiate a kernel without them.");
  }

  // Source names -> versions; atomics inside expressions are rejected.
  Expr rename(const Expr& e) {
    switch (e->kind) {
      case ExprKind::constant:
      case ExprKind::arg:
      case ExprKind::shape:
      case ExprKind::clock_counter: return e;  // no derivative; the adjoint reads the counter anew
      case ExprKind::var: return Var::make(*lookup(as<Var>(e)->name).second, e->type);
      case ExprKind::binary: {
        const Binary& b = *as<Binary>(e);
        return Binary::make(b.op, rename(b.a), rename(b.b), e->type);
      }
      case ExprKind::unary: return Unary::make(as<Unary>(e)->op, rename(as<Unary>(e)->a), e->type);
      case ExprKind::cast: return Cast::make(as<Cast>(e)->to, rename(as<Cast>(e)->a));
      case ExprKind::bit_cast: return BitCast::make(as<BitCast>(e)->to, rename(as<BitCast>(e)->a));
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        return Select::make(rename(s.cond), rename(s.a), rename(s.b), e->type);
      }
      case ExprKind::load: return Load::make(rename_ref(as<Load>(e)->ref), e->type);
      case ExprKind::ad_top: QD_ASSERT(false, "reverse_ad(): the primal already uses an AD stack"); return e;
      case ExprKind::atomic:
        fail("Kernel '" + kernel_.name + "' uses the value an atomic operation returns, which its adjoint " +
             "cannot replay. Reverse-mode autodiff supports atomics only as statements (x[i] += v).");
      case ExprKind::simt: fail_simt();
    }
    return e;
  }
  ArrayRef rename_ref(const ArrayRef& ref) {
    ArrayRef out{ref.array, {}, {}};
    for (const Expr& i : ref.indices) out.indices.push_back(rename(i));
    for (const Expr& i : ref.element_indices) out.element_indices.push_back(rename(i));
    return out;
  }

  // Whether a renamed expression depends on a differentiable array through differentiable operators.
  bool is_active(const Expr& e) const {
    if (!e->type || !is_float(*e->type)) return false;
    switch (e->kind) {
      case ExprKind::var: return versions_.at(as<Var>(e)->name).active;
      case ExprKind::load: return has_grad(as<Load>(e)->ref.array);
      case ExprKind::binary: {
        const Binary& b = *as<Binary>(e);
        return binary_rule(b.op) && (is_active(b.a) || is_active(b.b));
      }
      case ExprKind::unary: return unary_rule(as<Unary>(e)->op) && is_active(as<Unary>(e)->a);
      case ExprKind::cast: return is_active(as<Cast>(e)->a);
      case ExprKind::select: return is_active(as<Select>(e)->a) || is_active(as<Select>(e)->b);
      default: return false;
    }
  }

  // An active expression becomes one operator over leaves, its operands bound to temporaries.
  Expr lower(const Expr& e) {
    if (!is_active(e)) return e;
    switch (e->kind) {
      case ExprKind::binary: {
        const Binary& b = *as<Binary>(e);
        return Binary::make(b.op, leaf(b.a), leaf(b.b), e->type);
      }
      case ExprKind::unary: return Unary::make(as<Unary>(e)->op, leaf(as<Unary>(e)->a), e->type);
      case ExprKind::cast: return Cast::make(as<Cast>(e)->to, leaf(as<Cast>(e)->a));
      case ExprKind::select: {
        const Select& s = *as<Select>(e);
        return Select::make(leaf(s.cond), leaf(s.a), leaf(s.b), e->type);
      }
      default: return e;  // var, load
    }
  }
  Expr leaf(const Expr& e) {
    if (is_leaf(e)) return e;
    Expr lowered = lower(e);
    std::string name = new_version("tmp", *e->type, is_active(e));
    define(name, lowered);
    return Var::make(name, e->type);
  }
  void define(const std::string& name, Expr value) {
    Entry entry(Entry::Kind::def);
    entry.name = name;
    entry.value = std::move(value);
    entry.loc = loc_;
    out_->push_back(std::move(entry));
  }

  // A new version of source local `name` (declared in the current scope when `declare`).
  void assign(const std::string& name, DtypeCode type, const Expr& renamed, bool declare) {
    Expr lowered = lower(renamed);
    if (declare) {
      std::string v = new_version(name, type, is_active(renamed));
      define(v, lowered);
      scopes_.back()[name] = v;
      return;
    }
    auto [scope, slot] = lookup(name);
    if (static_cast<int>(scope) < scope_region_start()) {
      fail("Kernel '" + kernel_.name + "' assigns local '" + name + "' inside a parallel loop, but '" + name +
           "' is declared outside that loop, so iterations running at once read what another one wrote. " +
           "Reverse-mode autodiff supports loop-carried locals only in serial loops. Declare '" + name +
           "' inside the loop or accumulate into an array element instead (a[i] += ...).");
    }
    std::string v = new_version(name, type, is_active(renamed));
    define(v, lowered);
    *slot = v;
  }
  // The first scope of the current region (scopes before it belong to enclosing regions).
  int scope_region_start() const { return region_scope_starts_.empty() ? 0 : region_scope_starts_.back(); }

  void block(const Block& b) {
    SourceLoc outer = loc_;
    for (const Stmt& s : b) {
      loc_ = s->loc.line ? s->loc : outer;
      stmt(s);
    }
    loc_ = outer;
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::decl: {
        const Decl& d = *as<Decl>(s);
        return assign(d.name, *d.declared_type, rename(d.value), true);
      }
      case StmtKind::assign: {
        const Assign& a = *as<Assign>(s);
        return assign(a.name, *a.value->type, rename(a.value), false);
      }
      case StmtKind::store: return store(*as<Store>(s));
      case StmtKind::eval: return eval(*as<Eval>(s));
      case StmtKind::if_: return branch(*as<If>(s));
      case StmtKind::for_: return serial_loop(*as<For>(s));
      case StmtKind::parallel_for: return parallel_loop(*as<ParallelFor>(s));
      case StmtKind::print:
      case StmtKind::assert_: return;  // the adjoint neither prints nor re-checks
      case StmtKind::call: QD_ASSERT(false, "reverse_ad(): a call survived reject_functions()");
      case StmtKind::while_: return while_loop(*as<While>(s));
      case StmtKind::ad_stack:
      case StmtKind::ad_stack_op: QD_ASSERT(false, "reverse_ad(): the primal already uses an AD stack"); return;
      case StmtKind::break_:
      case StmtKind::continue_:
        QD_ASSERT(false, "reverse_ad(): break/continue left after BreakContinueLowering");
        return;
      case StmtKind::simt: fail_simt();
      case StmtKind::graph_do_while:
        fail("Kernel '" + kernel_.name + "' uses qd.graph.do_while(), whose trip count lives in device memory; " +
             "reverse-mode autodiff cannot replay it. Differentiate a kernel holding one iteration's body, " +
             "launched once per iteration.");
      case StmtKind::return_:
        fail("Kernel '" + kernel_.name + "' returns a value; reverse-mode autodiff differentiates kernels that " +
             "write their results to fields or ndarrays. Write the result to a 0-d field instead.");
    }
  }

  void store(const Store& s) {
    if (!has_grad(s.ref.array)) return;  // nothing flows back through an array without a gradient
    Entry entry(Entry::Kind::sink);
    entry.ref = rename_ref(s.ref);
    entry.value = leaf(rename(s.value));
    entry.store = true;
    entry.loc = loc_;
    out_->push_back(std::move(entry));
  }

  void eval(const Eval& s) {
    const Atomic* a = as<Atomic>(s.value);
    if (!a) {
      rename(s.value);  // no side effects, unless it hides an atomic (rejected there)
      return;
    }
    if (a->local) {
      static const std::map<AtomicOp, BinOp> kCombine = {
          {AtomicOp::add, BinOp::add},         {AtomicOp::sub, BinOp::sub},       {AtomicOp::min, BinOp::min},
          {AtomicOp::max, BinOp::max},         {AtomicOp::bit_and, BinOp::bit_and}, {AtomicOp::bit_or, BinOp::bit_or},
          {AtomicOp::bit_xor, BinOp::bit_xor}, {AtomicOp::mul, BinOp::mul}};
      // An exchange stores the value itself; every other op combines it with the current value.
      if (a->op == AtomicOp::xchg) return assign(*a->local, *a->type, rename(a->value), false);
      if (a->op == AtomicOp::cas) {
        Expr current = rename(Var::make(*a->local, a->type));
        Expr equal = Binary::make(BinOp::eq, current, rename(a->expected), DtypeCode::i32);
        return assign(*a->local, *a->type, Select::make(equal, rename(a->value), current, a->type), false);
      }
      Expr current = rename(Var::make(*a->local, a->type));
      return assign(*a->local, *a->type, Binary::make(kCombine.at(a->op), current, rename(a->value), a->type), false);
    }
    if (!has_grad(a->ref.array)) return;
    if (a->op != AtomicOp::add && a->op != AtomicOp::sub) {
      fail("Kernel '" + kernel_.name + "' applies atomic " + std::string(atomic_op_name(a->op)) + " to '" +
           a->ref.array + "', which has a gradient; reverse-mode autodiff supports only atomic add and sub (+=, -=) " +
           "on arrays with gradients so far.");
    }
    Entry entry(Entry::Kind::sink);
    entry.ref = rename_ref(a->ref);
    entry.value = leaf(rename(a->value));
    entry.op = a->op;
    entry.loc = loc_;
    out_->push_back(std::move(entry));
  }

  void branch(const If& s) {
    Expr cond = rename(s.cond);
    std::string cond_name = new_version("cond", *cond->type, false);
    define(cond_name, cond);
    Entry entry(Entry::Kind::branch);
    entry.name = cond_name;
    entry.loc = loc_;
    auto before = scopes_;
    auto arm = [&](const Block& body, Tape& tape) {
      Tape* outer = out_;
      out_ = &tape;
      ++branch_depth_;
      scopes_.emplace_back();
      block(body);
      scopes_.pop_back();
      --branch_depth_;
      out_ = outer;
      auto after = scopes_;
      scopes_ = before;
      return after;
    };
    auto after_then = arm(s.then_body, entry.then_tape);
    auto after_else = arm(s.else_body, entry.else_tape);
    // A local assigned on either side gets a merged version, assigned at the end of both sides.
    ++branch_depth_;
    for (size_t i = 0; i < before.size(); ++i) {
      for (auto& [name, old] : before[i]) {
        const std::string& v_then = after_then[i].at(name);
        const std::string& v_else = after_else[i].at(name);
        if (v_then == old && v_else == old) continue;
        const Version& info = versions_.at(old);
        bool active = versions_.at(v_then).active || versions_.at(v_else).active;
        std::string merged = new_version(name, info.type, active);
        for (auto [tape, v] : {std::pair{&entry.then_tape, v_then}, std::pair{&entry.else_tape, v_else}}) {
          Entry copy(Entry::Kind::def);
          copy.name = merged;
          copy.value = Var::make(v, info.type);
          copy.loc = loc_;
          tape->push_back(std::move(copy));
        }
        scopes_[i][name] = merged;
      }
    }
    --branch_depth_;
    out_->push_back(std::move(entry));
  }

  // A loop body lowered by BreakContinueLowering ends with `(if (var FLAG) ((break)) ())`: the body
  // without it, and FLAG (empty when there is none).
  static std::pair<Block, std::string> split_exit(const Block& body) {
    const If* last = body.empty() ? nullptr : as<If>(body.back());
    const Var* flag = last ? as<Var>(last->cond) : nullptr;
    if (!flag || !last->else_body.empty() || last->then_body.size() != 1 || !as<Break>(last->then_body[0])) {
      return {body, ""};
    }
    return {Block(body.begin(), body.end() - 1), flag->name};
  }

  void serial_loop(const For& loop) {
    auto [stripped, exit_flag] = split_exit(loop.body);
    For s(loop.var, loop.begin, loop.end, stripped, loop.loc);
    Entry entry(Entry::Kind::loop);
    entry.bounds = {rename(s.begin), rename(s.end)};
    entry.body = std::make_shared<Region>();
    entry.loc = loc_;
    std::string var = fresh(s.var);
    entry.vars = {var};
    if (!exit_flag.empty()) entry.count = new_version("for_count", DtypeCode::i32, false);
    // Locals declared outside and assigned inside: each iteration starts from the previous one's value.
    std::vector<Carried> carried;
    for (const std::string& name : assigned_outer_locals(s.body)) {
      const std::string& in = *lookup(name).second;
      carried.push_back(Carried{in, "", "", "", versions_.at(in).type});
    }
    region_scope_starts_.push_back(static_cast<int>(scopes_.size()));
    enter_region(*entry.body, [&] {
      versions_[var] = Version{*s.begin->type, false, depth_ - 1, in_parallel_};
      scopes_.back()[s.var] = var;
      std::vector<std::string> names = assigned_outer_locals(s.body);
      for (size_t k = 0; k < carried.size(); ++k) {
        carried[k].entry = new_version(names[k], carried[k].type, true);
        scopes_.back()[names[k]] = carried[k].entry;
      }
      block(s.body);
      for (size_t k = 0; k < carried.size(); ++k) carried[k].last = scopes_.back().at(names[k]);
      if (!exit_flag.empty()) entry.exit = *lookup(exit_flag).second;
    });
    region_scope_starts_.pop_back();
    for (size_t k = 0; k < carried.size(); ++k) {
      std::vector<std::string> names = assigned_outer_locals(s.body);
      carried[k].out = new_version(names[k], carried[k].type, true);
      *lookup(names[k]).second = carried[k].out;
    }
    entry.body->carried = std::move(carried);
    entry.body->linear = linear_accumulators(s.body, assigned_outer_locals(s.body));
    out_->push_back(std::move(entry));
  }

  // Whether each of `names` is a float local the loop only accumulates into: `s = s + e`, `s = s - e`,
  // `s += e`, `s -= e`, with s read nowhere else (upstream's exemption from the AD stack). Then s's
  // adjoint is the same in every iteration and no iteration needs s's value.
  bool linear_accumulators(const Block& body, const std::vector<std::string>& names) {
    struct Counter : IRVisitor {
      std::map<std::string, int> reads, allowed;
      std::set<std::string> other;  // updated some other way
      void visit_var(const Var& v) override { ++reads[v.name]; }
      void visit_assign(const Assign& s) override {
        const Binary* b = as<Binary>(s.value);
        const Var* a = b ? as<Var>(b->a) : nullptr;
        if (b && (b->op == BinOp::add || b->op == BinOp::sub) && a && a->name == s.name) ++allowed[s.name];
        else other.insert(s.name);
        IRVisitor::visit_assign(s);
      }
      void visit_eval(const Eval& s) override {
        const Atomic* a = as<Atomic>(s.value);
        if (a && a->local && a->op != AtomicOp::add && a->op != AtomicOp::sub) other.insert(*a->local);
        IRVisitor::visit_eval(s);
      }
    } counter;
    counter.visit(body);
    for (const std::string& name : names) {
      if (!is_float(versions_.at(*lookup(name).second).type) || counter.other.count(name) ||
          counter.reads[name] != counter.allowed[name]) {
        return false;
      }
    }
    return !names.empty();
  }

  // A while loop: a serial loop over [0, count) whose replay counts its iterations (Entry::count) and
  // whose body starts with its condition's value (Entry::name).
  void while_loop(const While& loop) {
    auto [stripped, exit_flag] = split_exit(loop.body);
    While s(loop.cond, stripped, loop.loc);
    Entry entry(Entry::Kind::loop);
    entry.body = std::make_shared<Region>();
    entry.loc = loc_;
    std::string var = fresh("while_iter");
    entry.vars = {var};
    std::vector<std::string> names = assigned_outer_locals(s.body);
    std::vector<Carried> carried;
    for (const std::string& name : names) {
      const std::string& in = *lookup(name).second;
      carried.push_back(Carried{in, "", "", "", versions_.at(in).type});
    }
    entry.count = new_version("while_count", DtypeCode::i32, false);
    entry.bounds = {Const::make_int(DtypeCode::i32, 0), Var::make(entry.count, DtypeCode::i32)};
    region_scope_starts_.push_back(static_cast<int>(scopes_.size()));
    enter_region(*entry.body, [&] {
      versions_[var] = Version{DtypeCode::i32, false, depth_ - 1, in_parallel_};
      for (size_t k = 0; k < carried.size(); ++k) {
        carried[k].entry = new_version(names[k], carried[k].type, true);
        scopes_.back()[names[k]] = carried[k].entry;
      }
      Expr cond = rename(s.cond);
      entry.name = new_version("cond", *cond->type, false);
      define(entry.name, cond);
      block(s.body);
      for (size_t k = 0; k < carried.size(); ++k) carried[k].last = scopes_.back().at(names[k]);
      if (!exit_flag.empty()) entry.exit = *lookup(exit_flag).second;
    });
    region_scope_starts_.pop_back();
    for (size_t k = 0; k < carried.size(); ++k) {
      carried[k].out = new_version(names[k], carried[k].type, true);
      *lookup(names[k]).second = carried[k].out;
    }
    entry.body->carried = std::move(carried);
    out_->push_back(std::move(entry));
  }

  // Source locals assigned in `body` (at any depth) that are declared outside it, in order of name.
  std::vector<std::string> assigned_outer_locals(const Block& body) {
    struct Collector : IRVisitor {
      std::set<std::string> assigned, declared;
      void visit_decl(const Decl& s) override { declared.insert(s.name), IRVisitor::visit_decl(s); }
      void visit_assign(const Assign& s) override { assigned.insert(s.name), IRVisitor::visit_assign(s); }
      void visit_eval(const Eval& s) override {
        if (const Atomic* a = as<Atomic>(s.value); a && a->local) assigned.insert(*a->local);
        IRVisitor::visit_eval(s);
      }
    } collector;
    collector.visit(body);
    std::vector<std::string> out;
    for (const std::string& name : collector.assigned) {
      if (collector.declared.count(name)) continue;
      for (size_t i = scopes_.size(); i-- > 0;) {
        if (scopes_[i].count(name)) {
          out.push_back(name);
          break;
        }
      }
    }
    return out;
  }

  void parallel_loop(const ParallelFor& s) {
    Entry entry(Entry::Kind::parallel);
    for (const Expr& e : s.extents) entry.bounds.push_back(rename(e));
    entry.body = std::make_shared<Region>();
    entry.loop = &s;
    entry.loc = loc_;
    region_scope_starts_.push_back(static_cast<int>(scopes_.size()));
    in_parallel_ = true;
    enter_region(*entry.body, [&] {
      for (const std::string& v : s.vars) {
        std::string name = fresh(v);
        versions_[name] = Version{DtypeCode::i32, false, depth_ - 1, true};
        scopes_.back()[v] = name;
        entry.vars.push_back(name);
      }
      block(s.body);
    });
    in_parallel_ = false;
    region_scope_starts_.pop_back();
    out_->push_back(std::move(entry));
  }

  const Kernel& kernel_;
  const std::map<std::string, std::string>& grad_of_;
  std::set<std::string> used_;
  std::map<std::string, Version> versions_;
  std::vector<std::map<std::string, std::string>> scopes_;  // source local -> current version
  std::vector<int> region_scope_starts_;
  Region* region_ = nullptr;
  Tape* out_ = nullptr;
  int depth_ = 0;         // regions entered
  int branch_depth_ = 0;  // ifs entered within the current region
  bool in_parallel_ = false;
  SourceLoc loc_;
};

}  // namespace qd::passes::reverse_tape
