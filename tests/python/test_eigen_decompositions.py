# qd.sym_eig, qd.make_spd and qd.eig inside kernels (eigen_decompositions.py), against numpy, with upstream's
# conventions: sym_eig's eigenvalues ascending with the eigenvectors as matching orthonormal columns; eig's
# packed complex layout (rows of (real, imaginary) eigenvalues, 4x2 eigenvectors of (re, im) entries).
import numpy as np
import pytest

import quadrants as qd

_FLOAT_TYPES = [(qd.f32, np.float32, 2e-5), (qd.f64, np.float64, 1e-12)]


def _random_orthogonal(n, rng):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def _symmetric_cases(n, rng):
    """Random symmetric matrices and the degenerate ones Jacobi methods get wrong most easily."""
    yield np.zeros((n, n))
    yield np.eye(n)
    yield -2.5 * np.eye(n)
    yield np.diag(rng.permutation(np.arange(n, dtype=float)) - 1.0)  # diagonal, unsorted
    q = _random_orthogonal(n, rng)
    yield q @ np.diag([1.0] * (n // 2) + [3.0] * (n - n // 2)) @ q.T  # two repeated eigenvalues
    yield q @ np.diag([2.0] * (n - 1) + [-1.0]) @ q.T  # one simple eigenvalue, the rest equal
    u = rng.standard_normal(n)
    yield np.outer(u, u)  # rank one: n - 1 zero eigenvalues
    yield q @ np.diag(np.arange(n) * 1e-4 + 1.0) @ q.T  # a tight cluster
    a = np.full((n, n), 1.0)
    a[0, 0] = 3.0
    yield a
    for _ in range(24):
        m = rng.standard_normal((n, n))
        yield m + m.T


def _check_sym_eig(a, values, vectors, tol):
    n = a.shape[0]
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a), atol=tol * scale * n)
    assert np.all(np.diff(values) >= 0), f"eigenvalues not ascending: {values}"
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(n), atol=tol * n)
    np.testing.assert_allclose(a @ vectors, vectors * values, atol=tol * scale * n)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("dt, np_dt, tol", _FLOAT_TYPES)
def test_sym_eig_matches_numpy(n, dt, np_dt, tol):
    cases = [a.astype(np_dt) for a in _symmetric_cases(n, np.random.default_rng(n))]
    A = qd.Matrix.field(n, n, dtype=dt, shape=len(cases))
    values = qd.Vector.field(n, dtype=dt, shape=len(cases))
    vectors = qd.Matrix.field(n, n, dtype=dt, shape=len(cases))

    @qd.kernel
    def run():
        for i in A:
            values[i], vectors[i] = qd.sym_eig(A[i], dt)

    A.from_numpy(np.stack(cases))
    run()
    for a, w, v in zip(cases, values.to_numpy(), vectors.to_numpy()):
        _check_sym_eig(a.astype(np.float64), w.astype(np.float64), v.astype(np.float64), tol)


