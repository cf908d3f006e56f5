# python/quadrants/linalg/sparse_solver.py: qd.linalg.SparseSolver (direct) and qd.linalg.SparseCG (iterative)
# for a SparseMatrix, on the host.
#
# SparseSolver factorizes densely with LAPACK through numpy (numpy has no sparse factorizations and we add no
# dependency), so it suits systems up to a few thousand unknowns; larger ones get a warning once, and a
# fill-reducing ordering (AMD, COLAMD), which only matters for a sparse factorization, changes nothing.
# SparseCG never densifies: each iteration is one compressed-row product.
import warnings

import numpy as np

from quadrants.linalg.sparse_matrix import SparseMatrix

_SOLVER_TYPES = ("LLT", "LDLT", "LU")
_ORDERINGS = ("AMD", "COLAMD", "METIS", "NATURAL")
_DENSE_WARNING_SIZE = 4000
_warned_dense = False


def _host_vector(b, n, what):
    x = b.to_numpy() if hasattr(b, "to_numpy") else np.asarray(b)
    if x.shape != (n,):
        raise ValueError(f"{what}: the right-hand side must have {n} values, but has shape {x.shape}.")
    return x


def _check_square(A, what):
    if not isinstance(A, SparseMatrix):
        raise TypeError(f"{what}: expected a qd.linalg.SparseMatrix, but got {type(A).__name__}.")
    if A.n != A.m:
        raise ValueError(f"{what}: the matrix must be square, but is {A.n}x{A.m}.")


class SparseSolver:
    """Solves A x = b for a square SparseMatrix: LLT (Cholesky, A symmetric positive definite), LDLT (A symmetric)
    or LU (any non-singular A). analyze_pattern(A), factorize(A), then solve(b) as often as needed; info() says
    whether the last factorization succeeded."""

    def __init__(self, dtype=None, solver_type="LLT", ordering="AMD"):
        if solver_type not in _SOLVER_TYPES:
            raise ValueError(f"SparseSolver(): solver_type must be one of {_SOLVER_TYPES}, but got {solver_type!r}.")
        if ordering not in _ORDERINGS:
            raise ValueError(f"SparseSolver(): ordering must be one of {_ORDERINGS}, but got {ordering!r}.")
        self.dtype, self.solver_type, self.ordering = dtype, solver_type, ordering
        self._shape, self._factor, self._ok = None, None, False

    def analyze_pattern(self, A):
        _check_square(A, "SparseSolver.analyze_pattern()")
        self._shape, self._factor, self._ok = A.shape, None, False

    def compute(self, A):
        """analyze_pattern and factorize in one call."""
        self.analyze_pattern(A)
        self.factorize(A)

    def factorize(self, A):
        global _warned_dense
        _check_square(A, "SparseSolver.factorize()")
        if self._shape != A.shape:
            raise RuntimeError("SparseSolver.factorize(): call analyze_pattern() with a matrix of this shape first.")
        if A.n > _DENSE_WARNING_SIZE and not _warned_dense:
            _warned_dense = True
            warnings.warn(f"SparseSolver factorizes densely (O(n^3)); with n={A.n} this is slow. SparseCG "
                          f"solves large symmetric positive definite systems without densifying.", stacklevel=2)
        dense = A.to_numpy().astype(np.float64)
        self._factor, self._ok = None, False
        if self.solver_type in ("LLT", "LDLT") and not np.allclose(dense, dense.T, rtol=1e-5, atol=1e-8):
            return  # both need a symmetric matrix: info() reports the failure, as upstream
        try:
            if self.solver_type == "LLT":
                self._factor = ("LLT", np.linalg.cholesky(dense))
            else:  # LDLT and LU: a pivoted LU through numpy's solve; singular matrices fail here
                if not np.isfinite(np.linalg.cond(dense)) or np.linalg.matrix_rank(dense) < A.n:
                    return
                self._factor = ("LU", dense)
        except np.linalg.LinAlgError:
            return
        self._ok = True

    def info(self):
        return self._ok

    def solve(self, b):
        """x with A x = b, as a numpy array of the solver's dtype (b: a field, an ndarray or a numpy array)."""
        if self._factor is None:
            raise RuntimeError("SparseSolver.solve(): the matrix is not factorized (call factorize() first, and "
                               "check info(): the last factorization failed)." if self._shape else
                               "SparseSolver.solve(): call analyze_pattern() and factorize() first.")
        rhs = _host_vector(b, self._shape[0], "SparseSolver.solve()").astype(np.float64)
        kind, factor = self._factor
        if kind == "LLT":
            x = np.linalg.solve(factor.T, np.linalg.solve(factor, rhs))
        else:
            x = np.linalg.solve(factor, rhs)
        out_dtype = np.float32 if str(self.dtype) in ("f32", "float32") else np.float64
        return x.astype(out_dtype)


class SparseCG:
    """Conjugate gradients for a symmetric positive definite SparseMatrix A: solve() returns (x, converged),
    converged when the residual's norm fell below atol within max_iter iterations."""

    def __init__(self, A, b, x0=None, max_iter=50, atol=1e-6):
        _check_square(A, "SparseCG()")
        self.A, self.max_iter, self.atol = A, int(max_iter), float(atol)
        self.b = _host_vector(b, A.n, "SparseCG()").astype(np.float64)
        self.x0 = np.zeros(A.n) if x0 is None else _host_vector(x0, A.n, "SparseCG() x0").astype(np.float64)

    def solve(self):
        A = self.A
        x = self.x0.copy()
        r = self.b - A._dot(x).astype(np.float64)
        p, rr = r.copy(), float(r @ r)
        converged = np.sqrt(rr) < self.atol
        for _ in range(self.max_iter):
            if converged:
                break
            Ap = A._dot(p).astype(np.float64)
            pAp = float(p @ Ap)
            if pAp <= 0.0:
                break  # A is not positive definite along p
            alpha = rr / pAp
            x += alpha * p
            r -= alpha * Ap
            rr_new = float(r @ r)
            converged = np.sqrt(rr_new) < self.atol
            p = r + (rr_new / rr) * p
            rr = rr_new
        return x.astype(A._np_dtype), bool(converged)
