// src/passes/reverse_ad.cpp: reverse-mode autodiff: a typed kernel becomes its adjoint kernel.
//
// Requires: Stage::typed. kernel.adjoints pairs array params: GRAD holds the gradient of PRIMAL
//           (same float dtype and shape, GRAD writable). An empty list leaves the kernel as it is.
// Ensures: Stage::typed, simplified, with an empty adjoints list; the body is the adjoint. Each region (the kernel
//          body, each parallel_for body, each serial for body) first recomputes its values without
//          writing any array, then walks its statements backwards, applying ad_rules.cpp's rule of
//          each operator. A load of PRIMAL adds its adjoint to GRAD (atomically); `PRIMAL[i] = e`
//          adds GRAD[i] to e's adjoint, then zeroes GRAD[i] (upstream's rule: the old value is
//          overwritten); `PRIMAL[i] += e` adds GRAD[i] (`-=` subtracts it). Parallel loops run in
//          reverse order; a serial loop's iterations each recompute and differentiate their own values.
//          Arrays without a GRAD and scalar params are constants; integer values and casts to
//          integers carry no gradient. Locals carried by a serial loop (declared outside, assigned
//          inside) go through a state local; the replay pushes each iteration's starting values onto
//          per-thread AD stacks ((ad_stack ...), capacity options.ad_stack_size), and the adjoint runs
//          the iterations last to first, popping them (loops that only accumulate, s += e, need no
//          stack). A while loop is such a loop over [0, n): its replay counts its n iterations.
//          break and continue become flags first (reverse_ad_control.h); a loop that breaks is
//          counted like a while loop.
// Rejects (syntax errors): what would need a replay of side effects or shared state: a local assigned
//          in a parallel loop but declared outside it, return, atomic min/max/bitwise operations on
//          an array with a gradient, reading the value an atomic operation returns (one assigned to a local
//          that nothing reads is dropped, leaving the atomic statement). Adjoint pairs that do not name
//          matching array params (type errors).
//
// How: a builder turns each region into a tape of single-assignment values (every local assignment
// gets a fresh name, a version; every active subexpression gets its own temporary; ifs end with a
// copy of each changed local into a merged version), stores and atomics into arrays with a GRAD
// (sinks), branches and loops. An emitter writes each region as its forward replay (the values, no
// sinks) followed by its reverse sweep, which reads those values; versions assigned in branches and
// all adjoints are declared at the top of their region so the sweep sees them. Before that, selects
// whose arms load arrays become ifs (lazy_selects.h), so the arm not taken is neither replayed nor swept.
#include <map>
#include <set>

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"
#include "passes/lazy_selects.h"
#include "passes/passes.h"
#include "passes/reverse_ad_control.h"
#include "passes/reverse_ad_exclusive.h"
#include "passes/reverse_ad_races.h"
#include "passes/reverse_ad_tape.h"
#include "quadrants/errors.h"

namespace qd::passes {
namespace {

using namespace qd::ir;
using namespace qd::passes::ad;
using namespace qd::passes::reverse_tape;

class AdjointEmitter {
 public:
  AdjointEmitter(TapeBuilder& builder, const Kernel& kernel, const std::map<std::string, std::string>& grad_of)
      : builder_(builder), kernel_(kernel), grad_of_(grad_of) {}

  // A region's replay and sweep. `record`: carried loops push their iterations' values while the replay
  // runs (false for the kernel body, whose serial statements CUDA may split into several tasks: there
  // each carried loop records right before its sweep, in the same run of serial statements).
  Block region(const Region& r, bool in_parallel, bool record = true) {
    bool outer = in_parallel_;
    in_parallel_ = in_parallel;
    Block out;
    prologue(r, true, out);
    std::set<std::string> hoisted(r.hoisted.begin(), r.hoisted.end());
    Block stacks;
    forward(r.tape, hoisted, out, record ? &stacks : nullptr);
    reverse(r.tape, out);
    out.insert(out.begin(), stacks.begin(), stacks.end());
    in_parallel_ = outer;
    return out;
  }

 private:
  DtypeCode type(const std::string& v) const { return builder_.version(v).type; }
  bool active(const std::string& v) const { return builder_.version(v).active; }

