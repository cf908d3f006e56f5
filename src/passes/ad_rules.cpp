// src/passes/ad_rules.cpp: one derivative rule per differentiable primitive, in two tables (binary, unary),
// and the check of adjoint/tangent pairs that both autodiff passes share.
//
// Adding an operator means adding its row here; reverse_ad.cpp never looks at operators itself.
// Conventions follow upstream Quadrants' make_adjoint.cpp where it has a rule: min/max send the
// seed to the operand that was selected (ties go to the second operand), abs uses sgn(a) (0 at 0),
// float mod is differentiated as a - b * floor(a / b) (upstream's definition of it), floor/ceil/round/
// floordiv have no rule and stop gradients. log2 and exp2, which upstream cannot differentiate, get
// their textbook derivatives.
#include "passes/ad_rules.h"

#include <cmath>

#include "ir/ir_mutator.h"
#include "quadrants/errors.h"

namespace qd::passes::ad {
namespace {

using namespace qd::ir;
using R = const RuleInputs&;

Expr add(const Expr& a, const Expr& b) { return arith(BinOp::add, a, b); }
Expr sub(const Expr& a, const Expr& b) { return arith(BinOp::sub, a, b); }
Expr mul(const Expr& a, const Expr& b) { return arith(BinOp::mul, a, b); }
Expr div(const Expr& a, const Expr& b) { return arith(BinOp::truediv, a, b); }
Expr neg(const Expr& a) { return unary(UnOp::neg, a); }
Expr one(R x) { return constant(x.type, 1.0); }
Expr zero(R x) { return constant(x.type, 0.0); }
// The seed where `cond` holds, else 0.
Expr seed_if(R x, const Expr& cond) { return Select::make(cond, x.seed, zero(x), x.type); }
Expr seed_unless(R x, const Expr& cond) { return Select::make(cond, zero(x), x.seed, x.type); }
// 1 / sqrt(1 - a^2), the magnitude of d asin(a) / da and d acos(a) / da.
Expr inverse_sqrt_one_minus_square(R x) { return div(one(x), unary(UnOp::sqrt, sub(one(x), mul(x.a, x.a)))); }

struct BinaryRow {
  BinOp op;
  Contributions (*rule)(R);
};

constexpr BinaryRow kBinaryRules[] = {
    {BinOp::add, [](R x) { return Contributions{x.seed, x.seed}; }},
    {BinOp::sub, [](R x) { return Contributions{x.seed, neg(x.seed)}; }},
    {BinOp::mul, [](R x) { return Contributions{mul(x.seed, x.b), mul(x.seed, x.a)}; }},
    {BinOp::truediv, [](R x) { return Contributions{div(x.seed, x.b), neg(div(mul(x.seed, x.result), x.b))}; }},
    // raw_div of floats is true division; of integers, nothing is differentiated.
    {BinOp::raw_div, [](R x) { return Contributions{div(x.seed, x.b), neg(div(mul(x.seed, x.result), x.b))}; }},
    // d a^b = b a^(b-1) da + log(a) a^b db; an integer exponent (a float to an integer power) is used as a float
    {BinOp::pow,
     [](R x) {
       Expr b = x.b->type == x.type ? x.b : Expr(Cast::make(x.type, x.b));
       Expr a_to_b_minus_1 = arith(BinOp::pow, x.a, sub(b, one(x)));
       return Contributions{mul(x.seed, mul(b, a_to_b_minus_1)), mul(x.seed, mul(unary(UnOp::log, x.a), x.result))};
     }},
    {BinOp::min,
     [](R x) {
       Expr a_taken = compare(BinOp::lt, x.a, x.b);
       return Contributions{seed_if(x, a_taken), seed_unless(x, a_taken)};
     }},
    {BinOp::max,
     [](R x) {
       Expr a_taken = compare(BinOp::lt, x.b, x.a);
       return Contributions{seed_if(x, a_taken), seed_unless(x, a_taken)};
     }},
    // Float mod is a - b * floor(a / b), as upstream computes it; raw_mod (fmod) truncates the quotient.
    {BinOp::mod, [](R x) { return Contributions{x.seed, neg(mul(x.seed, unary(UnOp::floor, div(x.a, x.b))))}; }},
    {BinOp::raw_mod,
     [](R x) {
       Expr q = div(x.a, x.b);
       Expr truncated = Select::make(compare(BinOp::lt, q, zero(x)), unary(UnOp::ceil, q), unary(UnOp::floor, q), x.type);
       return Contributions{x.seed, neg(mul(x.seed, truncated))};
     }},
    // atan2(a, b) = angle of (b, a): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2)
    {BinOp::atan2,
     [](R x) {
       Expr norm2 = add(mul(x.a, x.a), mul(x.b, x.b));
       return Contributions{div(mul(x.seed, x.b), norm2), neg(div(mul(x.seed, x.a), norm2))};
     }},
};

struct UnaryRow {
  UnOp op;
  Contributions (*rule)(R);
};

Contributions to_a(Expr e) { return Contributions{std::move(e), nullptr}; }

constexpr UnaryRow kUnaryRules[] = {
    {UnOp::neg, [](R x) { return to_a(neg(x.seed)); }},
    {UnOp::sqrt, [](R x) { return to_a(div(mul(constant(x.type, 0.5), x.seed), x.result)); }},
    // d a^(-1/2) = -1/2 a^(-3/2) = -1/2 r^3
    {UnOp::rsqrt,
     [](R x) { return to_a(mul(x.seed, mul(constant(x.type, -0.5), mul(x.result, mul(x.result, x.result))))); }},
    {UnOp::sin, [](R x) { return to_a(mul(x.seed, unary(UnOp::cos, x.a))); }},
    {UnOp::cos, [](R x) { return to_a(neg(mul(x.seed, unary(UnOp::sin, x.a)))); }},
    {UnOp::tan, [](R x) { return to_a(mul(x.seed, add(one(x), mul(x.result, x.result)))); }},
    {UnOp::asin, [](R x) { return to_a(mul(x.seed, inverse_sqrt_one_minus_square(x))); }},
    {UnOp::acos, [](R x) { return to_a(neg(mul(x.seed, inverse_sqrt_one_minus_square(x)))); }},
    {UnOp::atan, [](R x) { return to_a(div(x.seed, add(one(x), mul(x.a, x.a)))); }},
    {UnOp::tanh, [](R x) { return to_a(mul(x.seed, sub(one(x), mul(x.result, x.result)))); }},
    {UnOp::exp, [](R x) { return to_a(mul(x.seed, x.result)); }},
    {UnOp::log, [](R x) { return to_a(div(x.seed, x.a)); }},
    // sgn(a) * seed, 0 at a == 0
    {UnOp::abs,
     [](R x) {
       return to_a(Select::make(compare(BinOp::gt, x.a, zero(x)), x.seed,
                                Select::make(compare(BinOp::lt, x.a, zero(x)), neg(x.seed), zero(x), x.type),
                                x.type));
     }},
    {UnOp::volatile_load, [](R x) { return to_a(x.seed); }},  // stop_grad has no rule: it passes nothing
    {UnOp::log2, [](R x) { return to_a(div(x.seed, mul(x.a, constant(x.type, std::log(2.0))))); }},
    {UnOp::exp2, [](R x) { return to_a(mul(x.seed, mul(x.result, constant(x.type, std::log(2.0))))); }},
};

}  // namespace

Contributions (*binary_rule(BinOp op))(const RuleInputs&) {
  for (const BinaryRow& row : kBinaryRules) {
    if (row.op == op) return row.rule;
  }
  return nullptr;
}

Contributions (*unary_rule(UnOp op))(const RuleInputs&) {
  for (const UnaryRow& row : kUnaryRules) {
    if (row.op == op) return row.rule;
  }
  return nullptr;
}

Expr arith(BinOp op, const Expr& a, const Expr& b) { return Binary::make(op, a, b, a->type); }
Expr compare(BinOp op, const Expr& a, const Expr& b) { return Binary::make(op, a, b, DtypeCode::i32); }
Expr unary(UnOp op, const Expr& a) { return Unary::make(op, a, a->type); }
Expr constant(DtypeCode type, double value) { return Const::make_float(type, value); }

void reject_functions(const ir::Kernel& kernel) {
  if (kernel.functions.empty()) return;
  throw KernelUserError(KernelUserError::Kind::type,
                        "Kernel '" + kernel.name + "' calls function '" + kernel.functions[0].name +
                            "' (a @qd.real_func), and autodiff (kernel.grad, qd.ad.Tape, qd.ad.FwdMode) does not "
                            "differentiate through real functions. Use @qd.func, which is inlined, instead.",
                        0, 0);
}

void collect_local_names(const ir::Block& body, std::set<std::string>& names) {
  struct Collector : ir::IRVisitor {
    std::set<std::string>* used;
    void visit_decl(const ir::Decl& s) override { used->insert(s.name), IRVisitor::visit_decl(s); }
    void visit_for(const ir::For& s) override { used->insert(s.var), IRVisitor::visit_for(s); }
    void visit_parallel_for(const ir::ParallelFor& s) override {
      used->insert(s.vars.begin(), s.vars.end());
      IRVisitor::visit_parallel_for(s);
    }
  } collector;
  collector.used = &names;
  collector.visit(body);
}

std::map<std::string, std::string> checked_pairs(const ir::Kernel& kernel, const std::vector<ir::AdjointPair>& pairs,
                                                 const std::string& what) {
  std::map<std::string, std::string> partner_of;
  for (const ir::AdjointPair& pair : pairs) {
    const ir::Param* primal = kernel.find_param(pair.primal);
    const ir::Param* partner = kernel.find_param(pair.grad);
    auto fail = [&](const std::string& why) {
      throw KernelUserError(KernelUserError::Kind::type,
                            "Kernel '" + kernel.name + "' pairs '" + pair.primal + "' with the " + what + " '" +
                                pair.grad + "', but " + why,
                            0, 0);
    };
    if (!primal || primal->kind != ir::Param::Kind::array || !partner || partner->kind != ir::Param::Kind::array) {
      fail("both must be array params.");
    }
    if (!is_float(primal->dtype)) fail("only float arrays have " + what + "s.");
    if (partner->dtype != primal->dtype || partner->ndim != primal->ndim ||
        partner->element_shape != primal->element_shape) {
      fail("the " + what + " must have the same dtype, dims and element shape.");
    }
    if (!partner->writable) fail("the " + what + " must be writable.");
    partner_of[pair.primal] = pair.grad;
  }
  return partner_of;
}

}  // namespace qd::passes::ad
