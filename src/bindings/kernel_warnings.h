// src/bindings/kernel_warnings.h: a compiled kernel's warnings as Python (message, line, col) tuples.
#pragma once

#include <nanobind/nanobind.h>

#include <vector>

#include "quadrants/kernel_warning.h"

namespace qd::bindings {

inline nanobind::list warning_tuples(const std::vector<KernelWarning>& warnings) {
  nanobind::list out;
  for (const KernelWarning& w : warnings) out.append(nanobind::make_tuple(w.message, w.line, w.col));
  return out;
}

}  // namespace qd::bindings