  // A region's declarations: versions assigned in branches and (with `adjoints`) every adjoint.
  void prologue(const Region& r, bool adjoints, Block& out) {
    for (const std::string& v : r.hoisted) out.push_back(Decl::make(v, type(v), zero(type(v))));
    if (!adjoints) return;
    for (const std::string& v : r.owned) {
      if (!active(v)) continue;
      adjoint_[v] = builder_.fresh(v + "_adj", false);
      out.push_back(Decl::make(adjoint_[v], type(v), zero(type(v))));
    }
  }

  // One iteration's replay of a serial loop body with loop-carried locals: the carried locals start
  // from `state` (one local per Carried); `tail` runs after the values, then `state` takes the
  // iteration's last values. `stacks` (when set) receives the declarations of the AD stacks that loops
  // nested in the body record into, for a sweep of this iteration that follows.
  Block carried_iteration(const Region& r, const std::vector<std::string>& state, bool adjoints, Block tail,
                          Block* stacks = nullptr) {
    Block body;
    prologue(r, adjoints, body);
    for (size_t k = 0; k < r.carried.size(); ++k) {
      body.push_back(Decl::make(r.carried[k].entry, r.carried[k].type, var_of(state[k], r.carried[k].type)));
    }
    std::set<std::string> hoisted(r.hoisted.begin(), r.hoisted.end());
    forward(r.tape, hoisted, body, stacks);
    for (Stmt& s : tail) body.push_back(std::move(s));
    for (size_t k = 0; k < r.carried.size(); ++k) body.push_back(Assign::make(state[k], var(r.carried[k].last)));
    return body;
  }
  static Expr var_of(const std::string& name, DtypeCode t) { return Var::make(name, t); }

  // The primal of a serial loop with loop-carried locals, for the enclosing region's replay: it runs
  // every iteration's values (no array writes) and gives the carried locals' values after the loop.
  // With `stacks`, each iteration also pushes its carried locals' starting values onto one AD stack
  // per local (declared into `stacks`), for the loop's sweep; `rerun` (a second replay, right before
  // the sweep) leaves the values after the loop to the first one.
  void carried_loop_forward(const Entry& e, const std::set<std::string>& hoisted, Block& out, Block* stacks,
                            bool rerun = false) {
    const Region& r = *e.body;
    std::vector<std::string> state;
    for (const Carried& c : r.carried) {
      state.push_back(builder_.fresh(c.out + "_state"));
      out.push_back(Decl::make(state.back(), c.type, var(c.in), e.loc));
    }
    Block tail;
    if (stacks && !r.linear) {
      std::vector<std::string>& names = stacks_[&e];
      names.clear();
      for (size_t k = 0; k < r.carried.size(); ++k) {
        names.push_back(builder_.fresh(r.carried[k].out + "_stack"));
        stacks->push_back(AdStack::make(names.back(), r.carried[k].type, capacity_, e.loc));
        tail.push_back(AdStackOp::make_push(names.back(), var_of(state[k], r.carried[k].type), e.loc));
      }
    }
    if (!e.count.empty()) {
      // A while loop, or a for loop with a break: count the iterations for the reverse sweep.
      Expr zero_count = Const::make_int(DtypeCode::i32, 0);
      out.push_back(hoisted.count(e.count) || rerun ? Assign::make(e.count, zero_count, e.loc)
                                                    : Decl::make(e.count, DtypeCode::i32, zero_count, e.loc));
      tail.push_back(Assign::make(e.count, arith(BinOp::add, var(e.count), Const::make_int(DtypeCode::i32, 1))));
    }
    Block body = carried_iteration(r, state, false, tail);
    // A break ends the replay after the iteration that set its flag, as it ended the primal.
    if (!e.exit.empty()) body.push_back(If::make(var(e.exit), {Break::make(e.loc)}, {}, e.loc));
    if (!e.name.empty()) {
      // A while loop: run until its condition fails.
      for (auto it = body.begin(); it != body.end(); ++it) {
        const Decl* d = as<Decl>(*it);
        if (d && d->name == e.name) {
          body.insert(it + 1, If::make(var(e.name), {}, {Break::make(e.loc)}, e.loc));
          break;
        }
      }
      out.push_back(While::make(Const::make_int(DtypeCode::i32, 1), body, e.loc));
    } else {
      out.push_back(For::make(e.vars[0], e.bounds[0], e.bounds[1], body, e.loc));
    }
    if (rerun) return;
    for (size_t k = 0; k < r.carried.size(); ++k) {
      const Carried& c = r.carried[k];
      Expr value = var_of(state[k], c.type);
      out.push_back(hoisted.count(c.out) ? Assign::make(c.out, value, e.loc) : Decl::make(c.out, c.type, value, e.loc));
    }
  }

