# python/quadrants/linalg/sparse_solver.py: qd.linalg.SparseSolver (direct) and qd.linalg.SparseCG (iterative)
# for a SparseMatrix, on the host.
#
# SparseSolver is _core.SparseSolver (src/linalg/: Eigen's SimplicialLLT, SimplicialLDLT and SparseLU, as
# upstream's) over the matrix's compressed rows; this file checks the Python-side arguments and converts the
# right-hand side and the solution. It runs on the host whatever the arch: under arch=cuda an ndarray
# right-hand side is copied to the host and the solution back into a new ndarray on the device.
# SparseCG never densifies: each iteration is one compressed-row product.
import numpy as np

from quadrants.base import dtypes as _dtypes
from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data.ndarray import Ndarray, ndarray as make_ndarray
from quadrants.linalg.sparse_matrix import SparseMatrix
from quadrants.runtime import _core

_SOLVER_TYPES = ("LLT", "LDLT", "LU")
_ORDERINGS = ("AMD", "COLAMD")
_DTYPE_NAMES = {_dtypes.f32: "f32", _dtypes.f64: "f64"}


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


def _csr_arguments(A, what):
    """(rows, cols, row offsets, column indices, values) of A, as _core.SparseSolver takes them."""
    if not isinstance(A, SparseMatrix):
        raise TypeError(f"{what}: expected a qd.linalg.SparseMatrix, but got {type(A).__name__}.")
    return (A.n, A.m, np.ascontiguousarray(A._indptr, np.int64), np.ascontiguousarray(A._indices, np.int64),
            np.ascontiguousarray(A._data))


class SparseSolver:
    """Solves A x = b for a square SparseMatrix: LLT (Cholesky, A symmetric positive semi-definite), LDLT
    (A symmetric) or LU (any A). LLT and LDLT read only A's lower triangle. analyze_pattern(A), factorize(A),
    then solve(b) as often as needed; info() says whether the last factorization succeeded."""

    def __init__(self, dtype=_dtypes.f32, solver_type="LLT", ordering="AMD"):
        if dtype not in _DTYPE_NAMES:
            raise TypeError(f"SparseSolver(): dtype must be qd.f32 or qd.f64, but got {dtype!r}.")
        if solver_type not in _SOLVER_TYPES:
            raise ValueError(f"SparseSolver(): solver_type must be one of {_SOLVER_TYPES}, but got {solver_type!r}.")
        if ordering not in _ORDERINGS:
            raise ValueError(f"SparseSolver(): ordering must be one of {_ORDERINGS}, but got {ordering!r}.")
        self.dtype, self.solver_type, self.ordering = dtype, solver_type, ordering
        self.matrix = None  # the matrix last analyzed or factorized, as upstream keeps it
        self._solver = _core.SparseSolver(_DTYPE_NAMES[dtype], solver_type, ordering)
        self._factorized = False

    def analyze_pattern(self, A):
        """Orders the unknowns to limit the factor's fill-in and computes its structure."""
        self._solver.analyze_pattern(*_csr_arguments(A, "SparseSolver.analyze_pattern()"))
        self.matrix, self._factorized = A, False

    def factorize(self, A):
        """The numerical factorization of A, whose pattern analyze_pattern() saw (another pattern is analyzed
        again); info() tells whether it succeeded."""
        arguments = _csr_arguments(A, "SparseSolver.factorize()")
        if self.matrix is None:
            raise QuadrantsRuntimeError("SparseSolver.factorize(): call analyze_pattern() with the matrix first.")
        self._solver.factorize(*arguments)
        self.matrix, self._factorized = A, True

    def compute(self, A):
        """analyze_pattern and factorize in one call."""
        self.analyze_pattern(A)
        self.factorize(A)

    def info(self):
        """True when the last factorization succeeded (false before any, and after one that broke down:
        LLT of an indefinite matrix, LDLT or LU meeting a zero pivot)."""
        return self._solver.info()

    def solve(self, b):
        """x with A x = b, in the solver's dtype: a qd.ndarray for a qd.ndarray b, else a numpy array (b: a
        field, an ndarray or anything numpy takes, of A's size)."""
        if not self._factorized:
            raise QuadrantsRuntimeError("SparseSolver.solve(): call analyze_pattern() and factorize() (or "
                                        "compute()) first.")
        if not self._solver.info():
            raise QuadrantsRuntimeError("SparseSolver.solve(): the last factorization failed (info() is False), "
                                        "so there is nothing to solve with.")
        n = self._solver.size()
        np_dtype = np.float32 if self.dtype == _dtypes.f32 else np.float64
        rhs = np.ascontiguousarray(_host_vector(b, n, "SparseSolver.solve()"), np_dtype)
        x = np.empty(n, np_dtype)
        self._solver.solve(rhs, x)
        if isinstance(b, Ndarray):
            out = make_ndarray(b.dtype if b.dtype in _DTYPE_NAMES else self.dtype, n)
            out.from_numpy(x.astype(np.float32 if out.dtype == _dtypes.f32 else np.float64, copy=False))
            return out
        return x


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
