# qd.linalg: sparse matrices filled by kernels (builder[i, j] += v), their arithmetic, the CG solver, and the
# matrix-free CG/BiCGSTAB solvers over fields, each checked against dense numpy. The direct solver:
# test_linalg_sparse_solver.py.
import numpy as np
import pytest

import quadrants as qd


def _random_entries(rng, n, m, count):
    return rng.integers(0, n, count), rng.integers(0, m, count), rng.normal(size=count)


def _built(n, m, rows, cols, values, dtype=qd.f64, signs=None):
    """A matrix built by a kernel from (rows, cols, values): += for sign 1, -= for sign -1 (duplicates sum)."""
    builder = qd.linalg.SparseMatrixBuilder(n, m, max_num_triplets=len(values), dtype=dtype)
    signs = np.ones(len(values), np.int32) if signs is None else signs

    @qd.kernel
    def fill(b: qd.types.sparse_matrix_builder(), r: qd.types.ndarray(), c: qd.types.ndarray(),
             v: qd.types.ndarray(), s: qd.types.ndarray()):
        for k in range(r.shape[0]):
            if s[k] > 0:
                b[r[k], c[k]] += v[k]
            else:
                b[r[k], c[k]] -= v[k]

    np_dtype = np.float32 if dtype == qd.f32 else np.float64
    fill(builder, rows.astype(np.int32), cols.astype(np.int32), values.astype(np_dtype), signs)
    return builder.build()


def _dense(n, m, rows, cols, values, signs=None):
    dense = np.zeros((n, m))
    np.add.at(dense, (rows, cols), values * (1 if signs is None else signs))
    return dense


def test_builder_sums_duplicates_and_subtracts():
    rng = np.random.default_rng(0)
    rows, cols, values = _random_entries(rng, 7, 5, 200)  # many duplicates in 35 cells
    signs = np.where(rng.random(200) < 0.3, -1, 1).astype(np.int32)
    A = _built(7, 5, rows, cols, values, signs=signs)
    assert A.shape == (7, 5)
    np.testing.assert_allclose(A.to_numpy(), _dense(7, 5, rows, cols, values, signs), rtol=1e-12, atol=1e-12)
    assert A[6, 4] == pytest.approx(_dense(7, 5, rows, cols, values, signs)[6, 4])


def test_builder_is_empty_after_build():
    A = _built(3, 3, np.array([0, 1]), np.array([0, 1]), np.array([2.0, 3.0]))
    builder = qd.linalg.SparseMatrixBuilder(3, 3, max_num_triplets=4)
    assert builder.build().to_numpy().sum() == 0
    np.testing.assert_array_equal(A.to_numpy(), np.diag([2.0, 3.0, 0.0]))


def test_too_many_triplets_is_an_error_not_a_silent_drop():
    builder = qd.linalg.SparseMatrixBuilder(4, 4, max_num_triplets=3)

    @qd.kernel
    def fill(b: qd.types.sparse_matrix_builder()):
        for i in range(4):
            b[i, i] += 1.0

    fill(builder)
    with pytest.raises(qd.QuadrantsRuntimeError, match="added 4 triplets, more than max_num_triplets=3"):
        builder.build()


def test_arithmetic_matches_dense():
    rng = np.random.default_rng(1)
    a = _random_entries(rng, 6, 6, 15)
    b = _random_entries(rng, 6, 6, 15)
    c = _random_entries(rng, 6, 4, 10)
    A, B, C = _built(6, 6, *a), _built(6, 6, *b), _built(6, 4, *c)
    dA, dB, dC = _dense(6, 6, *a), _dense(6, 6, *b), _dense(6, 4, *c)
    for got, expected in [(A + B, dA + dB), (A - B, dA - dB), (A * 2.5, dA * 2.5), (3 * A, 3 * dA),
                          (A * B, dA * dB), (A @ B, dA @ dB), (A @ C, dA @ dC), (C.transpose(), dC.T)]:
        np.testing.assert_allclose(got.to_numpy(), expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="cannot multiply"):
        C @ A


def test_matrix_vector_product_keeps_the_container_kind():
    rng = np.random.default_rng(2)
    a = _random_entries(rng, 5, 3, 9)
    A = _built(5, 3, *a)
    x = qd.ndarray(qd.f64, 3)
    x.from_numpy(np.array([1.0, -2.0, 0.5]))
    y = A @ x
    assert isinstance(y, qd.Ndarray)
    np.testing.assert_allclose(y.to_numpy(), _dense(5, 3, *a) @ x.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(A @ np.ones(3), _dense(5, 3, *a).sum(axis=1), rtol=1e-12)


def test_element_writes_and_triplet_ndarrays():
    A = qd.linalg.SparseMatrix(n=4, m=4, dtype=qd.f64)
    triplets = qd.Vector.ndarray(3, qd.f32, shape=3)
    triplets.from_numpy(np.array([[0, 1, 2.0], [3, 3, 4.0], [0, 1, 1.0]], np.float32))
    A.build_from_ndarray(triplets)
    A[2, 0] = 7.0  # a new entry
    A[3, 3] = -1.0  # an existing one
    expected = np.zeros((4, 4))
    expected[0, 1], expected[3, 3], expected[2, 0] = 3.0, -1.0, 7.0
    np.testing.assert_array_equal(A.to_numpy(), expected)
    with pytest.raises(IndexError, match=r"\(4, 0\) is outside the 4x4"):
        A[4, 0]


def test_sparse_cg_converges_on_a_laplacian():
    n = 50  # 1-d Laplacian plus a shift: tridiagonal, symmetric positive definite
    i = np.arange(n)
    rows = np.concatenate([i, i[1:], i[:-1]])
    cols = np.concatenate([i, i[:-1], i[1:]])
    values = np.concatenate([np.full(n, 2.1), -np.ones(n - 1), -np.ones(n - 1)])
    A = _built(n, n, rows, cols, values)
    b = np.linspace(-1, 1, n)
    x, converged = qd.linalg.SparseCG(A, b, max_iter=200, atol=1e-10).solve()
    assert converged
    np.testing.assert_allclose(x, np.linalg.solve(_dense(n, n, rows, cols, values), b), rtol=1e-8, atol=1e-9)
    _, converged = qd.linalg.SparseCG(A, b, max_iter=2, atol=1e-10).solve()
    assert not converged


@pytest.mark.parametrize("solver", ["MatrixFreeCG", "MatrixFreeBICGSTAB"])
def test_matrix_free_solvers_on_fields(solver):
    n = 40
    x = qd.field(qd.f64, shape=n)
    b = qd.field(qd.f64, shape=n)
    Ax = qd.field(qd.f64, shape=n)
    skew = 0.0 if solver == "MatrixFreeCG" else 0.4  # BiCGSTAB gets a non-symmetric operator

    @qd.kernel
    def apply(v: qd.template(), out: qd.template()):
        for k in range(n):
            left = v[k - 1] if k > 0 else 0.0
            right = v[k + 1] if k < n - 1 else 0.0
            out[k] = 3.0 * v[k] - (1.0 + skew) * left - (1.0 - skew) * right

    b.from_numpy(np.cos(np.arange(n)))
    converged = getattr(qd.linalg, solver)(qd.linalg.LinearOperator(apply), b, x, tol=1e-10, maxiter=500)
    assert converged
    apply(x, Ax)
    np.testing.assert_allclose(Ax.to_numpy(), b.to_numpy(), atol=1e-9)