  // Adds each carried local's adjoint at an iteration's end (`carry`) to its last version's adjoint:
  // the start of the iteration's sweep.
  void seed_sweep(const Region& r, const std::vector<std::string>& carry, Block& sweep) {
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (carry[k].empty() || !active(r.carried[k].last)) continue;
      const std::string& adj = adjoint_.at(r.carried[k].last);
      sweep.push_back(Assign::make(adj, arith(BinOp::add, Var::make(adj, r.carried[k].type),
                                              Var::make(carry[k], r.carried[k].type))));
    }
  }

  // The adjoint of a serial loop whose carried locals only accumulate (Region::linear): each
  // iteration's sweep starts from the same carried adjoint and needs no carried value, so the
  // iterations run in order, once each, as those of a loop without carried locals (no AD stack).
  void accumulation_loop_reverse(const Entry& e, Block& out) {
    const Region& r = *e.body;
    std::vector<std::string> carry(r.carried.size());
    for (size_t k = 0; k < r.carried.size(); ++k) {
      carry[k] = builder_.fresh(r.carried[k].out + "_carry_adj");
      out.push_back(Decl::make(carry[k], r.carried[k].type, var_of(adjoint_.at(r.carried[k].out), r.carried[k].type),
                               e.loc));
    }
    // The replay's carried values are unused (no rule of add/sub reads its operands): the value before the loop.
    std::vector<std::string> state;
    for (const Carried& c : r.carried) state.push_back(c.in);
    Block stacks;
    Block body = carried_iteration(r, state, true, {}, &stacks);
    body.resize(body.size() - r.carried.size());  // no state updates
    Block sweep;
    seed_sweep(r, carry, sweep);
    reverse(r.tape, sweep);
    body.insert(body.end(), sweep.begin(), sweep.end());
    body.insert(body.begin(), stacks.begin(), stacks.end());
    out.push_back(For::make(e.vars[0], e.bounds[0], e.bounds[1], body, e.loc));
    for (size_t k = 0; k < r.carried.size(); ++k) {
      accumulate(var(r.carried[k].in), Var::make(carry[k], r.carried[k].type), e.loc, out);
    }
  }

