// include/quadrants/sparse_solver.h: a sparse direct solver (Cholesky LLT or LDLT, or LU) for matrices in
// compressed sparse rows, on the host; the C++ side of qd.linalg.SparseSolver.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "quadrants/dtype.h"

namespace qd {

// llt and ldlt read only the lower triangle (diagonal included) and take the matrix as symmetric, as Eigen's
// SimplicialLLT/LDLT (upstream's) do. llt needs the matrix positive semi-definite: a singular one (a
// pure-Neumann Laplacian) factorizes whichever sign rounding gives its zero pivot (src/linalg/eigen_backend.cpp
// says how). ldlt needs non-zero pivots, lu any square matrix with non-zero pivots; a singular matrix's zero
// pivot usually comes out of rounding non-zero, and then both succeed too, as upstream's do.
enum class SparseFactorization { llt, ldlt, lu };
// A fill-reducing ordering of the unknowns, computed by analyze_pattern().
enum class SparseOrdering { amd, colamd };

// Upstream's names: "LLT", "LDLT", "LU" and "AMD", "COLAMD"; nullopt for any other.
std::optional<SparseFactorization> sparse_factorization_from_name(std::string_view name);
std::optional<SparseOrdering> sparse_ordering_from_name(std::string_view name);

// A borrowed matrix in canonical compressed sparse rows: row r's entries are columns
// col_indices[row_offsets[r]] < ... < col_indices[row_offsets[r + 1] - 1] with the values at the same places.
// values are float when dtype is f32 and double when f64.
struct CsrMatrixView {
  int64_t rows = 0;
  int64_t cols = 0;
  const int64_t* row_offsets = nullptr;  // rows + 1 entries, row_offsets[0] == 0
  const int64_t* col_indices = nullptr;  // row_offsets[rows] entries
  const void* values = nullptr;
  DtypeCode dtype = DtypeCode::f32;
};

// Solves A x = b for a square sparse A: analyze_pattern(A) orders the unknowns and finds the factor's
// structure, factorize(A) computes the numbers, and solve(b) then runs as often as needed. A factorize()
// whose matrix has a pattern other than the analyzed one analyzes it again, since the factor's structure
// would not hold it. Bad input throws qd::TypeError or qd::ValueError naming it; a factorization that breaks
// down (llt of an indefinite matrix, lu of a singular one) does not throw: info() turns false, as in Eigen.
class SparseSolver {
 public:
  // dtype is f32 or f64: the matrix's values and solve()'s vectors have it, and the factor is computed in it.
  SparseSolver(DtypeCode dtype, SparseFactorization factorization, SparseOrdering ordering);
  ~SparseSolver();
  SparseSolver(SparseSolver&&) noexcept;
  SparseSolver& operator=(SparseSolver&&) noexcept;

  void analyze_pattern(const CsrMatrixView& matrix);
  // Throws if analyze_pattern() has not run, or ran on a matrix of another shape.
  void factorize(const CsrMatrixView& matrix);
  // analyze_pattern() then factorize().
  void compute(const CsrMatrixView& matrix);
  // Whether the last factorize() succeeded (false before any).
  bool info() const;
  // solution = A^-1 rhs, each size() values of the solver's dtype; they may be the same memory. Throws
  // unless the last factorize() succeeded.
  void solve(const void* rhs, void* solution) const;

  // The number of unknowns analyzed (0 before analyze_pattern()).
  int64_t size() const;
  DtypeCode dtype() const { return dtype_; }
  SparseFactorization factorization() const { return factorization_; }
  SparseOrdering ordering() const { return ordering_; }

  class Backend;  // one Eigen solver type per dtype, factorization and ordering (src/linalg/)

 private:
  void check_matrix(const CsrMatrixView& matrix, const char* method) const;

  DtypeCode dtype_;
  SparseFactorization factorization_;
  SparseOrdering ordering_;
  std::unique_ptr<Backend> backend_;
  bool factorized_ = false;
};

}  // namespace qd