@pytest.mark.parametrize("dt, np_dt, tol", _FLOAT_TYPES)
def test_sym_eig_at_a_kernels_top_level_and_diagonal_input(dt, np_dt, tol):
    """Outside any loop the sweep loop must stay serial; a diagonal input gives permuted unit vectors."""
    A = qd.Matrix.field(3, 3, dtype=dt, shape=())
    values = qd.Vector.field(3, dtype=dt, shape=())
    vectors = qd.Matrix.field(3, 3, dtype=dt, shape=())

    @qd.kernel
    def run():
        values[None], vectors[None] = qd.sym_eig(A[None])

    A.from_numpy(np.diag([2.0, -1.0, 5.0]).astype(np_dt))
    run()
    np.testing.assert_array_equal(values.to_numpy(), [-1.0, 2.0, 5.0])
    np.testing.assert_array_equal(np.abs(vectors.to_numpy()), [[0, 1, 0], [1, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize("scale", [1e-15, 1e15])
def test_sym_eig_keeps_relative_accuracy_at_extreme_scales_in_f32(scale):
    m = np.random.default_rng(7).standard_normal((4, 4))
    a = (m + m.T).astype(np.float32)
    A = qd.Matrix.field(4, 4, dtype=qd.f32, shape=())
    values = qd.Vector.field(4, dtype=qd.f32, shape=())
    vectors = qd.Matrix.field(4, 4, dtype=qd.f32, shape=())

    @qd.kernel
    def run():
        values[None], vectors[None] = qd.sym_eig(A[None], qd.f32)

    A.from_numpy(a * np.float32(scale))
    run()
    np.testing.assert_allclose(values.to_numpy() / scale, np.linalg.eigvalsh(a.astype(np.float64)), atol=1e-5)
    v = vectors.to_numpy().astype(np.float64)
    np.testing.assert_allclose(v.T @ v, np.eye(4), atol=1e-5)


def test_sym_eig_reads_the_upper_triangle():
    A = qd.Matrix.field(3, 3, dtype=qd.f64, shape=())
    values = qd.Vector.field(3, dtype=qd.f64, shape=())
    vectors = qd.Matrix.field(3, 3, dtype=qd.f64, shape=())

    @qd.kernel
    def run():
        values[None], vectors[None] = qd.sym_eig(A[None], qd.f64)

    upper = np.array([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [0.0, 0.0, 6.0]])
    A.from_numpy(upper + np.tril(np.full((3, 3), 9.0), -1))
    run()
    symmetric = np.triu(upper) + np.triu(upper, 1).T
    _check_sym_eig(symmetric, values.to_numpy(), vectors.to_numpy(), 1e-12)


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("dt, np_dt, tol", _FLOAT_TYPES)
def test_make_spd_projects_onto_the_psd_cone(n, dt, np_dt, tol):
    rng = np.random.default_rng(10 + n)
    q = _random_orthogonal(n, rng)
    cases = [
        q @ np.diag(np.linspace(-1.0, 2.0, n)) @ q.T,  # indefinite
        q @ np.diag(-np.linspace(0.5, 2.0, n)) @ q.T,  # negative definite: projects to zero
        q @ np.diag(np.linspace(0.5, 2.0, n)) @ q.T,  # positive definite: unchanged
        np.zeros((n, n)),
    ]
    cases = [a.astype(np_dt) for a in cases]
    A = qd.Matrix.field(n, n, dtype=dt, shape=len(cases))
    once = qd.Matrix.field(n, n, dtype=dt, shape=len(cases))
    twice = qd.Matrix.field(n, n, dtype=dt, shape=len(cases))

    @qd.kernel
    def run():
        for i in A:
            once[i] = qd.make_spd(A[i], dt)
            twice[i] = qd.make_spd(once[i], dt)

    A.from_numpy(np.stack(cases))
    run()
    for a, p, pp in zip(cases, once.to_numpy(), twice.to_numpy()):
        e, v = np.linalg.eigh(a.astype(np.float64))
        expected = v @ np.diag(np.clip(e, 0.0, None)) @ v.T
        np.testing.assert_allclose(p, expected, atol=tol * 10 * n)
        np.testing.assert_array_equal(p, p.T)
        np.testing.assert_allclose(pp, p, atol=tol * 10 * n)
    np.testing.assert_allclose(once.to_numpy()[1], 0.0, atol=tol * 10 * n)


def _complex_eig(values, vectors):
    return values[:, 0] + 1j * values[:, 1], vectors[0::2, :] + 1j * vectors[1::2, :]


def _eig_cases(rng):
    yield np.array([[1.0, 1.0], [2.0, 3.0]])
    yield np.array([[1.0, -1.0], [1.0, 1.0]])  # 1 ± i
    yield np.array([[0.0, -2.0], [3.0, 0.0]])  # purely imaginary
    yield np.array([[2.0, 0.0], [0.0, 2.0]])  # a scalar matrix: any basis
    yield np.array([[2.0, 0.0], [0.0, 5.0]])
    yield np.array([[5.0, 0.0], [1.0, 2.0]])  # triangular
    yield np.array([[1.0, 1.0], [0.0, 1.0]])  # a Jordan block: one eigenvector, twice
    yield np.array([[5.0, 3.0], [3.0, 2.0]])  # symmetric
    for _ in range(30):
        yield rng.standard_normal((2, 2))


@pytest.mark.parametrize("dt, np_dt, tol", _FLOAT_TYPES)
def test_eig_2x2_matches_numpy(dt, np_dt, tol):
    cases = [a.astype(np_dt) for a in _eig_cases(np.random.default_rng(3))]
    A = qd.Matrix.field(2, 2, dtype=dt, shape=len(cases))
    values = qd.Matrix.field(2, 2, dtype=dt, shape=len(cases))
    vectors = qd.Matrix.field(4, 2, dtype=dt, shape=len(cases))

    @qd.kernel
    def run():
        for i in A:
            values[i], vectors[i] = qd.eig(A[i], dt)

    A.from_numpy(np.stack(cases))
    run()
    saw_complex = False
    for a, w, v in zip(cases, values.to_numpy(), vectors.to_numpy()):
        a = a.astype(np.float64)
        lam, x = _complex_eig(w.astype(np.float64), v.astype(np.float64))
        expected = np.linalg.eigvals(a)
        assert np.allclose(np.sort_complex(lam), np.sort_complex(expected), atol=tol * 10), (a, lam, expected)
        if lam[0].imag != 0:
            saw_complex = True
            assert lam[0].imag > 0 and lam[1] == np.conj(lam[0])  # the one with positive imaginary part first
        else:
            assert lam[0].real >= lam[1].real and lam[1].imag == 0  # real: the larger first
        np.testing.assert_allclose(np.linalg.norm(x, axis=0), 1.0, atol=tol * 10)
        np.testing.assert_allclose(a @ x, x * lam, atol=tol * 10 * max(1.0, np.abs(a).max()))
        for k in range(2):  # LAPACK's normalization: the largest entry real (here also positive)
            big = x[np.argmax(np.abs(x[:, k])), k]
            assert big.real > 0 and big.imag == 0
    assert saw_complex
    np.testing.assert_array_equal(vectors.to_numpy()[3], [[1, 0], [0, 0], [0, 1], [0, 0]])  # scalar: the basis
    # extreme scales: the squares inside would overflow or underflow in f32 without rescaling
    for scale in (1e-30, 1e30):
        A.from_numpy(np.stack(cases) * np_dt(scale))
        run()
        for a, w, v in zip(cases, values.to_numpy(), vectors.to_numpy()):
            lam, x = _complex_eig(w.astype(np.float64) / scale, v.astype(np.float64))
            np.testing.assert_allclose(np.sort_complex(lam), np.sort_complex(np.linalg.eigvals(a.astype(np.float64))),
                                       atol=tol * 10)
            np.testing.assert_allclose(np.linalg.norm(x, axis=0), 1.0, atol=tol * 10)


def test_eig_and_sym_eig_default_to_default_fp():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    try:
        A = qd.Matrix.field(2, 2, dtype=qd.f64, shape=())
        sym = qd.Vector.field(2, dtype=qd.f64, shape=())
        gen = qd.Matrix.field(2, 2, dtype=qd.f64, shape=())

        @qd.kernel
        def run():
            sym[None], sym_vectors = qd.sym_eig(A[None])
            gen[None], gen_vectors = qd.eig(A[None])

        A.from_numpy(np.array([[1.0, 1e-9], [1e-9, 1.0 + 1e-12]]))
        run()
        expected = np.linalg.eigvalsh(A.to_numpy())
        np.testing.assert_allclose(sym.to_numpy(), expected, rtol=1e-15)
        np.testing.assert_allclose(gen.to_numpy()[:, 0], expected[::-1], rtol=1e-15)
    finally:
        qd.init(arch=qd.cpu)


@pytest.mark.parametrize(
    "call, shape, message",
    [
        (lambda a: qd.sym_eig(a), (7, 7), r"qd.sym_eig\(\) supports .* up to 6x6, but got 7x7"),
        (lambda a: qd.make_spd(a), (3, 2), r"qd.make_spd\(\) supports symmetric matrices .* but got 3x2"),
        (lambda a: qd.eig(a), (3, 3), r"qd.eig\(\) supports 2x2 matrices, but got 3x3"),
    ],
)
def test_unsupported_sizes_are_clear_errors(call, shape, message):
    A = qd.Matrix.field(*shape, dtype=qd.f32, shape=())

    @qd.kernel
    def run():
        _ = call(A[None])

    with pytest.raises(qd.QuadrantsCompilationError, match=message):
        run()
