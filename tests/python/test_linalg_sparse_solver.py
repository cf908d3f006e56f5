# tests/python/test_linalg_sparse_solver.py: qd.linalg.SparseSolver (Eigen in src/linalg/) on matrices that kernels
# build: every solver type, ordering and dtype on SPD, singular PSD (a stable-fluids pressure matrix) and general
# matrices; the analyze/factorize/solve split; info() after a breakdown; right-hand side kinds; bad input.
import numpy as np
import pytest

import quadrants as qd

SOLVER_TYPES = ["LLT", "LDLT", "LU"]
ORDERINGS = ["AMD", "COLAMD"]
DTYPES = [qd.f32, qd.f64]


def _np_dtype(dtype):
    return np.float32 if dtype == qd.f32 else np.float64


def _tolerance(dtype):
    return 2e-4 if dtype == qd.f32 else 1e-10


def _laplacian(res, dtype, neumann, skew=0.0):
    """The 5-point Laplacian of a res x res grid, filled by a kernel as Taichi's stable_fluid.py does. neumann:
    walls all around, the diagonal counts only real neighbours, so every row sums to zero and the matrix is
    singular positive semi-definite (constants are its null space). Otherwise the diagonal is 4 (Dirichlet,
    SPD); skew makes it a convection-diffusion matrix (not symmetric)."""
    n = res * res
    builder = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=n * 6, dtype=dtype)

    @qd.kernel
    def fill(A: qd.types.sparse_matrix_builder()):
        for i, j in qd.ndrange(res, res):
            row = i * res + j
            center = 0.0
            if j != 0:
                A[row, row - 1] += -1.0 - skew
                center += 1.0
            if j != res - 1:
                A[row, row + 1] += -1.0 + skew
                center += 1.0
            if i != 0:
                A[row, row - res] += -1.0
                center += 1.0
            if i != res - 1:
                A[row, row + res] += -1.0
                center += 1.0
            if qd.static(neumann):
                A[row, row] += center
            else:
                A[row, row] += 4.0

    fill(builder)
    return builder.build()


def _zero_mean(n, dtype, seed=0):
    b = np.random.default_rng(seed).standard_normal(n)
    return (b - b.mean()).astype(_np_dtype(dtype))


