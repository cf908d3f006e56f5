# qd.solve(A, b) inside kernels (linear_solve.py), against numpy.linalg.solve.
import numpy as np
import pytest

import quadrants as qd


def _solve_in_kernel(a, b, dtype):
    n = a.shape[1]
    A = qd.Matrix.field(n, n, dtype=dtype, shape=len(a))
    B = qd.Vector.field(n, dtype=dtype, shape=len(a))
    X = qd.Vector.field(n, dtype=dtype, shape=len(a))
    A.from_numpy(a)
    B.from_numpy(b)

    @qd.kernel
    def run():
        for i in range(A.shape[0]):
            X[i] = qd.solve(A[i], B[i], dtype)

    run()
    return X.to_numpy()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("dtype, tol", [(qd.f32, 2e-4), (qd.f64, 1e-10)])
def test_random_systems_match_numpy(n, dtype, tol):
    rng = np.random.default_rng(n)
    a = rng.normal(size=(16, n, n)) + 2 * np.eye(n)
    b = rng.normal(size=(16, n))
    np_dtype = np.float32 if dtype == qd.f32 else np.float64
    x = _solve_in_kernel(a.astype(np_dtype), b.astype(np_dtype), dtype)
    np.testing.assert_allclose(x, np.linalg.solve(a, b[..., None])[..., 0], rtol=tol, atol=tol)


def test_a_zero_leading_entry_needs_the_pivot():
    a = np.array([[[0.0, 2.0, -4.0], [2.0, 3.0, 3.0], [5.0, -3.0, 1.0]]])
    b = np.array([[3.0, 15.0, 14.0]])
    x = _solve_in_kernel(a, b, qd.f64)
    np.testing.assert_allclose(x[0], np.linalg.solve(a[0], b[0]), rtol=1e-12)


def test_shape_errors_name_the_shapes():
    A = qd.Matrix.field(2, 3, dtype=qd.f32, shape=())
    b = qd.Vector.field(2, dtype=qd.f32, shape=())

    @qd.kernel
    def not_square():
        b[None] = qd.solve(A[None], b[None])

    with pytest.raises(qd.QuadrantsCompilationError, match="needs a square matrix A, but got 2x3"):
        not_square()
