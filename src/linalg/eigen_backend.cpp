// src/linalg/eigen_backend.cpp: SparseSolver's backends: Eigen's SimplicialLLT, SimplicialLDLT and SparseLU
// over a column-major copy of the matrix, for float and double, with AMD or COLAMD ordering.
#include "linalg/eigen_backend.h"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "quadrants/errors.h"

namespace qd {
namespace {

// Eigen's solvers take compressed columns; 32-bit indices are what its orderings are instantiated for.
template <typename Scalar>
using ColumnMatrix = Eigen::SparseMatrix<Scalar, Eigen::ColMajor, int>;
template <typename Scalar>
using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
template <typename Scalar>
using ConstVectorMap = Eigen::Map<const Vector<Scalar>>;

// The matrix in compressed columns, by a counting sort over its rows: row indices come out increasing in
// every column because rows are visited in order. O(rows + nnz).
template <typename Scalar>
ColumnMatrix<Scalar> to_column_major(const CsrMatrixView& csr) {
  const int64_t nnz = csr.row_offsets[csr.rows];
  ColumnMatrix<Scalar> matrix(static_cast<int>(csr.rows), static_cast<int>(csr.cols));
  matrix.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* column_starts = matrix.outerIndexPtr();  // cols + 1 entries, zeroed by the constructor
  for (int64_t k = 0; k < nnz; ++k) ++column_starts[csr.col_indices[k] + 1];
  for (int64_t c = 0; c < csr.cols; ++c) column_starts[c + 1] += column_starts[c];
  std::vector<int> next(column_starts, column_starts + csr.cols);
  const auto* values = static_cast<const Scalar*>(csr.values);
  for (int64_t r = 0; r < csr.rows; ++r) {
    for (int64_t k = csr.row_offsets[r]; k < csr.row_offsets[r + 1]; ++k) {
      const int slot = next[csr.col_indices[k]]++;
      matrix.innerIndexPtr()[slot] = static_cast<int>(r);
      matrix.valuePtr()[slot] = values[k];
    }
  }
  return matrix;
}

// What every backend shares: the conversion, the analyzed pattern, and vectors in and out. Subclasses see
// only Eigen's types.
template <typename Scalar>
class ColumnMajorBackend : public SparseSolver::Backend {
 public:
  void analyze_pattern(const CsrMatrixView& csr) final {
    const ColumnMatrix<Scalar> matrix = to_column_major<Scalar>(csr);
    analyze_columns(matrix);
    size_ = csr.rows;
    column_starts_.assign(matrix.outerIndexPtr(), matrix.outerIndexPtr() + csr.cols + 1);
    row_indices_.assign(matrix.innerIndexPtr(), matrix.innerIndexPtr() + matrix.nonZeros());
  }

  bool same_pattern(const CsrMatrixView& csr) const final {
    if (csr.rows != size_ || csr.row_offsets[csr.rows] != static_cast<int64_t>(row_indices_.size())) return false;
    // Compared in the analyzed column-major form: each CSR entry must land where the conversion put it.
    std::vector<int> next(column_starts_.begin(), column_starts_.end() - 1);
    for (int64_t r = 0; r < csr.rows; ++r) {
      for (int64_t k = csr.row_offsets[r]; k < csr.row_offsets[r + 1]; ++k) {
        const int64_t c = csr.col_indices[k];
        const int slot = next[c]++;
        if (slot >= column_starts_[c + 1] || row_indices_[slot] != r) return false;
      }
    }
    return true;
  }

  bool factorize(const CsrMatrixView& csr) final { return factorize_columns(to_column_major<Scalar>(csr)); }

  void solve(const void* rhs, void* solution) const final {
    // Into a temporary first: Eigen's solvers assume that the destination does not alias b.
    const Vector<Scalar> x = solve_vector(ConstVectorMap<Scalar>(static_cast<const Scalar*>(rhs), size_));
    std::copy(x.data(), x.data() + size_, static_cast<Scalar*>(solution));
  }

  int64_t size() const final { return size_; }

 protected:
  virtual void analyze_columns(const ColumnMatrix<Scalar>& matrix) = 0;
  virtual bool factorize_columns(const ColumnMatrix<Scalar>& matrix) = 0;
  virtual Vector<Scalar> solve_vector(const ConstVectorMap<Scalar>& b) const = 0;

 private:
  int64_t size_ = 0;
  std::vector<int> column_starts_;  // the analyzed pattern, column-major
  std::vector<int> row_indices_;
};

// SimplicialLDLT or SparseLU as Eigen has them.
template <typename Scalar, typename EigenSolver>
class EigenBackend final : public ColumnMajorBackend<Scalar> {
 protected:
  void analyze_columns(const ColumnMatrix<Scalar>& matrix) override { solver_.analyzePattern(matrix); }
  bool factorize_columns(const ColumnMatrix<Scalar>& matrix) override {
    solver_.factorize(matrix);
    return solver_.info() == Eigen::Success;
  }
  Vector<Scalar> solve_vector(const ConstVectorMap<Scalar>& b) const override { return solver_.solve(b); }

