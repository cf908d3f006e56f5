// src/passes/reverse_ad_control.h: reverse_ad's lowering of break and continue into flags, before taping.
//
// In a serial loop (or a parallel_for body, for continue) whose body breaks or continues, `break` and
// `continue` become assignments of i32 flags, and the statements that could run after one are guarded
// by an `if` on the flags. `continue`'s flag is declared at the start of each iteration; `break`'s
// before the loop, so it is a loop-carried local (replayed through the AD stack like any other), and
// the body ends with `(if (var FLAG) ((break)) ())`: the one break TapeBuilder accepts, as the loop's
// exit flag (Entry::exit), so the replay stops where the primal stopped and counts its iterations.
// Included only by reverse_ad.cpp.
#pragma once

#include <set>
#include <string>

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"

namespace qd::passes::reverse_tape {

using namespace qd::ir;

class BreakContinueLowering {
 public:
  explicit BreakContinueLowering(const Kernel& kernel) {
    ad::collect_local_names(kernel.body, used_);
  }

  Block run(const Block& body) { return rewrite(body, {}); }

 private:
  struct Flags {
    std::string brk, cont;  // the current loop's flags; empty where it has no break / continue
  };

  static Expr flag(const std::string& name) { return Var::make(name, DtypeCode::i32); }
  static Expr zero() { return Const::make_int(DtypeCode::i32, 0); }

  std::string fresh(const std::string& base) {
    for (int n = 0;; ++n) {
      std::string name = base + "_" + std::to_string(n);
      if (used_.insert(name).second) return name;
    }
  }

  // Whether `b` breaks (or continues) the loop it belongs to, in a branch at any depth but not inside a nested loop.
  static bool exits(const Block& b, StmtKind kind) {
    for (const Stmt& s : b) {
      if (s->kind == kind) return true;
      if (const If* i = as<If>(s); i && (exits(i->then_body, kind) || exits(i->else_body, kind))) return true;
    }
    return false;
  }
  static bool exits(const Block& b) { return exits(b, StmtKind::break_) || exits(b, StmtKind::continue_); }

  // The statements of a loop body (or a branch in it) with break/continue as flag assignments; what
  // follows a branch that may set a flag runs under `if (!flags)`.
  Block rewrite(const Block& b, const Flags& f) {
    Block out;
    for (size_t k = 0; k < b.size(); ++k) {
      const Stmt& s = b[k];
      if (s->kind == StmtKind::break_ || s->kind == StmtKind::continue_) {
        const std::string& name = s->kind == StmtKind::break_ ? f.brk : f.cont;
        out.push_back(Assign::make(name, Const::make_int(DtypeCode::i32, 1), s->loc));
        return out;  // nothing after it in this block runs
      }
      if (const If* i = as<If>(s)) {
        out.push_back(If::make(i->cond, rewrite(i->then_body, f), rewrite(i->else_body, f), s->loc));
        if (!exits(i->then_body) && !exits(i->else_body)) continue;
        Block rest = rewrite(Block(b.begin() + static_cast<long>(k) + 1, b.end()), f);
        if (!rest.empty()) out.push_back(If::make(still_running(f), rest, {}, s->loc));
        return out;
      }
      if (s->kind == StmtKind::for_ || s->kind == StmtKind::while_ || s->kind == StmtKind::parallel_for) {
        Block lowered = loop(s);
        out.insert(out.end(), lowered.begin(), lowered.end());
        continue;
      }
      out.push_back(s);
    }
    return out;
  }

  Expr still_running(const Flags& f) const {
    Expr set = f.brk.empty()    ? flag(f.cont)
               : f.cont.empty() ? flag(f.brk)
                                : Binary::make(BinOp::logical_or, flag(f.brk), flag(f.cont), DtypeCode::i32);
    return Unary::make(UnOp::logical_not, set, DtypeCode::i32);
  }

  Block loop(const Stmt& s) {
    const Block& body = as<For>(s)       ? as<For>(s)->body
                        : as<While>(s)   ? as<While>(s)->body
                                         : as<ParallelFor>(s)->body;
    Flags f;
    if (exits(body, StmtKind::break_)) f.brk = fresh("break_flag");
    if (exits(body, StmtKind::continue_)) f.cont = fresh("continue_flag");
    Block lowered;
    if (!f.cont.empty()) lowered.push_back(Decl::make(f.cont, DtypeCode::i32, zero(), s->loc));
    Block rewritten = rewrite(body, f);
    lowered.insert(lowered.end(), rewritten.begin(), rewritten.end());
    if (!f.brk.empty()) lowered.push_back(If::make(flag(f.brk), {Break::make(s->loc)}, {}, s->loc));
    Block out;
    if (!f.brk.empty()) out.push_back(Decl::make(f.brk, DtypeCode::i32, zero(), s->loc));
    if (const For* l = as<For>(s)) {
      out.push_back(For::make(l->var, l->begin, l->end, lowered, s->loc));
    } else if (const While* w = as<While>(s)) {
      out.push_back(While::make(w->cond, lowered, s->loc));
    } else {
      const ParallelFor& p = *as<ParallelFor>(s);
      out.push_back(
          ParallelFor::make(p.vars, p.extents, p.block_dim, p.serialize, lowered, s->loc, p.privatized, p.name));
    }
    return out;
  }

  std::set<std::string> used_;
};

}  // namespace qd::passes::reverse_tape