  // The adjoint of a serial loop with loop-carried locals, iterations last to first: each pops its
  // carried locals' starting values off the AD stacks the replay filled, replays its own values from
  // them and sweeps them backwards, the carried locals' adjoints flowing from its last values to its
  // first, then to the values before the loop. O(trip count) time, one stack slot per iteration.
  void carried_loop_reverse(const Entry& e, Block& out) {
    const Region& r = *e.body;
    if (r.linear) return accumulation_loop_reverse(e, out);
    if (!stacks_.count(&e)) carried_loop_forward(e, {}, out, &out, true);  // the kernel body: record here
    std::vector<std::string> stacks = stacks_.at(&e);
    stacks_.erase(&e);
    DtypeCode it = type(e.vars[0]);
    std::vector<std::string> carry(r.carried.size());
    for (size_t k = 0; k < r.carried.size(); ++k) {
      const Carried& c = r.carried[k];
      if (!active(c.out)) continue;
      carry[k] = builder_.fresh(c.out + "_carry_adj");
      out.push_back(Decl::make(carry[k], c.type, var_of(adjoint_.at(c.out), c.type), e.loc));
    }
    std::string step = builder_.fresh(e.vars[0] + "_rev");
    std::string last = builder_.fresh(e.vars[0] + "_last");
    // The iterations that ran: [begin, end), or [begin, begin + count) where a break or condition ended them.
    Expr count = e.count.empty() ? nullptr : var(e.count);
    if (count && it != DtypeCode::i32) count = Cast::make(it, count);
    Expr end = count ? arith(BinOp::add, e.bounds[0], count) : e.bounds[1];
    out.push_back(Decl::make(last, it, arith(BinOp::sub, end, Const::make_int(it, 1)), e.loc));
    Block body{Decl::make(e.vars[0], it, arith(BinOp::sub, Var::make(last, it), Var::make(step, it)), e.loc)};
    std::vector<std::string> state;
    for (size_t k = 0; k < r.carried.size(); ++k) {
      const Carried& c = r.carried[k];
      state.push_back(builder_.fresh(c.out + "_state"));
      body.push_back(Decl::make(state.back(), c.type, AdTop::make(stacks[k], c.type), e.loc));
      body.push_back(AdStackOp::make_pop(stacks[k], e.loc));
    }
    Block nested_stacks;
    Block iteration = carried_iteration(r, state, true, {}, &nested_stacks);
    iteration.resize(iteration.size() - r.carried.size());  // the popped values replace the state updates
    seed_sweep(r, carry, iteration);
    reverse(r.tape, iteration);
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (carry[k].empty()) continue;
      iteration.push_back(Assign::make(carry[k], var_of(adjoint_.at(r.carried[k].entry), r.carried[k].type)));
    }
    body.insert(body.end(), nested_stacks.begin(), nested_stacks.end());
    body.insert(body.end(), iteration.begin(), iteration.end());
    out.push_back(For::make(step, Const::make_int(it, 0), count ? count : arith(BinOp::sub, end, e.bounds[0]), body,
                            e.loc));
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (!carry[k].empty()) accumulate(var(r.carried[k].in), Var::make(carry[k], r.carried[k].type), e.loc, out);
    }
  }
  // The adjoint of a serial loop without loop-carried locals: its iterations last to first, each replaying
  // and sweeping its own values. The order matters where iterations talk through arrays (out[i] = out[i-1]
  // + x: iteration i's sweep must see the gradient iteration i+1's sweep left in out's gradient).
  void plain_loop_reverse(const Entry& e, Block& out) {
    DtypeCode it = type(e.vars[0]);
    std::string step = builder_.fresh(e.vars[0] + "_rev");
    std::string last = builder_.fresh(e.vars[0] + "_last");
    out.push_back(Decl::make(last, it, arith(BinOp::sub, e.bounds[1], Const::make_int(it, 1)), e.loc));
    Block body{Decl::make(e.vars[0], it, arith(BinOp::sub, Var::make(last, it), Var::make(step, it)), e.loc)};
    Block iteration = region(*e.body, in_parallel_);
    body.insert(body.end(), iteration.begin(), iteration.end());
    out.push_back(For::make(step, Const::make_int(it, 0), arith(BinOp::sub, e.bounds[1], e.bounds[0]), body, e.loc));
  }
  // The adjoint of a parallel loop. A serialized one (qd.loop_config(serialize=True)) runs in order, so its
  // iterations may talk through arrays: its adjoint runs them last to first, each variable v as extent-1-v
  // (reversing every coordinate reverses the row-major order).
  void parallel_reverse(const Entry& e, Block& out) {
    if (!e.loop->serialize) {
      out.push_back(ParallelFor::make(e.vars, e.bounds, e.loop->block_dim, false, region(*e.body, true), e.loc, {},
                                      e.loop->name));
      return;
    }
    std::vector<std::string> reversed;
    Block body;
    for (size_t d = 0; d < e.vars.size(); ++d) {
      DtypeCode it = type(e.vars[d]);
      reversed.push_back(builder_.fresh(e.vars[d] + "_rev"));
      Expr last = arith(BinOp::sub, Cast::make(it, e.bounds[d]), Const::make_int(it, 1));
      body.push_back(Decl::make(e.vars[d], it, arith(BinOp::sub, last, Var::make(reversed.back(), it)), e.loc));
    }
    Block iteration = region(*e.body, true);
    body.insert(body.end(), iteration.begin(), iteration.end());
    out.push_back(ParallelFor::make(reversed, e.bounds, e.loop->block_dim, true, body, e.loc, {}, e.loop->name));
  }
  static Expr zero(DtypeCode t) { return is_float(t) ? constant(t, 0.0) : Const::make_int(t, 0); }
  Expr var(const std::string& v) const { return Var::make(v, type(v)); }

  // `stacks`: as in carried_loop_forward, for the carried loops of this region (not those nested deeper).
  void forward(const Tape& tape, const std::set<std::string>& hoisted, Block& out, Block* stacks) {
    for (const Entry& e : tape) {
      if (e.kind == Entry::Kind::def) {
        out.push_back(hoisted.count(e.name) ? Assign::make(e.name, e.value, e.loc)
                                            : Decl::make(e.name, type(e.name), e.value, e.loc));
      } else if (e.kind == Entry::Kind::branch) {
        Block then_body, else_body;
        forward(e.then_tape, hoisted, then_body, stacks);
        forward(e.else_tape, hoisted, else_body, stacks);
        out.push_back(If::make(var(e.name), then_body, else_body, e.loc));
      } else if (e.kind == Entry::Kind::loop && (!e.body->carried.empty() || !e.count.empty())) {
        carried_loop_forward(e, hoisted, out, stacks);
      }
    }
  }

  void reverse(const Tape& tape, Block& out) {
    for (auto it = tape.rbegin(); it != tape.rend(); ++it) {
      const Entry& e = *it;
      switch (e.kind) {
        case Entry::Kind::def: definition(e, out); break;
        case Entry::Kind::sink: sink(e, out); break;
        case Entry::Kind::branch: {
          Block then_body, else_body;
          reverse(e.then_tape, then_body);
          reverse(e.else_tape, else_body);
          out.push_back(If::make(var(e.name), then_body, else_body, e.loc));
          break;
        }
        case Entry::Kind::loop:
          if (!e.body->carried.empty() || !e.count.empty()) {
            carried_loop_reverse(e, out);
            break;
          }
          plain_loop_reverse(e, out);
          break;
        case Entry::Kind::parallel: {
          if (!e.loop->serialize) CrossIterationCheck(e, kernel_.name).run();
          exclusive_ = ExclusiveAccess(e, [this](const std::string& v) { return active(v); }).arrays();
          parallel_reverse(e, out);
          exclusive_.clear();
          break;
        }
      }
    }
  }

  // Adds `term` to the adjoint of `operand` when the operand is an active local.
  void accumulate(const Expr& operand, const Expr& term, SourceLoc loc, Block& out) {
    const Var* v = as<Var>(operand);
    if (!v || !term || !builder_.version(v->name).active) return;
    const std::string& adj = adjoint_.at(v->name);
    if (in_parallel_ && !builder_.version(v->name).parallel) {
      // A kernel-body local read by every iteration: its adjoint is shared, so add atomically.
      out.push_back(Eval::make(Atomic::make_local(AtomicOp::add, adj, term, v->type), loc));
    } else {
      out.push_back(Assign::make(adj, arith(BinOp::add, Var::make(adj, v->type), term), loc));
    }
  }

  ArrayRef grad_ref(const ArrayRef& ref) const {
    return ArrayRef{grad_of_.at(ref.array), ref.indices, ref.element_indices};
  }

  void definition(const Entry& e, Block& out) {
    if (!builder_.version(e.name).active) return;
    DtypeCode t = type(e.name);
    Expr seed = Var::make(adjoint_.at(e.name), t);
    const Expr& value = e.value;
    switch (value->kind) {
      case ExprKind::var: return accumulate(value, seed, e.loc, out);
      case ExprKind::load: {
        // Serial code, or an element only this iteration touches (reverse_ad_exclusive.h): no atomic needed.
        const ArrayRef& ref = as<Load>(value)->ref;
        if (!in_parallel_ || exclusive_.count(ref.array)) {
          Expr sum = arith(BinOp::add, Load::make(grad_ref(ref), t), seed);
          out.push_back(Store::make(grad_ref(ref), sum, e.loc));
        } else {
          out.push_back(Eval::make(Atomic::make_array(AtomicOp::add, grad_ref(ref), seed, t), e.loc));
        }
        return;
      }
      case ExprKind::cast: {
        const Expr& a = as<Cast>(value)->a;
        return accumulate(a, Cast::make(*a->type, seed), e.loc, out);
      }
      case ExprKind::select: {
        const Select& s = *as<Select>(value);
        accumulate(s.a, Select::make(s.cond, seed, zero(t), t), e.loc, out);
        return accumulate(s.b, Select::make(s.cond, zero(t), seed, t), e.loc, out);
      }
      case ExprKind::binary: {
        const Binary& b = *as<Binary>(value);
        Contributions c = binary_rule(b.op)(RuleInputs{t, b.a, b.b, var(e.name), seed});
        accumulate(b.a, c.to_a, e.loc, out);
        return accumulate(b.b, c.to_b, e.loc, out);
      }
      case ExprKind::unary: {
        const Unary& u = *as<Unary>(value);
        Contributions c = unary_rule(u.op)(RuleInputs{t, u.a, nullptr, var(e.name), seed});
        return accumulate(u.a, c.to_a, e.loc, out);
      }
      default: QD_ASSERT(false, "reverse_ad(): an active value of an unexpected kind");
    }
  }

  void sink(const Entry& e, Block& out) {
    const Param* p = kernel_.find_param(e.ref.array);
    Expr grad = Load::make(grad_ref(e.ref), p->dtype);
    Expr value_type_grad = e.value->type == p->dtype ? grad : Cast::make(*e.value->type, grad);
    accumulate(e.value, e.op == AtomicOp::sub ? unary(UnOp::neg, value_type_grad) : value_type_grad, e.loc, out);
    if (e.store) out.push_back(Store::make(grad_ref(e.ref), zero(p->dtype), e.loc));
  }

  TapeBuilder& builder_;
  const Kernel& kernel_;
  const std::map<std::string, std::string>& grad_of_;
  std::map<std::string, std::string> adjoint_;  // version -> its adjoint local
  std::map<const Entry*, std::vector<std::string>> stacks_;  // a recorded carried loop -> its AD stacks
  std::set<std::string> exclusive_;  // in the parallel loop being emitted: arrays whose GRAD needs no atomics
  int64_t capacity_ = kernel_.options.ad_stack_size > 0 ? kernel_.options.ad_stack_size : kDefaultAdStackSize;
  bool in_parallel_ = false;
};

