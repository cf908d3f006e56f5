// include/quadrants/kernel_warning.h: a warning about a kernel's source, found while compiling it.
#pragma once

#include <string>

namespace qd {

// E.g. "Assign may lose precision: f32 <- f64"; line and col locate the statement in the Python source
// (0 when unknown), as KernelUserError's do.
struct KernelWarning {
  std::string message;
  int line = 0;
  int col = 0;
};

}  // namespace qd
