# python/quadrants/library/eigen_decompositions.py: qd.sym_eig, qd.make_spd and qd.eig of small matrices inside kernels.
#
# qd.sym_eig (symmetric 2x2 .. 6x6): cyclic Jacobi. Each rotation zeroes one off-diagonal pair exactly and
# updates only the two rows and columns it touches; rotations whose pair is already negligible next to its two
# diagonal entries are skipped, which also bounds the rotation angle's tangent (no overflow, even under fast
# math). 2x2 is one rotation. Larger sizes repeat sweeps in a serial runtime loop until a sweep rotates nothing
# (at most _MAX_SWEEPS), so the generated code stays one sweep long. Eigenvalues come back ascending with the
# eigenvectors as the matching columns, as upstream (and numpy's eigh) return them.
#
# qd.eig (general real 2x2): closed form. Upstream's packed complex layout: eigenvalues are a 2x2 matrix whose
# row k is (real, imaginary) of the k-th eigenvalue, the larger real one (or the one with positive imaginary
# part) first; eigenvectors are a 4x2 matrix whose column k is (re v0, im v0, re v1, im v1), of unit norm, with
# its largest entry made real and positive (LAPACK's normalization, up to that sign).
from quadrants.base.dtypes import f64
from quadrants.data.matrix import Matrix, Vector
from quadrants.frontend.builtins import loop_config, static
from quadrants.frontend.funcs import func
from quadrants.library.math import sqrt
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import template

# Quadratic convergence: on random f64 inputs 3x3 stops after at most 5 sweeps and 6x6 after 7 (the last one
# rotating nothing); the bound only matters for inputs such as NaN, where the test never settles.
_MAX_SWEEPS = 16
_MAX_SYM_EIG_SIZE = 6  # upstream's cap: the unrolled sweep grows as n^3


@func
def sym_eig(A, dt=None):
    """Eigenvalues (an n-vector, ascending) and eigenvectors (the matching orthonormal columns of an n x n
    matrix) of a symmetric A, 2x2 to 6x6. Only A's upper triangle is read. dt: the dtype of the computation
    (default: qd.init's default_fp)."""
    static(_check_sym_eig_size(A.n, A.m, "qd.sym_eig"))
    dtype = static(dt or _runtime.config().default_fp)
    n = static(A.n)
    S = A.cast(dtype)
    for p, q in static(_pairs(n)):
        S[q, p] = S[p, q]
    V = Matrix.identity(dtype, n)
    if static(n == 2):
        S, V, _ = _rotate(S, V, 0, 1, static(_epsilon(dtype)))
    else:
        loop_config(serialize=True)  # a call at a kernel's top level must not make the sweeps a parallel loop
        for _ in range(_MAX_SWEEPS):
            rotated = False
            for p, q in static(_pairs(n)):
                S, V, did = _rotate(S, V, p, q, static(_epsilon(dtype)))
                rotated = rotated or did
            if not rotated:
                break
    values = Vector.zero(dtype, n)
    for k in static(range(n)):
        values[k] = S[k, k]
    for i in static(range(n - 1)):  # bubble sort as a fixed network of compare-and-swaps
        for k in static(range(n - 1 - i)):
            if values[k] > values[k + 1]:
                values[k], values[k + 1] = values[k + 1], values[k]
                for r in static(range(n)):
                    V[r, k], V[r, k + 1] = V[r, k + 1], V[r, k]
    return values, V


@func
def make_spd(A, dt=None):
    """The symmetric positive semi-definite matrix nearest to a symmetric A (2x2 to 6x6) in the Frobenius
    norm: Q diag(max(lambda, 0)) Qᵀ from qd.sym_eig. The result is exactly symmetric."""
    static(_check_sym_eig_size(A.n, A.m, "qd.make_spd"))
    dtype = static(dt or _runtime.config().default_fp)
    n = static(A.n)
    values, Q = sym_eig(A, dtype)
    R = Matrix.zero(dtype, n, n)
    for k in static(range(n)):
        weight = max(values[k], dtype(0.0))
        for i in static(range(n)):
            for j in static(range(i, n)):
                R[i, j] += Q[i, k] * weight * Q[j, k]
    for i, j in static(_pairs(n)):
        R[j, i] = R[i, j]
    return R


