# python/quadrants/library/decompositions.py: qd.svd and qd.polar_decompose of 2x2 and 3x3 matrices inside kernels.
#
# SVD: V from a cyclic Jacobi eigendecomposition of the symmetric AᵀA (a fixed number of sweeps, unrolled at
# compile time, so there are no data-dependent loops), its eigenvalues sorted in decreasing order; then a
# Givens QR of A V = U R gives U and the singular values on R's diagonal. Both U and V are rotations
# (det +1): the sign of det(A) stays in the last singular value, the convention Genesis' MPM and upstream's
# tests rely on (R = U Vᵀ is then a proper rotation for any A). A V is formed from A itself, so A = U Σ Vᵀ
# holds to rounding even where AᵀA is ill-conditioned.
from quadrants.data.matrix import Matrix
from quadrants.frontend.builtins import static
from quadrants.frontend.funcs import func
from quadrants.library.math import sqrt
from quadrants.runtime import init as _runtime

_SWEEPS = 6  # cyclic Jacobi converges quadratically: 6 sweeps reach f64 rounding for 3x3


@func
def svd(A, dt=None):
    """U, Σ, V with A = U Σ Vᵀ for a 2x2 or 3x3 A; U and V rotations, Σ diagonal (its last entry negative when
    det(A) < 0). dt: the dtype of the computation (default: qd.init's default_fp)."""
    static(_check_size(A.n, A.m, "qd.svd", "SVD"))
    dtype = static(dt or _runtime.config().default_fp)
    n = static(A.n)
    M = A.cast(dtype)
    S = M.transpose() @ M
    V = Matrix.identity(dtype, n)
    for _ in static(range(_SWEEPS if n == 3 else 1)):
        for p, q in static(_pairs(n)):
            c, s = _jacobi_rotation(S[p, p], S[q, q], S[p, q])
            J = Matrix.identity(dtype, n)
            J[p, p], J[q, q], J[p, q], J[q, p] = c, c, s, -s
            S = J.transpose() @ S @ J
            V = V @ J
    for p, q in static(_sort_pairs(n)):  # eigenvalues (squared singular values) in decreasing order
        if S[q, q] > S[p, p]:
            S[p, p], S[q, q] = S[q, q], S[p, p]
            for r in static(range(n)):  # swap two columns and negate one: V stays a rotation
                V[r, p], V[r, q] = V[r, q], -V[r, p]
    B = M @ V
    U = Matrix.identity(dtype, n)
    for p, q in static(_pairs(n)):  # zero B[q, p] with a rotation of rows p and q: B = U R
        a, b = B[p, p], B[q, p]
        r = sqrt(a * a + b * b)
        c, s = dtype(1.0), dtype(0.0)
        if r > 0:
            c, s = a / r, b / r
        G = Matrix.identity(dtype, n)
        G[p, p], G[q, q], G[p, q], G[q, p] = c, c, s, -s
        B = G @ B
        U = U @ G.transpose()
    sigma = Matrix.zero(dtype, n, n)
    for k in static(range(n)):
        sigma[k, k] = B[k, k]
    return U, sigma, V


@func
def polar_decompose(A, dt=None):
    """R, P with A = R P for a 2x2 or 3x3 A: R a rotation, P symmetric (from qd.svd: R = U Vᵀ, P = V Σ Vᵀ)."""
    static(_check_size(A.n, A.m, "qd.polar_decompose", "Polar decomposition"))
    U, sigma, V = svd(A, dt)
    return U @ V.transpose(), V @ sigma @ V.transpose()


@func
def _jacobi_rotation(app, aqq, apq):
    """(cos, sin) of the rotation that zeroes the (p, q) entry of a symmetric matrix; (1, 0) when it is 0."""
    c = app * 0 + 1
    s = app * 0
    if apq != 0:
        theta = (aqq - app) / (2 * apq)
        t = 1 / (abs(theta) + sqrt(theta * theta + 1))
        if theta < 0:
            t = -t
        c = 1 / sqrt(t * t + 1)
        s = t * c
    return c, s


def _pairs(n):
    return [(0, 1)] if n == 2 else [(0, 1), (0, 2), (1, 2)]


def _sort_pairs(n):
    return [(0, 1)] if n == 2 else [(0, 1), (1, 2), (0, 1)]


def _check_size(rows, cols, name, title):
    if rows != cols or rows not in (2, 3):  # upstream's sentence first: its tests match it
        raise ValueError(f"{title} only supports 2×2 and 3×3 matrices, but {name}() was given a {rows}x{cols} matrix.")
    return True
