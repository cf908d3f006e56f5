// src/passes/own_element_atomics.h: which arrays a parallel_for reaches only at each iteration's own element
// (own_element_atomics.cpp); privatize_atomics lists them in the loop's config as (own ARRAY).
#pragma once

#include <set>
#include <string>

#include "ir/ir.h"

namespace qd::passes {

std::set<std::string> own_element_arrays(const ir::Kernel& kernel, const ir::ParallelFor& loop);

}  // namespace qd::passes
