// src/passes/reverse_ad_exclusive.h: which gradient arrays a parallel loop's adjoint may update without atomics.
//
// A load of PRIMAL adds its adjoint to GRAD at the same element. In a parallel loop whose every
// gradient access to PRIMAL (active loads and sinks, in branches and serial loops too) is indexed by
// exactly the loop's variables, in order (`x[i]` in `for i in x`), each iteration owns its elements,
// so a plain read-add-write is safe and an atomic (a compare-and-swap loop for floats on the CPU)
// is wasted. Same order, not any permutation, so that two arrays of one shape passed as the same
// memory still map an iteration to one element. Included only by reverse_ad.cpp.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "passes/reverse_ad_tape.h"

namespace qd::passes::reverse_tape {

class ExclusiveAccess {
 public:
  template <class IsActive>
  ExclusiveAccess(const Entry& loop, IsActive is_active) : vars_(loop.vars) {
    scan(loop.body->tape, is_active);
  }
  std::set<std::string> arrays() const {
    std::set<std::string> out;
    for (const auto& [array, ok] : exclusive_) {
      if (ok) out.insert(array);
    }
    return out;
  }

 private:
  template <class IsActive>
  void scan(const Tape& tape, IsActive& is_active) {
    for (const Entry& e : tape) {
      if (e.kind == Entry::Kind::def && e.value->kind == ExprKind::load && is_active(e.name)) {
        note(as<Load>(e.value)->ref);
      } else if (e.kind == Entry::Kind::sink) {
        note(e.ref);
      } else if (e.kind == Entry::Kind::branch) {
        scan(e.then_tape, is_active);
        scan(e.else_tape, is_active);
      } else if (e.kind == Entry::Kind::loop) {
        scan(e.body->tape, is_active);
      }
    }
  }
  void note(const ArrayRef& ref) {
    bool own = ref.indices.size() == vars_.size();
    for (size_t d = 0; own && d < vars_.size(); ++d) {
      const Var* v = as<Var>(ref.indices[d]);
      own = v && v->name == vars_[d];  // versions are single-assignment: this is the loop variable itself
    }
    auto [it, added] = exclusive_.emplace(ref.array, own);
    if (!added) it->second = it->second && own;
  }

  std::vector<std::string> vars_;
  std::map<std::string, bool> exclusive_;
};

}  // namespace qd::passes::reverse_tape
