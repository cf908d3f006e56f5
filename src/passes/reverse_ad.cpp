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
//          inside) go through a state local; the adjoint runs its iterations last to first,
//          recomputing each one's starting values by replaying the iterations before it (loops
//          that only accumulate, s += e, skip that). A while loop is such a loop over [0, n): its
//          replay counts its n iterations.
// Rejects (syntax errors): what would need an AD stack or a replay of side effects: a local assigned
//          in a parallel loop but declared outside it, break, continue,
//          return, atomic min/max/bitwise operations on an array with a gradient, using the value an
//          atomic operation returns. Adjoint pairs that do not name matching array params (type errors).
//
// How: a builder turns each region into a tape of single-assignment values (every local assignment
// gets a fresh name, a version; every active subexpression gets its own temporary; ifs end with a
// copy of each changed local into a merged version), stores and atomics into arrays with a GRAD
// (sinks), branches and loops. An emitter writes each region as its forward replay (the values, no
// sinks) followed by its reverse sweep, which reads those values; versions assigned in branches and
// all adjoints are declared at the top of their region so the sweep sees them.
#include <map>
#include <set>

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"
#include "passes/passes.h"
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

  Block region(const Region& r, bool in_parallel) {
    bool outer = in_parallel_;
    in_parallel_ = in_parallel;
    Block out;
    prologue(r, true, out);
    std::set<std::string> hoisted(r.hoisted.begin(), r.hoisted.end());
    forward(r.tape, hoisted, out);
    reverse(r.tape, out);
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
  // iteration's last values.
  Block carried_iteration(const Region& r, const std::vector<std::string>& state, bool adjoints, Block tail) {
    Block body;
    prologue(r, adjoints, body);
    for (size_t k = 0; k < r.carried.size(); ++k) {
      body.push_back(Decl::make(r.carried[k].entry, r.carried[k].type, var_of(state[k], r.carried[k].type)));
    }
    std::set<std::string> hoisted(r.hoisted.begin(), r.hoisted.end());
    forward(r.tape, hoisted, body);
    for (Stmt& s : tail) body.push_back(std::move(s));
    for (size_t k = 0; k < r.carried.size(); ++k) body.push_back(Assign::make(state[k], var(r.carried[k].last)));
    return body;
  }
  static Expr var_of(const std::string& name, DtypeCode t) { return Var::make(name, t); }

  // The primal of a serial loop with loop-carried locals, for the enclosing region's replay: it runs
  // every iteration's values (no array writes) and gives the carried locals' values after the loop.
  void carried_loop_forward(const Entry& e, const std::set<std::string>& hoisted, Block& out) {
    const Region& r = *e.body;
    std::vector<std::string> state;
    for (const Carried& c : r.carried) {
      state.push_back(builder_.fresh(c.out + "_state"));
      out.push_back(Decl::make(state.back(), c.type, var(c.in), e.loc));
    }
    if (!e.count.empty()) {
      // A while loop: run until its condition fails, counting the iterations for the reverse sweep.
      Expr zero_count = Const::make_int(DtypeCode::i32, 0);
      out.push_back(hoisted.count(e.count) ? Assign::make(e.count, zero_count, e.loc)
                                           : Decl::make(e.count, DtypeCode::i32, zero_count, e.loc));
      Block tail{Assign::make(e.count, arith(BinOp::add, var(e.count), Const::make_int(DtypeCode::i32, 1)))};
      Block body = carried_iteration(r, state, false, tail);
      for (auto it = body.begin(); it != body.end(); ++it) {
        const Decl* d = as<Decl>(*it);
        if (d && d->name == e.name) {
          body.insert(it + 1, If::make(var(e.name), {}, {Break::make(e.loc)}, e.loc));
          break;
        }
      }
      out.push_back(While::make(Const::make_int(DtypeCode::i32, 1), body, e.loc));
    } else {
      out.push_back(For::make(e.vars[0], e.bounds[0], e.bounds[1], carried_iteration(r, state, false, {}), e.loc));
    }
    for (size_t k = 0; k < r.carried.size(); ++k) {
      const Carried& c = r.carried[k];
      Expr value = var_of(state[k], c.type);
      out.push_back(hoisted.count(c.out) ? Assign::make(c.out, value, e.loc) : Decl::make(c.out, c.type, value, e.loc));
    }
  }

  // The adjoint of a serial loop whose carried locals only accumulate (Region::linear): each
  // iteration's sweep starts from the same carried adjoint and needs no carried value, so the
  // iterations run in order, once each, as those of a loop without carried locals.
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
    Block body = carried_iteration(r, state, true, {});
    body.resize(body.size() - r.carried.size());  // no state updates
    Block sweep;
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (!active(r.carried[k].last)) continue;
      const std::string& adj = adjoint_.at(r.carried[k].last);
      sweep.push_back(Assign::make(adj, arith(BinOp::add, Var::make(adj, r.carried[k].type),
                                              Var::make(carry[k], r.carried[k].type))));
    }
    reverse(r.tape, sweep);
    body.insert(body.end(), sweep.begin(), sweep.end());
    out.push_back(For::make(e.vars[0], e.bounds[0], e.bounds[1], body, e.loc));
    for (size_t k = 0; k < r.carried.size(); ++k) {
      accumulate(var(r.carried[k].in), Var::make(carry[k], r.carried[k].type), e.loc, out);
    }
  }

  // The adjoint of a serial loop with loop-carried locals, iterations last to first. Without an AD
  // stack, iteration j's carried values are recomputed by replaying iterations begin..j-1 (quadratic
  // in the trip count); iteration j is then replayed and swept backwards, the carried locals' adjoints
  // flowing from its last values to its first, then to the values before the loop.
  void carried_loop_reverse(const Entry& e, Block& out) {
    const Region& r = *e.body;
    if (r.linear) return accumulation_loop_reverse(e, out);
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
    Expr trips = arith(BinOp::sub, e.bounds[1], e.bounds[0]);
    Block outer;
    outer.push_back(Decl::make(last, it,
                               arith(BinOp::sub, arith(BinOp::sub, e.bounds[1], Var::make(step, it)),
                                     Const::make_int(it, 1)),
                               e.loc));
    std::vector<std::string> state;
    for (const Carried& c : r.carried) {
      state.push_back(builder_.fresh(c.out + "_state"));
      outer.push_back(Decl::make(state.back(), c.type, var(c.in), e.loc));
    }
    // The sweep of iteration `last` needs the adjoints that carried_iteration declares, so it is built
    // after them: a placeholder tail is filled in below.
    Block body = carried_iteration(r, state, true, {});
    Block sweep;
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (carry[k].empty() || !active(r.carried[k].last)) continue;
      const std::string& adj = adjoint_.at(r.carried[k].last);
      sweep.push_back(Assign::make(adj, arith(BinOp::add, Var::make(adj, r.carried[k].type),
                                              Var::make(carry[k], r.carried[k].type))));
    }
    reverse(r.tape, sweep);
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (carry[k].empty()) continue;
      sweep.push_back(Assign::make(carry[k], var_of(adjoint_.at(r.carried[k].entry), r.carried[k].type)));
    }
    // Insert the sweep before the state updates at the end of the iteration.
    Block guarded{If::make(compare(BinOp::eq, Var::make(e.vars[0], it), Var::make(last, it)), sweep, {}, e.loc)};
    body.insert(body.end() - static_cast<long>(r.carried.size()), guarded.begin(), guarded.end());
    outer.push_back(For::make(e.vars[0], e.bounds[0], arith(BinOp::add, Var::make(last, it), Const::make_int(it, 1)),
                              body, e.loc));
    out.push_back(For::make(step, Const::make_int(it, 0), trips, outer, e.loc));
    for (size_t k = 0; k < r.carried.size(); ++k) {
      if (!carry[k].empty()) accumulate(var(r.carried[k].in), Var::make(carry[k], r.carried[k].type), e.loc, out);
    }
  }
  static Expr zero(DtypeCode t) { return is_float(t) ? constant(t, 0.0) : Const::make_int(t, 0); }
  Expr var(const std::string& v) const { return Var::make(v, type(v)); }

  void forward(const Tape& tape, const std::set<std::string>& hoisted, Block& out) {
    for (const Entry& e : tape) {
      if (e.kind == Entry::Kind::def) {
        out.push_back(hoisted.count(e.name) ? Assign::make(e.name, e.value, e.loc)
                                            : Decl::make(e.name, type(e.name), e.value, e.loc));
      } else if (e.kind == Entry::Kind::branch) {
        Block then_body, else_body;
        forward(e.then_tape, hoisted, then_body);
        forward(e.else_tape, hoisted, else_body);
        out.push_back(If::make(var(e.name), then_body, else_body, e.loc));
      } else if (e.kind == Entry::Kind::loop && (!e.body->carried.empty() || !e.count.empty())) {
        carried_loop_forward(e, hoisted, out);
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
          out.push_back(For::make(e.vars[0], e.bounds[0], e.bounds[1], region(*e.body, in_parallel_), e.loc));
          break;
        case Entry::Kind::parallel:
          out.push_back(ParallelFor::make(e.vars, e.bounds, e.loop->block_dim, e.loop->serialize,
                                          region(*e.body, true), e.loc));
          break;
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
      case ExprKind::load:
        out.push_back(Eval::make(Atomic::make_array(AtomicOp::add, grad_ref(as<Load>(value)->ref), seed, t), e.loc));
        return;
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
  bool in_parallel_ = false;
};

}  // namespace

Kernel reverse_ad(const Kernel& kernel) {
  if (kernel.adjoints.empty()) return kernel;
  reject_functions(kernel);
  std::map<std::string, std::string> grad_of = checked_pairs(kernel, kernel.adjoints, "gradient");
  TapeBuilder builder(kernel, grad_of);
  Region top = builder.build();
  Kernel adjoint = kernel;
  adjoint.adjoints.clear();
  adjoint.body = AdjointEmitter(builder, kernel, grad_of).region(top, false);
  return simplify(adjoint);  // folds what the rules built from constants (pow's b - 1)
}

}  // namespace qd::passes
