// include/quadrants/launch.h: running compiled kernels from C++ programs.
//
// A kernel written in Python exports its IR with `kernel.export_ir(*example_args)`; a C++ program
// compiles that text with qd::compile_kernel (quadrants/jit.h) and runs it here on its own memory.
// Fields the kernel uses as globals come after its parameters, as array arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "quadrants/array.h"
#include "quadrants/jit.h"

namespace qd {

// One kernel argument: an array view (host memory) or a scalar.
struct KernelArg {
  enum class Kind { array, integer, floating };
  Kind kind;
  ArrayView view;
  int64_t integer = 0;
  double floating = 0;

  static KernelArg array(const ArrayView& view) { return {Kind::array, view, 0, 0}; }
  static KernelArg of_int(int64_t value) { return {Kind::integer, {}, value, 0}; }
  static KernelArg of_float(double value) { return {Kind::floating, {}, 0, value}; }
};

// Checks args against the kernel's parameters (count, kind, dtype, dims, contiguity, writability;
// ValueError/TypeError naming the parameter) and runs it on the default thread pool. The result's
// scalar holds the first returned value when kernel.returns is not empty: .f for floats, .i
// otherwise. `returns`, when given, receives every returned value in order (a kernel returning a
// vector, matrix or tuple returns several).
QdArg launch_kernel(const CompiledKernel& kernel, const std::vector<KernelArg>& args,
                    std::vector<QdArg>* returns = nullptr);

}  // namespace qd