// `prev = qd.atomic_add(a[i], v)` where nothing reads `prev` (Genesis' MPM p2g, whose only reader sits in a
// qd.static branch that requires_grad compiles out): the statement keeps only its side effect, as an atomic
// statement, which the tape supports; a value of an atomic that is read is still rejected (the adjoint cannot
// replay it: the array holds every thread's contribution by then).
class UnreadAtomicResults : public IRMutator {
 public:
  explicit UnreadAtomicResults(const Block& body) {
    struct Reads : IRVisitor {
      std::set<std::string>& names;
      explicit Reads(std::set<std::string>& n) : names(n) {}
      void visit_var(const Var& v) override { names.insert(v.name); }
      void visit_atomic(const Atomic& a) override {
        if (a.local) names.insert(*a.local);
        IRVisitor::visit_atomic(a);
      }
    } reads(read_);
    reads.visit(body);
  }

 protected:
  Block visit_decl(const Decl& s, const Stmt& self) override {
    Expr atomic = unread_atomic(s.name, s.value);
    if (!atomic) return IRMutator::visit_decl(s, self);
    DtypeCode t = s.declared_type ? *s.declared_type : *s.value->type;
    Expr zero = is_float(t) ? constant(t, 0.0) : Const::make_int(t, 0);
    return {Decl::make(s.name, t, zero, s.loc), Eval::make(atomic, s.loc)};
  }
  Block visit_assign(const Assign& s, const Stmt& self) override {
    Expr atomic = unread_atomic(s.name, s.value);
    if (!atomic) return IRMutator::visit_assign(s, self);
    return {Eval::make(atomic, s.loc)};
  }

