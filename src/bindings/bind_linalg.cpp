// src/bindings/bind_linalg.cpp: _core.SparseSolver, qd::SparseSolver over numpy arrays (compressed rows in, vectors
// in and out); python/quadrants/linalg/sparse_solver.py is its Python API.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <string>

#include "quadrants/errors.h"
#include "quadrants/sparse_solver.h"

namespace nb = nanobind;

namespace qd::bindings {
namespace {

// Values and vectors come in either float dtype, checked below; ro accepts read-only numpy arrays.
using IndexArray = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstVector = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Vector = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;

DtypeCode float_dtype(nb::dlpack::dtype dtype, const char* what) {
  if (dtype == nb::dtype<float>()) return DtypeCode::f32;
  if (dtype == nb::dtype<double>()) return DtypeCode::f64;
  throw TypeError(std::string("SparseSolver: ") + what + " must hold float32 or float64 values.");
}

// The lengths checked here are what the core reads through the raw pointers.
CsrMatrixView csr_view(int64_t rows, int64_t cols, const IndexArray& row_offsets, const IndexArray& col_indices,
                       const ConstVector& values) {
  if (rows < 0 || static_cast<int64_t>(row_offsets.shape(0)) != rows + 1) {
    throw ValueError("SparseSolver: row_offsets must have rows + 1 = " + std::to_string(rows + 1) +
                     " entries, but has " + std::to_string(row_offsets.shape(0)) + ".");
  }
  const int64_t nnz = row_offsets.data()[rows];
  if (nnz < 0 || static_cast<int64_t>(col_indices.shape(0)) < nnz || static_cast<int64_t>(values.shape(0)) < nnz) {
    throw ValueError("SparseSolver: the matrix stores " + std::to_string(nnz) + " entries, but has " +
                     std::to_string(col_indices.shape(0)) + " column indices and " +
                     std::to_string(values.shape(0)) + " values.");
  }
  return CsrMatrixView{rows, cols, row_offsets.data(), col_indices.data(), values.data(),
                       float_dtype(values.dtype(), "the matrix")};
}

void solve(const SparseSolver& solver, const ConstVector& rhs, const Vector& solution) {
  const auto n = static_cast<size_t>(solver.size());
  if (rhs.shape(0) != n || solution.shape(0) != n) {
    throw ValueError("SparseSolver.solve(): the right-hand side and the solution must have " + std::to_string(n) +
                     " values, but have " + std::to_string(rhs.shape(0)) + " and " +
                     std::to_string(solution.shape(0)) + ".");
  }
  if (float_dtype(rhs.dtype(), "the right-hand side") != solver.dtype() ||
      float_dtype(solution.dtype(), "the solution") != solver.dtype()) {
    throw TypeError("SparseSolver.solve(): the vectors must have the solver's dtype " +
                    std::string(dtype_name(solver.dtype())) + ".");
  }
  nb::gil_scoped_release release;
  solver.solve(rhs.data(), solution.data());
}

}  // namespace

void bind_linalg(nb::module_& m) {
  nb::class_<SparseSolver>(m, "SparseSolver",
                           "A sparse direct solver (Eigen's SimplicialLLT, SimplicialLDLT or SparseLU) on the host.")
      .def("__init__", [](SparseSolver* self, const std::string& dtype, const std::string& factorization,
                          const std::string& ordering) {
        // The Python layer has checked the names; these are internal errors if it did not.
        auto code = dtype_from_name(dtype);
        auto type = sparse_factorization_from_name(factorization);
        auto order = sparse_ordering_from_name(ordering);
        QD_ASSERT(code && type && order, "_core.SparseSolver(): unchecked dtype, solver type or ordering name");
        new (self) SparseSolver(*code, *type, *order);
      })
      .def("analyze_pattern", [](SparseSolver& self, int64_t rows, int64_t cols, const IndexArray& row_offsets,
                                 const IndexArray& col_indices, const ConstVector& values) {
        CsrMatrixView view = csr_view(rows, cols, row_offsets, col_indices, values);
        nb::gil_scoped_release release;
        self.analyze_pattern(view);
      })
      .def("factorize", [](SparseSolver& self, int64_t rows, int64_t cols, const IndexArray& row_offsets,
                           const IndexArray& col_indices, const ConstVector& values) {
        CsrMatrixView view = csr_view(rows, cols, row_offsets, col_indices, values);
        nb::gil_scoped_release release;
        self.factorize(view);
      })
      .def("solve", &solve, "Writes A^-1 rhs into solution (both 1-d, contiguous, of the solver's dtype).")
      .def("info", &SparseSolver::info)
      .def("size", &SparseSolver::size);
}

}  // namespace qd::bindings
