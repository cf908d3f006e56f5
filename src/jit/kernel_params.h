// src/jit/kernel_params.h: the public description of an IR parameter, shared by the CPU and CUDA compile paths.
#pragma once

#include "ir/ir.h"
#include "quadrants/jit.h"

namespace qd::jit {

inline KernelParam public_param(const ir::Param& p) {
  return KernelParam{p.kind == ir::Param::Kind::scalar ? KernelParam::Kind::scalar : KernelParam::Kind::array,
                     p.name, p.dtype, p.ndim, p.element_shape, p.contiguous, p.writable};
}

}  // namespace qd::jit
