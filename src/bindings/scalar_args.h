// src/bindings/scalar_args.h: Python numbers and vectors into a kernel's scalar QdArgs (scalar_args.cpp).
#pragma once

#include <Python.h>

#include <string>

#include "bindings/annotation_check.h"
#include "quadrants/kernel_abi.h"

namespace qd::bindings {

// A Python number into scalar parameter p (the kernel's parameter number `index`): floats for float dtypes,
// integers in the dtype's range otherwise. Throws upstream's errors, naming `kernel` and p; allocates nothing
// on the way to none.
void pack_scalar(const ParamSpec& p, size_t index, const std::string& kernel, PyObject* obj, QdArg& out);

// A vector/matrix passed by value: its entries, row-major, into p.count scalar QdArgs. Takes qd.Vector/qd.Matrix,
// numpy arrays and (nested) lists or tuples; a matrix also takes its entries flat.
void pack_vector(const ParamSpec& p, size_t index, const std::string& kernel, PyObject* obj, QdArg* out);

}  // namespace qd::bindings
