// src/bindings/annotation_check.cpp: whether an array argument fits its parameter's annotation, and
// upstream's words when it does not.
#include "bindings/annotation_check.h"

#include "quadrants/errors.h"

namespace qd::bindings {

std::string argument_text(const ParamSpec& p, const std::string& kernel) {
  return "Kernel '" + kernel + "' argument '" + p.name + "'";
}

std::string shape_text(const int64_t* shape, int ndim) {
  std::string out = "(";
  for (int d = 0; d < ndim; ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + (ndim == 1 ? ",)" : ")");
}

namespace {

// Upstream's spelling of an annotation's element type: VectorType[3, f32], MatrixType[2,2, f32], f32.
std::string annotated_type(const ParamSpec& p) {
  std::string dt = p.dtype ? std::string(dtype_name(*p.dtype)) : "";
  const std::vector<int64_t>& e = p.element_shape;
  if (e.size() == 1) return "VectorType[" + std::to_string(e[0]) + ", " + dt + "]";
  if (e.size() == 2) return "MatrixType[" + std::to_string(e[0]) + "," + std::to_string(e[1]) + ", " + dt + "]";
  if (p.element_dim > 0) return p.element_dim == 1 ? "a vector type" : "a matrix type";
  return dt;
}

// Upstream's spelling of an array's element type: f32, or [Tensor (2, 3) f32] for vector/matrix elements.
std::string element_type_text(const ArrayView& view, int element_ndim) {
  if (element_ndim == 0) return std::string(dtype_name(view.dtype));
  std::string dims = shape_text(view.shape + view.ndim - element_ndim, element_ndim);
  if (element_ndim == 1) dims.erase(dims.size() - 2, 1);  // "(3)", not Python's "(3,)"
  return "[Tensor " + dims + " " + std::string(dtype_name(view.dtype)) + "]";
}

// An array that does not fit its parameter's annotation: upstream's words ("Invalid value for argument x -
// required ...") first, as programs and tests match them, then which kernel and our account of it.
[[noreturn]] void reject_array(const ParamSpec& p, const std::string& kernel, const std::string& upstream,
                               const std::string& detail) {
  throw ArgumentValueError(upstream + ": " + argument_text(p, kernel) + ": " + detail);
}

}  // namespace

// The checks run in upstream's order, so the first error is the one it reports.
void check_annotation(const ParamSpec& p, const std::string& kernel, PyObject* obj, const ArrayView& view,
                      int& element_ndim) {
  // Built only on the way to an error: this runs on every launch, which allocates nothing.
  auto invalid = [&p] { return "Invalid value for argument " + p.name + " - required "; };
  auto own = [obj] { return is_quadrants_array(obj); };
  const int wanted = p.element_shape.empty() ? p.element_dim : static_cast<int>(p.element_shape.size());
  if (element_ndim > 0 && wanted > 0 && own()) {
    const int64_t* given = view.shape + (view.ndim - element_ndim);
    bool same = p.element_shape.empty() ? element_ndim == wanted
                                        : static_cast<int>(p.element_shape.size()) == element_ndim;
    for (int e = 0; same && e < static_cast<int>(p.element_shape.size()); ++e) same = given[e] == p.element_shape[e];
    if (!same || (p.dtype && view.dtype != *p.dtype)) {
      std::string expected = p.element_shape.empty()
          ? std::string(wanted == 1 ? "vector" : "matrix") + " elements (element_dim=" + std::to_string(wanted) + ")"
          : "elements of shape " + shape_text(p.element_shape.data(), wanted);
      reject_array(p, kernel, invalid() + "element type: " + annotated_type(p) + ", but " +
                   element_type_text(view, element_ndim) + " is provided",
                   "expected " + expected + (p.dtype ? " of " + std::string(dtype_name(*p.dtype)) : "") +
                   ", but got a container of " + (element_ndim == 1 ? "vectors " : "matrices ") +
                   element_type_text(view, element_ndim) + ".");
    }
  }
  if (element_ndim == 0 && wanted > 0) {  // a plain array: its last axes are the elements
    if (p.ndim >= 0 && view.ndim != p.ndim + wanted) {
      reject_array(p, kernel, invalid() + "array has ndim=" + std::to_string(p.ndim) + " element_dim=" +
                          std::to_string(wanted) + ", array with " + std::to_string(view.ndim) +
                          " dimensions is provided",
                   "expected " + std::to_string(p.ndim) + " dimension(s) plus " + std::to_string(wanted) +
                       " for its vector/matrix elements, but got an array of shape " +
                       shape_text(view.shape, view.ndim) + ".");
    }
    if (view.ndim < wanted) {
      reject_array(p, kernel, invalid() + "element_dim=" + std::to_string(wanted) + ", array with " +
                          std::to_string(view.ndim) + " dimensions is provided",
                   "element_dim=" + std::to_string(wanted) + " takes the last " + std::to_string(wanted) +
                       " axes as vector/matrix elements, but got an array of shape " +
                       shape_text(view.shape, view.ndim) + ".");
    }
    const int64_t* given = view.shape + (view.ndim - wanted);
    bool same = true;
    for (int e = 0; same && e < static_cast<int>(p.element_shape.size()); ++e) same = given[e] == p.element_shape[e];
    if (!same) {
      reject_array(p, kernel, invalid() + "element_shape=" + shape_text(p.element_shape.data(), wanted) +
                   ", array with element shape of " + shape_text(given, wanted) + " is provided",
                   "expected trailing dimensions " + shape_text(p.element_shape.data(), wanted) +
                       " for its vector/matrix elements, but got an array of shape " +
                       shape_text(view.shape, view.ndim) + ".");
    }
    element_ndim = wanted;
  }
  // As upstream, a vector/matrix annotation checks a foreign array's element shape only: the kernel is
  // specialized on the array's own dtype (qd.types.ndarray(dtype=qd.math.mat2) takes an i32 numpy array).
  const bool foreign_elements = wanted > 0 && !own();
  if (p.dtype && view.dtype != *p.dtype && !foreign_elements) {
    std::string detail = "expected dtype " + std::string(dtype_name(*p.dtype)) + ", but got " +
                         std::string(dtype_name(view.dtype)) + " (" + describe_object(obj) + ").";
    if (own()) {
      reject_array(p, kernel, "Expect element type " + std::string(dtype_name(*p.dtype)) + " for argument " + p.name +
                   ", but get " + element_type_text(view, element_ndim), detail);
    }
    reject_array(p, kernel, invalid() + "array has dtype=" + std::string(dtype_name(*p.dtype)) + ", array with dtype=" +
                 std::string(dtype_name(view.dtype)) + " is provided", detail);
  }
  int outer = view.ndim - element_ndim;
  if (p.ndim >= 0 && outer != p.ndim) {
    std::string detail = "expected " + std::to_string(p.ndim) + " dimension(s), but got an array of shape " +
                         shape_text(view.shape, view.ndim) + ".";
    if (own()) {
      reject_array(p, kernel, invalid() + "ndim=" + std::to_string(p.ndim) + ", but " + std::to_string(outer) +
                   "d ndarray with shape " + shape_text(view.shape, outer) + " is provided", detail);
    }
    reject_array(p, kernel, invalid() + "array has ndim=" + std::to_string(p.ndim) + ", array with " +
                 std::to_string(view.ndim) + " dimensions is provided", detail);
  }
  for (int e = outer; e < view.ndim; ++e) {  // element extents live in 16 bits of the signature
    if (view.shape[e] > 0xffff) {
      throw ValueError(argument_text(p, kernel) + ": a vector/matrix element extent is at most 65535, but the " +
                       "array of shape " + shape_text(view.shape, view.ndim) + " gives " +
                       std::to_string(view.shape[e]) + ".");
    }
  }
}

}  // namespace qd::bindings
