// src/passes/lazy_selects.cpp: hoists selects whose arms must stay lazy into ifs, before reverse_ad's tape.
//
// See lazy_selects.h for why. Only the value expressions of decl, assign, store and atomic statements are
// rewritten: those are what the tape flattens into temporaries. Conditions of if/while, loop bounds and
// integer selects stay expressions (the tape keeps inactive expressions whole, so they stay lazy), and
// hoisting out of a while condition would move it out of the loop.
#include "passes/lazy_selects.h"

#include "ir/ir_mutator.h"
#include "passes/ad_rules.h"

namespace qd::passes::ad {
namespace {

using namespace qd::ir;

// Whether evaluating `e` when its select did not pick it could fault or have an effect.
bool unsafe_eagerly(const Expr& e) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_load(const Load&) override { found = true; }
    void visit_atomic(const Atomic&) override { found = true; }
    void visit_simt(const Simt&) override { found = true; }
    void visit_ad_top(const AdTop&) override { found = true; }
    void visit_binary(const Binary& b) override {
      bool divides = b.op == BinOp::truediv || b.op == BinOp::floordiv || b.op == BinOp::mod ||
                     b.op == BinOp::raw_div || b.op == BinOp::raw_mod;
      // An integer division by zero traps; float division gives inf or NaN.
      if (divides && b.type && !is_float(*b.type)) found = true;
      IRVisitor::visit_binary(b);
    }
  } finder;
  finder.visit(e);
  return finder.found;
}

class SelectHoister : public IRMutator {
 public:
  explicit SelectHoister(std::set<std::string>& used) : used_(used) {}

 protected:
  Block visit_decl(const Decl& s, const Stmt& self) override {
    return hoisting(s.loc, [&] { return IRMutator::visit_decl(s, self); });
  }
  Block visit_assign(const Assign& s, const Stmt& self) override {
    return hoisting(s.loc, [&] { return IRMutator::visit_assign(s, self); });
  }
  Block visit_store(const Store& s, const Stmt& self) override {
    return hoisting(s.loc, [&] { return IRMutator::visit_store(s, self); });
  }
  Block visit_eval(const Eval& s, const Stmt& self) override {
    return hoisting(s.loc, [&] { return IRMutator::visit_eval(s, self); });
  }

  // Outside a hoisting statement, or for a select that may stay eager, only the condition is visited: the
  // arms of a select left in place hold nothing to hoist, or must not be evaluated before it picks them.
  Expr visit_select(const Select& s, const Expr& self) override {
    if (!pending_) return self;
    Expr cond = mutate(s.cond);
    bool hoist = s.type && is_float(*s.type) && (unsafe_eagerly(s.a) || unsafe_eagerly(s.b));
    if (!hoist) return cond == s.cond ? self : Select::make(cond, s.a, s.b, s.type);
    DtypeCode t = *s.type;
    std::string name = fresh();
    pending_->push_back(Decl::make(name, t, constant(t, 0.0), loc_));
    Block* outer = pending_;
    SourceLoc loc = loc_;
    pending_ = nullptr;  // the arms' own selects are hoisted inside the branches, by their assign statements
    Block then_body = mutate(Block{Assign::make(name, s.a, loc)});
    Block else_body = mutate(Block{Assign::make(name, s.b, loc)});
    pending_ = outer;
    loc_ = loc;
    pending_->push_back(If::make(cond, then_body, else_body, loc));
    return Var::make(name, t);
  }

 private:
  template <class Fn>
  Block hoisting(SourceLoc loc, Fn&& rewrite) {
    Block* outer = pending_;
    SourceLoc outer_loc = loc_;
    Block hoisted;
    pending_ = &hoisted;
    loc_ = loc;
    Block rewritten = rewrite();
    pending_ = outer;
    loc_ = outer_loc;
    if (hoisted.empty()) return rewritten;
    hoisted.insert(hoisted.end(), rewritten.begin(), rewritten.end());
    return hoisted;
  }
  std::string fresh() {
    for (int n = 0;; ++n) {
      std::string name = "select_" + std::to_string(n);
      if (used_.insert(name).second) return name;
    }
  }

  std::set<std::string>& used_;
  Block* pending_ = nullptr;  // where the current statement's hoisted selects go; null outside one
  SourceLoc loc_;
};

}  // namespace

ir::Block lower_lazy_selects(const ir::Block& body, std::set<std::string>& used) {
  SelectHoister hoister(used);
  return hoister.mutate(body);
}

}  // namespace qd::passes::ad
