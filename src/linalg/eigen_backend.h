// src/linalg/eigen_backend.h: the interface behind qd::SparseSolver, implemented by one Eigen sparse solver per
// dtype, factorization and ordering (eigen_backend.cpp), so Eigen's headers stay out of the public API.
#pragma once

#include <cstdint>
#include <memory>

#include "quadrants/sparse_solver.h"

namespace qd {

// Matrices reach a backend already checked by SparseSolver (square, canonical, of the backend's dtype).
class SparseSolver::Backend {
 public:
  virtual ~Backend() = default;
  // Orders the unknowns and computes the factor's structure; the pattern is kept for same_pattern().
  virtual void analyze_pattern(const CsrMatrixView& matrix) = 0;
  // Whether matrix stores exactly the entries of the analyzed one (values aside).
  virtual bool same_pattern(const CsrMatrixView& matrix) const = 0;
  // The numerical factorization of a matrix with the analyzed pattern; false when it broke down.
  virtual bool factorize(const CsrMatrixView& matrix) = 0;
  // solution = A^-1 rhs, size() values each of the backend's scalar type; they may be the same memory.
  virtual void solve(const void* rhs, void* solution) const = 0;
  virtual int64_t size() const = 0;
};

std::unique_ptr<SparseSolver::Backend> make_eigen_backend(DtypeCode dtype, SparseFactorization factorization,
                                                          SparseOrdering ordering);

}  // namespace qd
