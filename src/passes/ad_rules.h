// src/passes/ad_rules.h: the derivative rules of reverse-mode autodiff, one per primitive (ad_rules.cpp).
//
// A rule maps the adjoint of an operator's result (the seed) to what it adds to each operand's
// adjoint. Operands and results are leaves (locals, constants, scalar params) of one float type,
// so a rule may use them any number of times without recomputing anything.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qd::passes::ad {

struct RuleInputs {
  DtypeCode type;   // the float type of the operands, the result and the seed
  ir::Expr a, b;    // the operands (b is null for unary operators)
  ir::Expr result;  // the operator's value
  ir::Expr seed;    // the adjoint of the result
};

// What the seed adds to the adjoint of each operand; null where an operand gets nothing.
struct Contributions {
  ir::Expr to_a, to_b;
};

// The rule of a float operator, or nullptr for an operator whose derivative is zero wherever it is
// defined (floor, ceil, round, floordiv, mod, comparisons, bitwise operators): it stops gradients.
Contributions (*binary_rule(ir::BinOp op))(const RuleInputs&);
Contributions (*unary_rule(ir::UnOp op))(const RuleInputs&);

// Typed IR builders shared by the rules and the pass: arithmetic keeps its operands' type,
// comparisons give i32, constants take the given float type.
ir::Expr arith(ir::BinOp op, const ir::Expr& a, const ir::Expr& b);
ir::Expr compare(ir::BinOp op, const ir::Expr& a, const ir::Expr& b);
ir::Expr unary(ir::UnOp op, const ir::Expr& a);
ir::Expr constant(DtypeCode type, double value);

// The PRIMAL -> partner map of a kernel's (adjoint ...) or (tangent ...) pairs, after checking that
// each names two float array params of one dtype and shape, the partner writable; `what` names the
// partner in the type errors ("gradient", "dual").
// Autodiff does not enter functions (a @qd.real_func): a kernel that calls one is rejected, naming it.
void reject_functions(const ir::Kernel& kernel);

// Adds every local and loop variable declared in `body` to `names`, so that the autodiff passes can make
// fresh names that collide with none of them.
void collect_local_names(const ir::Block& body, std::set<std::string>& names);

std::map<std::string, std::string> checked_pairs(const ir::Kernel& kernel, const std::vector<ir::AdjointPair>& pairs,
                                                 const std::string& what);

}  // namespace qd::passes::ad
