// tests/cpp/test_views.h: small builders of host views and packed kernel arguments shared by the C++ tests.
#pragma once

#include <cstdint>
#include <vector>

#include "quadrants/array.h"

namespace qd::testing {

inline ArrayView host_view(void* data, DtypeCode dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  ArrayView view;
  view.data = data;
  view.dtype = dtype;
  view.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < view.ndim; ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  return view;
}

// The QdArgs of a kernel taking (array, integer scalar).
inline std::vector<QdArg> array_and_scalar_args(const ArrayView& array, int64_t scalar) {
  std::vector<QdArg> args(2);
  args[0].data = array.data;
  for (int d = 0; d < array.ndim; ++d) {
    args[0].shape[d] = array.shape[d];
    args[0].strides[d] = array.strides[d];
  }
  args[1].scalar.i = scalar;
  return args;
}

}  // namespace qd::testing