@func
def eig(A, dt=None):
    """Eigenvalues and right eigenvectors of a real 2x2 A in upstream's packed complex layout: a 2x2 matrix
    whose rows are (real, imaginary) eigenvalues and a 4x2 matrix whose columns are the eigenvectors, entry by
    entry as (real, imaginary). dt: the dtype of the computation (default: qd.init's default_fp)."""
    static(_check_eig_size(A.n, A.m))
    dtype = static(dt or _runtime.config().default_fp)
    M = A.cast(dtype)
    size = max(max(abs(M[0, 0]), abs(M[0, 1])), max(abs(M[1, 0]), abs(M[1, 1])))
    if size > 0:  # work on A / size, so that squares neither overflow nor underflow; eigenvalues scale back
        M = M / size
    a, b, c, d = M[0, 0], M[0, 1], M[1, 0], M[1, 1]
    mean = (a + d) * 0.5
    half_gap = (a - d) * 0.5
    disc = half_gap * half_gap + b * c  # the eigenvalues are mean ± sqrt(disc); this form avoids tr² - 4 det
    values = Matrix.zero(dtype, 2, 2)
    vectors = Matrix.zero(dtype, 4, 2)
    if disc >= 0:
        root = sqrt(disc)
        values[0, 0] = mean + root
        values[1, 0] = mean - root
        for k in static(range(2)):
            lam = values[k, 0]
            # A - lam I has rank <= 1: a null vector is perpendicular to either of its rows; take the one
            # perpendicular to the larger row, the other may be rounding noise
            x0, x1 = b, lam - a
            y0, y1 = lam - d, c
            if max(abs(y0), abs(y1)) > max(abs(x0), abs(x1)):
                x0, x1 = y0, y1
            if x0 == 0 and x1 == 0:  # A = lam I: every vector is an eigenvector; take the standard basis
                x0, x1 = dtype(1.0 - k), dtype(k * 1.0)
            vectors[0, k], vectors[1, k], vectors[2, k], vectors[3, k] = _unit_complex_vector(
                x0, x0 * 0, x1, x1 * 0)
    else:
        root = sqrt(-disc)
        for k in static(range(2)):
            imag = root if static(k == 0) else -root
            values[k, 0] = mean
            values[k, 1] = imag
            # complex lam = mean + i imag; b and c are nonzero with opposite signs, so both candidates are nonzero
            re0, im0, re1, im1 = b, b * 0, -half_gap, imag
            if abs(c) > abs(b):
                re0, im0, re1, im1 = half_gap, imag, c, c * 0
            vectors[0, k], vectors[1, k], vectors[2, k], vectors[3, k] = _unit_complex_vector(re0, im0, re1, im1)
    if size > 0:
        values = values * size
    return values, vectors


@func
def _rotate(S, V, p: template(), q: template(), epsilon: template()):
    """S and V after the Jacobi rotation J that zeroes S[p, q] (S := Jᵀ S J, V := V J), and whether it
    rotated: a pair below epsilon times its diagonal entries' size is left alone (the tangent then stays below
    1 / epsilon)."""
    n = static(S.n)
    apq = S[p, q]
    did = abs(apq) > epsilon * (abs(S[p, p]) + abs(S[q, q]))
    if did:
        theta = (S[q, q] - S[p, p]) / (2 * apq)
        t = 1 / (abs(theta) + sqrt(theta * theta + 1))  # the smaller root of t² + 2 theta t - 1: angle <= pi/4
        if theta < 0:
            t = -t
        c = 1 / sqrt(t * t + 1)
        s = t * c
        S[p, p] -= t * apq
        S[q, q] += t * apq
        S[p, q] = apq * 0
        S[q, p] = apq * 0
        for r in static(range(n)):
            if static(r != p and r != q):
                srp, srq = S[r, p], S[r, q]
                S[r, p] = c * srp - s * srq
                S[r, q] = s * srp + c * srq
                S[p, r] = S[r, p]
                S[q, r] = S[r, q]
            vrp, vrq = V[r, p], V[r, q]
            V[r, p] = c * vrp - s * vrq
            V[r, q] = s * vrp + c * vrq
    return S, V, did


@func
def _unit_complex_vector(re0, im0, re1, im1):
    """(re0 + i im0, re1 + i im1) scaled to unit norm, times the phase that makes its larger entry real and
    positive. The vector must not be zero."""
    largest = max(max(abs(re0), abs(im0)), max(abs(re1), abs(im1)))
    re0, im0, re1, im1 = re0 / largest, im0 / largest, re1 / largest, im1 / largest  # no underflow in squares
    re_big, im_big = re0, im0
    if re1 * re1 + im1 * im1 > re0 * re0 + im0 * im0:
        re_big, im_big = re1, im1
    big = sqrt(re_big * re_big + im_big * im_big)
    scale = 1 / (big * sqrt(re0 * re0 + im0 * im0 + re1 * re1 + im1 * im1))
    pr, pi = re_big * scale, -im_big * scale  # conj(big entry) / (|big entry| * norm)
    return re0 * pr - im0 * pi, re0 * pi + im0 * pr, re1 * pr - im1 * pi, re1 * pi + im1 * pr


def _pairs(n):
    return [(p, q) for p in range(n) for q in range(p + 1, n)]


def _epsilon(dtype):
    return 2.0**-52 if dtype == f64 else 2.0**-23


def _check_sym_eig_size(rows, cols, name):
    if rows != cols or not 2 <= rows <= _MAX_SYM_EIG_SIZE:
        raise ValueError(f"{name}() supports symmetric matrices from 2x2 up to 6x6, but got {rows}x{cols}.")
    return True


def _check_eig_size(rows, cols):
    if rows != cols or rows != 2:
        raise ValueError(f"qd.eig() supports 2x2 matrices, but got {rows}x{cols}.")
    return True
