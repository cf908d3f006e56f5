// src/passes/reverse_ad_races.h: rejects parallel loops whose iterations read an array with a gradient at another
// element than they write it (a cross-iteration read-after-write, `out[i] = out[i - 1] + x`).
//
// The forward of such a loop already races; its adjoint, run in any order, would give a wrong gradient silently.
// Upstream rejects the same shape. A load and a write of one array conflict when their index tuples, expanded
// back through the tape's single-assignment definitions, differ and both depend on the loop's variables (`out[n]`
// with n fixed, or `out[i]` both read and written, are fine), unless every loop variable is, by itself, the same
// index position of both: then distinct iterations touch distinct elements (`x[t + 1, b] = x[t, b] + ...` in a loop
// over b, the time-stepping of upstream's differentiable simulations). Serialized loops (qd.loop_config(serialize=True))
// run in order and are exempt: their adjoint runs the iterations last to first. Included only by reverse_ad.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/ir_printer.h"
#include "passes/reverse_ad_tape.h"
#include "quadrants/errors.h"

namespace qd::passes::reverse_tape {

class CrossIterationCheck {
 public:
  CrossIterationCheck(const Entry& loop, const std::string& kernel_name) : loop_(loop), kernel_name_(kernel_name) {
    collect(loop.body->tape);
  }

  // Throws the user error when a load of an array the loop also writes reads another element, loop-dependently.
  void run() {
    for (const auto& [array, loads] : loads_) {
      auto written = writes_.find(array);
      if (written == writes_.end()) continue;
      for (const Access& load : loads) {
        for (const Access& write : written->second) {
          if (load.depends && write.depends && load.text != write.text && !iteration_private(load, write)) {
            fail(array);
          }
        }
      }
    }
  }

 private:
  struct Access {
    std::string text;                // the index tuple with every version expanded to its definition
    std::vector<std::string> parts;  // the same, one entry per index
    bool depends;                    // whether it uses a loop variable
  };

  // Whether two iterations can never meet on one element through these accesses: each loop variable is the
  // whole index at some position of both, so iterations that differ in it differ in that index.
  bool iteration_private(const Access& a, const Access& b) const {
    for (const std::string& var : loop_.vars) {
      bool pinned = false;
      for (size_t d = 0; d < a.parts.size() && d < b.parts.size(); ++d) {
        pinned = pinned || (a.parts[d] == var && b.parts[d] == var);
      }
      if (!pinned) return false;
    }
    return true;
  }

  void collect(const Tape& tape) {
    for (const Entry& e : tape) {
      if (e.kind == Entry::Kind::def) {
        defs_[e.name] = e.value;
        if (const Load* l = as<Load>(e.value)) loads_[l->ref.array].push_back(access(l->ref));
      } else if (e.kind == Entry::Kind::sink) {
        writes_[e.ref.array].push_back(access(e.ref));
      } else if (e.kind == Entry::Kind::branch) {
        collect(e.then_tape);
        collect(e.else_tape);
      } else if (e.kind == Entry::Kind::loop) {
        collect(e.body->tape);
      }
    }
  }

  Access access(const ArrayRef& ref) {
    Access a{"", {}, false};
    // Outer indices only: one iteration may read one entry of its own vector element and write another.
    for (const Expr& index : ref.indices) {
      a.parts.push_back(expand(index, &a.depends, 0));
      a.text += a.parts.back() + ",";
    }
    return a;
  }

  // An index expression as text, with every version expanded back to its definition; sets *depends when
  // a loop variable is reached.
  std::string expand(const Expr& e, bool* depends, int depth) {
    if (depth > 64) return ir::print_expr(e);
    if (const Var* v = as<Var>(e)) {
      for (const std::string& loop_var : loop_.vars) {
        if (v->name == loop_var) *depends = true;
      }
      auto def = defs_.find(v->name);
      return def == defs_.end() ? v->name : expand(def->second, depends, depth + 1);
    }
    if (const Binary* b = as<Binary>(e)) {
      return "(" + std::string(ir::binop_name(b->op)) + " " + expand(b->a, depends, depth + 1) + " " +
             expand(b->b, depends, depth + 1) + ")";
    }
    if (const Unary* u = as<Unary>(e)) {
      return "(" + std::string(ir::unop_name(u->op)) + " " + expand(u->a, depends, depth + 1) + ")";
    }
    if (const Cast* c = as<Cast>(e)) return "(cast " + expand(c->a, depends, depth + 1) + ")";
    if (const Select* sel = as<Select>(e)) {
      return "(select " + expand(sel->cond, depends, depth + 1) + " " + expand(sel->a, depends, depth + 1) + " " +
             expand(sel->b, depends, depth + 1) + ")";
    }
    if (const Load* l = as<Load>(e)) {
      std::string text = "(load " + l->ref.array;
      for (const Expr& i : l->ref.indices) text += " " + expand(i, depends, depth + 1);
      for (const Expr& i : l->ref.element_indices) text += " " + expand(i, depends, depth + 1);
      return text + ")";
    }
    return ir::print_expr(e);  // constants, args, shapes
  }

  [[noreturn]] void fail(const std::string& array) {
    throw KernelUserError(KernelUserError::Kind::syntax,
                          "Kernel '" + kernel_name_ + "': iterations of a parallel loop read '" + array +
                              "' at another element than they write it, so its gradient cannot be computed "
                              "correctly. Cross-iteration read-after-write through an array has no reverse in a "
                              "parallel loop: run the loop in order with qd.loop_config(serialize=True), or read "
                              "from a copy of the array.",
                          loop_.loc.line, loop_.loc.col);
  }

  const Entry& loop_;
  const std::string& kernel_name_;
  std::map<std::string, Expr> defs_;
  std::map<std::string, std::vector<Access>> loads_, writes_;
};

}  // namespace qd::passes::reverse_tape
