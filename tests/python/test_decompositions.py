# qd.svd and qd.polar_decompose inside kernels (decompositions.py), against numpy, with upstream's convention:
# U and V are rotations and the sign of det(A) stays in the last singular value.
import numpy as np
import pytest

import quadrants as qd


def _cases(n, rng):
    yield np.eye(n)
    yield np.diag([1.0] * (n - 1) + [-1.0])  # a reflection
    near = rng.standard_normal((n, n))
    near[:, 1] = near[:, 0] + 1e-3 * rng.standard_normal(n)  # nearly rank deficient
    yield near
    for _ in range(20):
        yield rng.standard_normal((n, n))


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("dt, tol", [(qd.f32, 5e-5), (qd.f64, 1e-10)])
def test_svd_and_polar_decomposition_match_numpy(n, dt, tol):
    np_dt = np.float32 if dt == qd.f32 else np.float64
    A, U, S, V, R, P = (qd.Matrix.field(n, n, dtype=dt, shape=()) for _ in range(6))

    @qd.kernel
    def run():
        U[None], S[None], V[None] = qd.svd(A[None], dt)
        R[None], P[None] = qd.polar_decompose(A[None], dt)

    for a in _cases(n, np.random.default_rng(n)):
        A.from_numpy(a.astype(np_dt))
        run()
        u, s, v, r, p = (x.to_numpy().astype(np.float64) for x in (U, S, V, R, P))
        np.testing.assert_allclose(u @ s @ v.T, a, atol=tol)
        np.testing.assert_allclose(u.T @ u, np.eye(n), atol=tol)
        np.testing.assert_allclose(v.T @ v, np.eye(n), atol=tol)
        assert abs(np.linalg.det(u) - 1) < tol and abs(np.linalg.det(v) - 1) < tol
        assert np.abs(s - np.diag(np.diag(s))).max() == 0
        singular = np.diag(s)
        np.testing.assert_allclose(np.abs(singular), np.linalg.svd(a, compute_uv=False), atol=tol)
        assert np.all(np.diff(np.abs(singular)) <= tol)  # decreasing
        assert (singular[-1] < 0) == (np.linalg.det(a) < -tol) or abs(singular[-1]) < tol
        np.testing.assert_allclose(r @ p, a, atol=tol)
        np.testing.assert_allclose(p, p.T, atol=tol)
        assert abs(np.linalg.det(r) - 1) < tol


def test_unsupported_sizes_are_clear_errors():
    A = qd.Matrix.field(4, 4, dtype=qd.f32, shape=())

    @qd.kernel
    def run():
        U, S, V = qd.svd(A[None])

    @qd.kernel
    def polar():
        R, P = qd.polar_decompose(A[None])

    with pytest.raises(qd.QuadrantsCompilationError, match=r"Polar decomposition only supports 2×2 and 3×3 matrices, "
                       r"but qd.polar_decompose\(\) was given a 4x4"):
        polar()
    with pytest.raises(qd.QuadrantsCompilationError, match=r"SVD only supports 2×2 and 3×3 matrices, but qd.svd\(\) was given a 4x4"):
        run()
