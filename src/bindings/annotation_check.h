// src/bindings/annotation_check.h: a kernel parameter as the launcher sees it, and the check of an array
// argument against its annotation (annotation_check.cpp).
#pragma once

#include <Python.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings/arg_adapters.h"
#include "quadrants/dtype.h"

namespace qd::bindings {

// One Python-level parameter. A vector/matrix passed by value fills `count` consecutive scalar QdArgs
// (its entries, row-major); every other parameter fills one.
struct ParamSpec {
  bool is_array = false;
  bool is_vector = false;
  std::string name;
  std::optional<DtypeCode> dtype;
  int ndim = -1;                       // -1: any, specialized per call
  std::vector<int64_t> element_shape;  // arrays: from a vector/matrix annotation; vectors: their shape
  int element_dim = 0;                 // arrays: element_dim= without a shape: an external array's last axes
  int count = 1;                       // QdArgs filled
};

// "Kernel 'k' argument 'x'": how errors name a parameter.
std::string argument_text(const ParamSpec& p, const std::string& kernel);

// "(2, 3)", "(4,)": a shape as Python prints it.
std::string shape_text(const int64_t* shape, int ndim);

// Checks an array against parameter p's annotation (dtype, dims, element shape) and settles element_ndim:
// a container of vectors/matrices brings its own element axes; any other array (numpy, torch, a scalar
// qd.ndarray) gives its trailing axes to a vector/matrix annotation. Throws upstream's errors, naming
// `kernel`; on the way to none it allocates nothing (it runs on every launch).
void check_annotation(const ParamSpec& p, const std::string& kernel, PyObject* obj, const ArrayView& view,
                      int& element_ndim);

}  // namespace qd::bindings