 private:
  // The atomic at the root of `value` (under casts) when `local` is never read; null otherwise.
  Expr unread_atomic(const std::string& local, const Expr& value) const {
    if (read_.count(local)) return nullptr;
    Expr e = value;
    while (const Cast* c = as<Cast>(e)) e = c->a;
    return as<Atomic>(e) ? e : nullptr;
  }

  std::set<std::string> read_;
};

}  // namespace

Kernel reverse_ad(const Kernel& kernel) {
  if (kernel.adjoints.empty()) return kernel;
  reject_functions(kernel);
  std::map<std::string, std::string> grad_of = checked_pairs(kernel, kernel.adjoints, "gradient");
  Kernel primal = kernel;
  primal.body = BreakContinueLowering(kernel).run(kernel.body);
  primal.body = UnreadAtomicResults(primal.body).mutate(primal.body);
  std::set<std::string> used;
  for (const Param& p : primal.params) used.insert(p.name);
  collect_local_names(primal.body, used);
  primal.body = lower_lazy_selects(primal.body, used);  // selects with loads in their arms become ifs
  TapeBuilder builder(primal, grad_of);
  Region top = builder.build();
  Kernel adjoint = kernel;
  adjoint.adjoints.clear();
  adjoint.body = AdjointEmitter(builder, primal, grad_of).region(top, false, false);
  return simplify(adjoint);  // folds what the rules built from constants (pow's b - 1)
}

}  // namespace qd::passes
