# python/quadrants/library/linear_solve.py: qd.solve(A, b): a small dense linear system inside kernels.
#
# Gaussian elimination with partial pivoting, unrolled at compile time over the matrix's static size,
# so it costs no loops or local arrays at run time. The pivot row is found at run time; rows are
# swapped with compile-time indices under a runtime test, which keeps every matrix access static.
from quadrants.frontend.builtins import static
from quadrants.frontend.funcs import func
from quadrants.runtime import init as _runtime


@func
def solve(A, b, dt=None):
    """x with A @ x = b, for an n x n matrix A and an n-vector b (in kernels and funcs). dt: the dtype
    the elimination runs in (default: qd.init's default_fp)."""
    static(_check_shapes(A.n, A.m, b.n))
    dtype = static(dt or _runtime.config().default_fp)
    M = A.cast(dtype)
    x = b.cast(dtype)
    for k in static(range(A.n)):
        pivot = k
        largest = abs(M[k, k])
        for r in static(range(k + 1, A.n)):
            if abs(M[r, k]) > largest:
                largest = abs(M[r, k])
                pivot = r
        for r in static(range(k + 1, A.n)):
            if pivot == r:
                for c in static(range(A.n)):
                    M[k, c], M[r, c] = M[r, c], M[k, c]
                x[k], x[r] = x[r], x[k]
        for r in static(range(k + 1, A.n)):
            factor = M[r, k] / M[k, k]
            for c in static(range(k, A.n)):
                M[r, c] -= factor * M[k, c]
            x[r] -= factor * x[k]
    for k in static(range(A.n - 1, -1, -1)):
        for c in static(range(k + 1, A.n)):
            x[k] -= M[k, c] * x[c]
        x[k] /= M[k, k]
    return x


def _check_shapes(rows, cols, size):
    if rows != cols:
        raise ValueError(f"qd.solve(A, b) needs a square matrix A, but got {rows}x{cols}.")
    if size != rows:
        raise ValueError(f"qd.solve(A, b) needs b of length {rows} for a {rows}x{rows} A, but got length {size}.")
    return True
