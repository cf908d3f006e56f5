// src/passes/lazy_selects.h: keeps a select's laziness through reverse-mode autodiff (lazy_selects.cpp).
//
// `(select C A B)` evaluates only the arm C picks (docs/IR.md), so `x[i - 1] if i > 0 else 0.0` never
// reads x[-1]. reverse_ad's tape binds an active operator's operands to temporaries computed
// unconditionally, which would read (and its sweep would add to the gradient of) the arm not taken.
// This rewrite runs first: a float select with an arm unsafe to evaluate eagerly (one that loads an
// array, performs an atomic or SIMT operation, or divides integers) becomes
// `(decl T t 0) (if C ((assign t A)) ((assign t B)))` before its statement, so the tape sees a branch and
// the adjoint runs each arm's sweep under the recorded condition. Selects over arithmetic of locals,
// constants and params stay selects (cheap, branch-free).
#pragma once

#include <set>
#include <string>

#include "ir/ir.h"

namespace qd::passes::ad {

// The body with every such select hoisted into an if; `used` holds every name in use (params, locals) and
// receives the temporaries' names.
ir::Block lower_lazy_selects(const ir::Block& body, std::set<std::string>& used);

}  // namespace qd::passes::ad