def _relative_residual(A, x, b):
    dense_free = A._dot(np.asarray(x, _np_dtype(A.dtype))).astype(np.float64) - b
    return np.linalg.norm(dense_free) / np.linalg.norm(b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ordering", ORDERINGS)
@pytest.mark.parametrize("solver_type", SOLVER_TYPES)
def test_every_solver_on_a_symmetric_positive_definite_matrix(solver_type, ordering, dtype):
    A = _laplacian(9, dtype, neumann=False)
    b = qd.field(dtype, shape=81)
    b.from_numpy(np.linspace(-1.0, 2.0, 81).astype(_np_dtype(dtype)))
    solver = qd.linalg.SparseSolver(dtype=dtype, solver_type=solver_type, ordering=ordering)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info()
    x = solver.solve(b)
    assert isinstance(x, np.ndarray) and x.dtype == _np_dtype(dtype) and x.shape == (81,)
    expected = np.linalg.solve(A.to_numpy().astype(np.float64), b.to_numpy().astype(np.float64))
    np.testing.assert_allclose(x, expected, rtol=_tolerance(dtype), atol=_tolerance(dtype))


# Eigen's SimplicialLLT alone (upstream 1.3.3's LLT) reports failure at res 8 with AMD (f32 and f64) and with
# COLAMD (f64), and at res 16 with AMD (f64): rounding leaves the zero pivot slightly negative there.
@pytest.mark.parametrize("res", [8, 16, 64])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ordering", ORDERINGS)
@pytest.mark.parametrize("solver_type", SOLVER_TYPES)
def test_every_solver_on_the_singular_neumann_laplacian(solver_type, ordering, dtype, res):
    A = _laplacian(res, dtype, neumann=True)
    assert np.abs(A._dot(np.ones(res * res, _np_dtype(dtype)))).max() == 0  # constants: the null space
    b = _zero_mean(res * res, dtype)
    solver = qd.linalg.SparseSolver(dtype=dtype, solver_type=solver_type, ordering=ordering)
    solver.analyze_pattern(A)
    solver.factorize(A)
    assert solver.info()
    x = solver.solve(b)
    # the singular direction costs f32 a few digits more than an SPD matrix of this size
    assert _relative_residual(A, x, b) < 50 * _tolerance(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ordering", ORDERINGS)
def test_lu_on_a_general_matrix(ordering, dtype):
    A = _laplacian(8, dtype, neumann=False, skew=0.7)
    dense = A.to_numpy().astype(np.float64)
    assert not np.allclose(dense, dense.T)
    b = np.cos(np.arange(64.0))
    solver = qd.linalg.SparseSolver(dtype=dtype, solver_type="LU", ordering=ordering)
    solver.compute(A)
    assert solver.info()
    np.testing.assert_allclose(solver.solve(b), np.linalg.solve(dense, b), rtol=_tolerance(dtype),
                               atol=_tolerance(dtype))


@pytest.mark.parametrize("solver_type", ["LLT", "LDLT"])
def test_cholesky_reads_only_the_lower_triangle(solver_type):
    # as Eigen's SimplicialLLT/LDLT<Lower> (upstream's): the upper triangle is never read
    A = _laplacian(5, qd.f64, neumann=False)
    lower_only = qd.linalg.SparseMatrix(25, 25, dtype=qd.f64)
    lower_only.build_from_ndarray(np.array([[i, j, A[i, j]] for i in range(25) for j in range(i + 1)
                                            if A[i, j] != 0.0]))
    b = np.arange(25.0)
    solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type=solver_type)
    solver.compute(lower_only)
    np.testing.assert_allclose(solver.solve(b), np.linalg.solve(A.to_numpy(), b), rtol=1e-12)


@pytest.mark.parametrize("solver_type", SOLVER_TYPES)
def test_analyze_once_factorize_and_solve_many_times(solver_type):
    A = _laplacian(6, qd.f64, neumann=False)
    solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type=solver_type)
    assert not solver.info()  # nothing factorized yet
    solver.analyze_pattern(A)
    solver.factorize(A)
    b1, b2 = np.ones(36), np.arange(36.0)
    x1, x2 = solver.solve(b1), solver.solve(b2)
    np.testing.assert_allclose(A @ x1, b1, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A @ x2, b2, rtol=1e-12, atol=1e-12)
    solver.factorize(A * 4.0)  # new values, the analyzed pattern
    assert solver.info()
    np.testing.assert_allclose(solver.solve(b1), x1 / 4.0, rtol=1e-12)
    # another pattern (a coupling of the first and last unknowns): analyzed again rather than written past
    # the factor's structure
    coupling = qd.linalg.SparseMatrix(36, 36, dtype=qd.f64)
    coupling.build_from_ndarray(np.array([[0, 35, -0.5], [35, 0, -0.5]]))
    coupled = A + coupling
    solver.factorize(coupled)
    assert solver.info()
    np.testing.assert_allclose(coupled @ solver.solve(b2), b2, rtol=1e-12, atol=1e-11)


def test_info_reports_a_failed_factorization():
    indefinite = qd.linalg.SparseMatrix(3, 3, dtype=qd.f64)
    indefinite.build_from_ndarray(np.array([[0, 0, 2.0], [1, 1, -1.0], [2, 2, 3.0]]))
    llt = qd.linalg.SparseSolver(dtype=qd.f64, solver_type="LLT")
    llt.compute(indefinite)
    assert llt.info() is False  # as upstream reports Eigen's NumericalIssue
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"the last factorization failed \(info\(\) is False\)"):
        llt.solve(np.ones(3))
    ldlt = qd.linalg.SparseSolver(dtype=qd.f64, solver_type="LDLT")  # LDL^T needs no definiteness
    ldlt.compute(indefinite)
    assert ldlt.info() is True
    np.testing.assert_allclose(ldlt.solve(np.array([2.0, 1.0, 3.0])), [1.0, -1.0, 1.0])
    singular = qd.linalg.SparseMatrix(3, 3, dtype=qd.f64)  # row 1 is empty
    singular.build_from_ndarray(np.array([[0, 0, 2.0], [0, 2, 1.0], [2, 0, 1.0], [2, 2, 3.0]]))
    for solver_type in SOLVER_TYPES:
        solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type=solver_type)
        solver.compute(singular)
        assert solver.info() is False, solver_type
    llt.compute(_laplacian(3, qd.f64, neumann=False))  # a later good factorization clears it
    assert llt.info() is True


