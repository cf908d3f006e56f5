// src/linalg/sparse_solver.cpp: qd::SparseSolver: checks what it is given and the order of the calls, and
// hands the numbers to its Eigen backend (eigen_backend.cpp).
#include "quadrants/sparse_solver.h"

#include <climits>
#include <string>

#include "linalg/eigen_backend.h"
#include "quadrants/errors.h"

namespace qd {

std::optional<SparseFactorization> sparse_factorization_from_name(std::string_view name) {
  if (name == "LLT") return SparseFactorization::llt;
  if (name == "LDLT") return SparseFactorization::ldlt;
  if (name == "LU") return SparseFactorization::lu;
  return std::nullopt;
}

std::optional<SparseOrdering> sparse_ordering_from_name(std::string_view name) {
  if (name == "AMD") return SparseOrdering::amd;
  if (name == "COLAMD") return SparseOrdering::colamd;
  return std::nullopt;
}

SparseSolver::SparseSolver(DtypeCode dtype, SparseFactorization factorization, SparseOrdering ordering)
    : dtype_(dtype), factorization_(factorization), ordering_(ordering) {
  if (dtype != DtypeCode::f32 && dtype != DtypeCode::f64) {
    throw TypeError("SparseSolver: dtype must be f32 or f64, but got " + std::string(dtype_name(dtype)) + ".");
  }
}

SparseSolver::~SparseSolver() = default;
SparseSolver::SparseSolver(SparseSolver&&) noexcept = default;
SparseSolver& SparseSolver::operator=(SparseSolver&&) noexcept = default;

// O(rows + nnz): cheap next to any factorization, and the backend's counting sort indexes by these values.
void SparseSolver::check_matrix(const CsrMatrixView& matrix, const char* method) const {
  const std::string where = std::string("SparseSolver.") + method + "(): ";
  if (matrix.dtype != dtype_) {
    throw TypeError(where + "the matrix holds " + std::string(dtype_name(matrix.dtype)) + " values, but the solver " +
                    "was made for " + std::string(dtype_name(dtype_)) + "; make both with the same dtype.");
  }
  if (matrix.rows != matrix.cols) {
    throw ValueError(where + "the matrix must be square, but is " + std::to_string(matrix.rows) + "x" +
                     std::to_string(matrix.cols) + ".");
  }
  if (matrix.rows < 0 || matrix.rows > INT_MAX) {
    throw ValueError(where + "the matrix must have between 0 and 2^31-1 rows, but has " +
                     std::to_string(matrix.rows) + ".");
  }
  if (matrix.row_offsets == nullptr || matrix.row_offsets[0] != 0) {
    throw ValueError(where + "row_offsets must start with 0.");
  }
  const int64_t nnz = matrix.row_offsets[matrix.rows];
  if (nnz > INT_MAX) {
    throw ValueError(where + "the matrix may store at most 2^31-1 entries, but stores " + std::to_string(nnz) + ".");
  }
  if (nnz > 0 && (matrix.col_indices == nullptr || matrix.values == nullptr)) {
    throw ValueError(where + "the matrix stores " + std::to_string(nnz) + " entries but gives no indices or values.");
  }
  for (int64_t r = 0; r < matrix.rows; ++r) {
    const int64_t begin = matrix.row_offsets[r], end = matrix.row_offsets[r + 1];
    if (end < begin) {
      throw ValueError(where + "row_offsets must not decrease, but row " + std::to_string(r) + " ends at " +
                       std::to_string(end) + ", before it starts at " + std::to_string(begin) + ".");
    }
    for (int64_t k = begin; k < end; ++k) {
      const int64_t c = matrix.col_indices[k];
      if (c < 0 || c >= matrix.cols) {
        throw ValueError(where + "row " + std::to_string(r) + " has an entry in column " + std::to_string(c) +
                         ", outside the " + std::to_string(matrix.cols) + " columns.");
      }
      if (k > begin && c <= matrix.col_indices[k - 1]) {
        throw ValueError(where + "the column indices of row " + std::to_string(r) + " must be strictly " +
                         "increasing (each entry stored once), but " + std::to_string(c) + " follows " +
                         std::to_string(matrix.col_indices[k - 1]) + ".");
      }
    }
  }
}

void SparseSolver::analyze_pattern(const CsrMatrixView& matrix) {
  check_matrix(matrix, "analyze_pattern");
  factorized_ = false;
  backend_ = make_eigen_backend(dtype_, factorization_, ordering_);  // a fresh one: no state of an older matrix
  backend_->analyze_pattern(matrix);
}

void SparseSolver::factorize(const CsrMatrixView& matrix) {
  check_matrix(matrix, "factorize");
  if (!backend_) throw ValueError("SparseSolver.factorize(): call analyze_pattern() with the matrix first.");
  if (matrix.rows != backend_->size()) {
    throw ValueError("SparseSolver.factorize(): the matrix is " + std::to_string(matrix.rows) + "x" +
                     std::to_string(matrix.cols) + ", but analyze_pattern() was given one of " +
                     std::to_string(backend_->size()) + " rows; call analyze_pattern() with this matrix first.");
  }
  // Eigen's numerical factorization fills the structure that the analysis computed; entries outside it
  // would be written out of bounds, so a matrix with another pattern is analyzed anew.
  if (!backend_->same_pattern(matrix)) backend_->analyze_pattern(matrix);
  factorized_ = backend_->factorize(matrix);
}

void SparseSolver::compute(const CsrMatrixView& matrix) {
  analyze_pattern(matrix);
  factorize(matrix);
}

bool SparseSolver::info() const { return factorized_; }

void SparseSolver::solve(const void* rhs, void* solution) const {
  if (!backend_) throw ValueError("SparseSolver.solve(): call analyze_pattern() and factorize() first.");
  if (!factorized_) {
    throw ValueError("SparseSolver.solve(): the matrix is not factorized: call factorize() first, and check "
                     "info(), which is false when the factorization failed.");
  }
  if (backend_->size() > 0 && (rhs == nullptr || solution == nullptr)) {
    throw ValueError("SparseSolver.solve(): rhs and solution must not be null.");
  }
  backend_->solve(rhs, solution);
}

int64_t SparseSolver::size() const { return backend_ ? backend_->size() : 0; }

}  // namespace qd