 private:
  EigenSolver solver_;
};

// SimplicialLLT, which also factorizes positive semi-definite matrices. On a singular one (a pure-Neumann
// Laplacian, whose constant vector is its null space) the last pivot is zero in exact arithmetic, and rounding
// makes it a tiny positive or negative number: SimplicialLLT then succeeds or fails by chance (upstream's
// f32 LLT fails on the 8x8-grid Laplacian and factorizes the 16x16 one). When it fails, the same matrix goes
// through SimplicialLDLT with the same ordering; if no pivot of D is below -n * eps * max|a_ii| (LAPACK's
// default tolerance for semi-definite Cholesky, xPSTRF), the matrix is positive semi-definite up to rounding
// and that LDL^T factor, which solves A x = b for any b in A's range, serves the solves. A more negative pivot
// shows A indefinite (D has A's inertia), and the factorization fails as upstream's does.
template <typename Scalar, template <typename> class Ordering>
class SemidefiniteLltBackend final : public ColumnMajorBackend<Scalar> {
 protected:
  void analyze_columns(const ColumnMatrix<Scalar>& matrix) override {
    llt_.analyzePattern(matrix);
    ldlt_analyzed_ = false;
    use_ldlt_ = false;
  }

  bool factorize_columns(const ColumnMatrix<Scalar>& matrix) override {
    use_ldlt_ = false;
    llt_.factorize(matrix);
    if (llt_.info() == Eigen::Success) return true;
    if (!ldlt_analyzed_) {  // only matrices that fail LLT pay for this analysis
      ldlt_.analyzePattern(matrix);
      ldlt_analyzed_ = true;
    }
    ldlt_.factorize(matrix);
    if (ldlt_.info() != Eigen::Success) return false;
    const Scalar max_diagonal = matrix.diagonal().cwiseAbs().maxCoeff();
    const Scalar tolerance = static_cast<Scalar>(matrix.rows()) * std::numeric_limits<Scalar>::epsilon() * max_diagonal;
    use_ldlt_ = ldlt_.vectorD().minCoeff() >= -tolerance;
    return use_ldlt_;
  }

  Vector<Scalar> solve_vector(const ConstVectorMap<Scalar>& b) const override {
    if (use_ldlt_) return ldlt_.solve(b);
    return llt_.solve(b);
  }

 private:
  Eigen::SimplicialLLT<ColumnMatrix<Scalar>, Eigen::Lower, Ordering<int>> llt_;
  Eigen::SimplicialLDLT<ColumnMatrix<Scalar>, Eigen::Lower, Ordering<int>> ldlt_;
  bool ldlt_analyzed_ = false;
  bool use_ldlt_ = false;  // the last factorization fell back to ldlt_
};

template <typename Scalar, template <typename> class Ordering>
std::unique_ptr<SparseSolver::Backend> make_with_ordering(SparseFactorization factorization) {
  using Matrix = ColumnMatrix<Scalar>;
  switch (factorization) {
    case SparseFactorization::llt:
      return std::make_unique<SemidefiniteLltBackend<Scalar, Ordering>>();
    case SparseFactorization::ldlt:
      return std::make_unique<EigenBackend<Scalar, Eigen::SimplicialLDLT<Matrix, Eigen::Lower, Ordering<int>>>>();
    case SparseFactorization::lu:
      return std::make_unique<EigenBackend<Scalar, Eigen::SparseLU<Matrix, Ordering<int>>>>();
  }
  QD_ASSERT(false, "make_eigen_backend(): unknown factorization");
  return nullptr;
}

template <typename Scalar>
std::unique_ptr<SparseSolver::Backend> make_for_scalar(SparseFactorization factorization, SparseOrdering ordering) {
  if (ordering == SparseOrdering::amd) return make_with_ordering<Scalar, Eigen::AMDOrdering>(factorization);
  return make_with_ordering<Scalar, Eigen::COLAMDOrdering>(factorization);
}

}  // namespace

std::unique_ptr<SparseSolver::Backend> make_eigen_backend(DtypeCode dtype, SparseFactorization factorization,
                                                          SparseOrdering ordering) {
  QD_ASSERT(dtype == DtypeCode::f32 || dtype == DtypeCode::f64, "make_eigen_backend(): dtype not checked");
  if (dtype == DtypeCode::f32) return make_for_scalar<float>(factorization, ordering);
  return make_for_scalar<double>(factorization, ordering);
}

}  // namespace qd