@pytest.mark.parametrize("dtype", DTYPES)
def test_right_hand_side_kinds(dtype):
    A = _laplacian(4, dtype, neumann=False)
    expected = np.linalg.solve(A.to_numpy().astype(np.float64), np.arange(16.0))
    solver = qd.linalg.SparseSolver(dtype=dtype, solver_type="LDLT")
    solver.compute(A)
    tol = _tolerance(dtype)
    for b in (np.arange(16.0), np.arange(16, dtype=np.float32), list(range(16))):
        x = solver.solve(b)
        assert isinstance(x, np.ndarray) and x.dtype == _np_dtype(dtype)
        np.testing.assert_allclose(x, expected, rtol=tol, atol=tol)
    field = qd.field(qd.f64, shape=16)
    field.from_numpy(np.arange(16.0))
    np.testing.assert_allclose(solver.solve(field), expected, rtol=tol, atol=tol)
    for nd_dtype in DTYPES:  # an ndarray gives an ndarray of its own dtype, as upstream
        nd = qd.ndarray(nd_dtype, 16)
        nd.from_numpy(np.arange(16.0).astype(_np_dtype(nd_dtype)))
        x = solver.solve(nd)
        assert isinstance(x, qd.Ndarray) and x.dtype == nd_dtype and x.shape == (16,)
        nd_tol = max(tol, _tolerance(nd_dtype))  # an f64 solution stored as f32 keeps f32's digits
        np.testing.assert_allclose(x.to_numpy(), expected, rtol=nd_tol, atol=nd_tol)


def test_a_large_system_stays_sparse():
    # 300 x 300 grid, 90,000 unknowns: a dense factorization would need 65 GB; the sparse one takes well under
    # a second here.
    A = _laplacian(300, qd.f64, neumann=True)
    b = _zero_mean(90_000, qd.f64)
    solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type="LLT")
    solver.compute(A)
    assert solver.info()
    assert _relative_residual(A, solver.solve(b), b) < 1e-9


def test_bad_input_gets_errors_that_name_it():
    A = _laplacian(3, qd.f64, neumann=False)
    with pytest.raises(ValueError, match=r"solver_type must be one of \('LLT', 'LDLT', 'LU'\), but got 'QR'"):
        qd.linalg.SparseSolver(solver_type="QR")
    with pytest.raises(ValueError, match=r"ordering must be one of \('AMD', 'COLAMD'\), but got 'METIS'"):
        qd.linalg.SparseSolver(ordering="METIS")
    with pytest.raises(TypeError, match="dtype must be qd.f32 or qd.f64, but got"):
        qd.linalg.SparseSolver(dtype=qd.i32)
    solver = qd.linalg.SparseSolver(dtype=qd.f32)  # upstream's default dtype
    with pytest.raises(TypeError, match="the matrix holds f64 values, but the solver was made for f32"):
        solver.analyze_pattern(A)
    solver = qd.linalg.SparseSolver(dtype=qd.f64)
    with pytest.raises(TypeError, match="expected a qd.linalg.SparseMatrix, but got ndarray"):
        solver.compute(A.to_numpy())
    wide = qd.linalg.SparseMatrix(2, 3, dtype=qd.f64)
    with pytest.raises(ValueError, match=r"analyze_pattern\(\): the matrix must be square, but is 2x3"):
        solver.analyze_pattern(wide)
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"call analyze_pattern\(\) with the matrix first"):
        solver.factorize(A)
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"call analyze_pattern\(\) and factorize\(\)"):
        solver.solve(np.ones(9))
    solver.analyze_pattern(A)
    with pytest.raises(ValueError, match="the matrix is 4x4, but analyze_pattern.. was given one of 9 rows"):
        solver.factorize(_laplacian(2, qd.f64, neumann=False))
    solver.factorize(A)
    with pytest.raises(ValueError, match=r"the right-hand side must have 9 values, but has shape \(8,\)"):
        solver.solve(np.ones(8))
    with pytest.raises(ValueError, match=r"must have 9 values, but has shape \(9, 1\)"):
        solver.solve(np.ones((9, 1)))
