# python/quadrants/linalg/matrix_free.py: qd.linalg.LinearOperator, MatrixFreeCG and MatrixFreeBICGSTAB:
# Krylov solvers over fields, where the matrix is only a kernel computing A @ v.
#
# Every vector operation is a kernel over the fields (so the solvers run where the fields live); only the
# scalars of the recurrences (dot products) come back to the host, in f64 whatever the fields' dtype.
import math

from quadrants.base import dtypes as _dtypes
from quadrants.data.field_factory import field
from quadrants.frontend.builtins import grouped
from quadrants.kernels.kernel import kernel
from quadrants.types.annotations import template


class LinearOperator:
    """A matrix given by its action: matvec(v, out) is a kernel (or function) writing A @ v into the field out."""

    def __init__(self, matvec):
        if not callable(matvec):
            raise TypeError(f"LinearOperator(): matvec must be a kernel taking (v, out), but got "
                            f"{type(matvec).__name__}.")
        self._matvec = matvec

    def matvec(self, v, out):
        self._matvec(v, out)


@kernel
def _dot(a: template(), b: template()) -> _dtypes.f64:
    total = _dtypes.f64(0.0)
    for I in grouped(a):
        total += _dtypes.f64(a[I]) * _dtypes.f64(b[I])
    return total


@kernel
def _combine(out: template(), x: template(), alpha: _dtypes.f64, y: template()):
    """out = x + alpha * y (out may be x or y)."""
    for I in grouped(out):
        out[I] = x[I] + alpha * y[I]


@kernel
def _residual(r: template(), b: template(), Ax: template()):
    for I in grouped(r):
        r[I] = b[I] - Ax[I]


def _check(A, b, x, what):
    if not isinstance(A, LinearOperator):
        raise TypeError(f"{what}: A must be a qd.linalg.LinearOperator, but got {type(A).__name__}.")
    if tuple(b.shape) != tuple(x.shape):
        raise ValueError(f"{what}: b and x must have one shape, but have {tuple(b.shape)} and {tuple(x.shape)}.")


def _temporaries(x, count):
    return [field(x.dtype, shape=tuple(x.shape)) for _ in range(count)]


def MatrixFreeCG(A, b, x, tol=1e-6, maxiter=5000, quiet=True):
    """Conjugate gradients for a symmetric positive definite A: improves the field x (its value is the initial
    guess) until |b - A x| < tol or maxiter iterations. Returns whether it converged."""
    _check(A, b, x, "MatrixFreeCG()")
    r, p, Ap = _temporaries(x, 3)
    A.matvec(x, Ap)
    _residual(r, b, Ap)
    _combine(p, r, 0.0, r)
    rr = _dot(r, r)
    converged = math.sqrt(rr) < tol
    iteration = 0
    while not converged and iteration < maxiter:
        A.matvec(p, Ap)
        pAp = _dot(p, Ap)
        if pAp <= 0.0:
            break  # exact convergence (p = 0) or A not positive definite
        alpha = rr / pAp
        _combine(x, x, alpha, p)
        _combine(r, r, -alpha, Ap)
        rr_new = _dot(r, r)
        converged = math.sqrt(rr_new) < tol
        _combine(p, r, rr_new / rr, p)
        rr = rr_new
        iteration += 1
        if not quiet:
            print(f"MatrixFreeCG iteration {iteration}: residual {math.sqrt(rr):e}")
    return converged


def MatrixFreeBICGSTAB(A, b, x, tol=1e-6, maxiter=5000, quiet=True):
    """BiCGSTAB for a general non-singular A: improves the field x until |b - A x| < tol or maxiter iterations.
    Returns whether it converged."""
    _check(A, b, x, "MatrixFreeBICGSTAB()")
    r, r0, p, v, s, t = _temporaries(x, 6)
    A.matvec(x, v)
    _residual(r, b, v)
    _combine(r0, r, 0.0, r)
    _combine(p, r, 0.0, r)
    rho = _dot(r0, r)
    converged = math.sqrt(_dot(r, r)) < tol
    iteration = 0
    while not converged and iteration < maxiter and rho != 0.0:
        A.matvec(p, v)
        r0v = _dot(r0, v)
        if r0v == 0.0:
            break
        alpha = rho / r0v
        _combine(s, r, -alpha, v)
        _combine(x, x, alpha, p)
        if math.sqrt(_dot(s, s)) < tol:
            converged = True
            break
        A.matvec(s, t)
        tt = _dot(t, t)
        omega = _dot(t, s) / tt if tt != 0.0 else 0.0
        _combine(x, x, omega, s)
        _combine(r, s, -omega, t)
        converged = math.sqrt(_dot(r, r)) < tol
        rho_new = _dot(r0, r)
        if omega == 0.0:
            break
        beta = (rho_new / rho) * (alpha / omega)
        _combine(p, p, -omega, v)  # p = r + beta * (p - omega * v)
        _combine(p, r, beta, p)
        rho = rho_new
        iteration += 1
        if not quiet:
            print(f"MatrixFreeBICGSTAB iteration {iteration}")
    return converged
