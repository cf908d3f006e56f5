# tests/python/compat_probes/library.py: probes of the compatibility rows about qd.math, decompositions, qd.simt,
# tiles, sorting and qd.linalg.
import warnings

import numpy as np
import pytest

import quadrants as qd
from compat_probes.registry import probe
from compat_probes.util import same
from quadrants.lang import impl
from quadrants.runtime import _core


@probe("`qd.math`, `qd.solve`, `qd.svd`, `qd.polar_decompose` (2x2, 3x3), `qd.sym_eig` and `qd.make_spd` "
       "(symmetric 2x2 to 6x6), `qd.eig` (2x2)")
def math_and_decompositions():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    A = qd.Matrix.field(3, 3, qd.f64, shape=())
    B = qd.Matrix.field(2, 2, qd.f64, shape=())
    out = qd.field(qd.f64, shape=8)

    @qd.kernel
    def run():
        a = A[None]
        x = qd.solve(a, qd.Vector([1.0, 2.0, 3.0]))
        out[0] = (a @ x - qd.Vector([1.0, 2.0, 3.0])).norm()
        U, S, V = qd.svd(a)
        out[1] = (U @ S @ V.transpose() - a).norm()
        R, P = qd.polar_decompose(a)
        out[2] = (R @ P - a).norm() + (R.transpose() @ R - qd.Matrix.identity(qd.f64, 3)).norm()
        sym = a + a.transpose()
        values, vectors = qd.sym_eig(sym)
        out[3] = (sym @ vectors - vectors @ qd.Matrix([[values[0], 0, 0], [0, values[1], 0], [0, 0, values[2]]])).norm()
        out[4] = values[0] - values[1]  # ascending: not positive
        out[5] = qd.min(qd.sym_eig(qd.make_spd(sym))[0][0], 1.0)  # a positive semi-definite result: not negative
        ev, _ = qd.eig(B[None])
        out[6] = ev[0, 0] + ev[1, 0]  # the real parts sum to the trace
        out[7] = qd.math.clamp(qd.math.length(qd.math.vec2(3.0, 4.0)), 0.0, 10.0)
        z = qd.math.cmul(qd.math.vec2(1.0, 2.0), qd.math.cdiv(qd.math.vec2(3.0, -1.0), qd.math.vec2(1.0, 2.0)))
        out[7] += (z - qd.math.vec2(3.0, -1.0)).norm() + qd.math.mod(-7.0, 3.0) - 2.0  # (1+2i)(3-i)/(1+2i), 2

    A.from_numpy(np.array([[4.0, 1.0, 0.5], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]]))
    B.from_numpy(np.array([[1.0, 2.0], [-3.0, 4.0]]))
    run()
    o = out.to_numpy()
    assert max(o[0], o[1], o[2], o[3]) < 1e-9 and o[4] <= 0 and o[5] >= -1e-12, o
    assert o[6] == pytest.approx(5.0) and o[7] == pytest.approx(5.0, abs=1e-12)


@probe("`qd.zero`, `qd.one`, `qd.math.fns`, `impl.get_runtime().get_num_compiled_functions()`")
def small_helpers():
    @qd.kernel
    def k(x: qd.u32) -> qd.u32:
        z = qd.zero(x)
        for _ in range(3):
            z += qd.one(x)
        return z + qd.math.fns(qd.u32(0b101000), qd.u32(0), 2)  # the 2nd set bit from bit 0: bit 5

    before = impl.get_runtime().get_num_compiled_functions()
    assert k(7) == 3 + 5
    assert impl.get_runtime().get_num_compiled_functions() == before + 1


@probe("`qd.simt`: block, subgroup, grid; shared arrays, barriers, shuffles, votes, ballots, block/subgroup "
       "reductions and scans")
def simt_intrinsics():
    bd = 64

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        qd.loop_config(block_dim=bd)
        for i in range(128):
            sh = qd.simt.block.SharedArray((bd,), qd.i32)
            t = qd.simt.block.thread_idx()
            sh[t] = src[i]
            qd.simt.block.sync()
            v = src[i]
            out[i, 0] = sh[bd - 1 - t]  # another thread's value: the barrier held
            out[i, 1] = qd.simt.block.reduce_all_add(v, bd, qd.i32)
            out[i, 2] = qd.simt.block.exclusive_add(v, bd, qd.i32)
            out[i, 3] = qd.simt.subgroup.shuffle(v, 0)
            out[i, 4] = qd.simt.subgroup.reduce_all_add(v)
            out[i, 5] = qd.simt.subgroup.inclusive_add(v)
            out[i, 6] = qd.cast(qd.simt.subgroup.ballot(v % 2 == 1), qd.i32)
            out[i, 7] = qd.simt.subgroup.any_true(v == 3) + 2 * qd.simt.subgroup.all_true(v >= 0)
            qd.simt.grid.mem_fence()

    src = np.arange(128, dtype=np.int32)
    out = np.zeros((128, 8), np.int32)
    k(src, out)
    blocks, warps = src.reshape(-1, bd), src.reshape(-1, 32)
    assert (out[:, 0] == blocks[:, ::-1].ravel()).all()
    assert (out[:, 1] == np.repeat(blocks.sum(1), bd)).all()
    assert (out[:, 2] == (np.cumsum(blocks, 1) - blocks).ravel()).all()
    assert (out[:, 3] == np.repeat(warps[:, 0], 32)).all()
    assert (out[:, 4] == np.repeat(warps.sum(1), 32)).all()
    assert (out[:, 5] == np.cumsum(warps, 1).ravel()).all()
    assert (out[:, 6] == np.int32(np.uint32(0xAAAAAAAA).view(np.int32))).all()
    assert (out[:32, 7] == 3).all() and (out[32:, 7] == 2).all()


@probe("`qd.simt.Tile16x16`, `qd.simt.Tile32x32` (`.zeros` / `.eye`, slices `t[:] = a[r0:r1, c0:c1]` to and from "
       "arrays, fields and shared arrays, `t -= qd.outer(u, v)`, `cholesky_`, `solve_triangular_`)")
def tiles():
    # GPU-only, as upstream: on the CPU (where the probes run) .zeros()/.eye() are its compile error; with CUDA
    # usable the tiles are computed there and checked.
    @qd.kernel
    def on_cpu(a: qd.types.ndarray(dtype=qd.f64, ndim=2)):
        for _ in range(16):
            a[0:16, 0:16] = qd.simt.Tile16x16.zeros(dtype=qd.f64)

    if qd.lang.impl.current_cfg().arch != qd.cuda:  # the probes' qd.init(arch=qd.cpu) is CUDA under QD_ARCH=cuda
        with pytest.raises(qd.QuadrantsSyntaxError, match="Tile16x16 requires a GPU backend"):
            on_cpu(np.zeros((16, 16)))
        if _core.cuda_status() != "":
            return
        qd.init(arch=qd.cuda)
    for T in (qd.simt.Tile16x16, qd.simt.Tile32x32):
        n = T.SIZE

        @qd.kernel
        def k(a: qd.types.ndarray(dtype=qd.f64, ndim=2), u: qd.types.ndarray(dtype=qd.f64, ndim=2),
              b: qd.template(), ident: qd.types.ndarray(dtype=qd.f64, ndim=2)):  # b: a field
            qd.loop_config(block_dim=n)
            for _ in range(n):
                sh = qd.simt.block.SharedArray((n, n), qd.f64)
                t = T.eye(dtype=qd.f64)
                ident[0:n, 0:n] = t
                t[:] = a[0:n, 0:n]
                t -= qd.outer(u[0:n, 0], u[0:n, 0])
                sh[0:n, 0:n] = t
                qd.simt.block.sync()
                low = T.zeros(dtype=qd.f64)
                low[:] = sh[0:n, 0:n]
                low.cholesky_(1e-12)
                a[0:n, 0:n] = low
                x = T.zeros(dtype=qd.f64)
                x[:] = b[0:n, 0:n]
                low.solve_triangular_(x)
                b[0:n, 0:n] = x

        rng = np.random.default_rng(n)
        m = rng.random((n, n))
        u = rng.random((n, 1)) * 0.1
        A = m @ m.T + n * np.eye(n) + u @ u.T  # minus u u^T inside: still positive definite
        a, B = A.copy(), rng.random((n, n))
        b = qd.field(qd.f64, shape=(n, n))
        b.from_numpy(B)
        ident = np.zeros((n, n))
        k(a, u, b, ident)
        assert (ident == np.eye(n)).all()
        L = np.linalg.cholesky(A - u @ u.T)
        same(np.tril(a), L, 1e-9)
        same(b.to_numpy(), np.linalg.solve(L, B.T).T, 1e-9)  # X L^T = B, row by row


@probe("`qd.algorithms.reduce_add` / `_min` / `_max`, `exclusive_scan_add` / `_min` / `_max`, `select`, "
       "`reduce_by_key_add` (called at a kernel's top level); the deprecated `PrefixSumExecutor`")
def composable_algorithms():
    arr, total, prefix = qd.field(qd.i32, shape=6), qd.field(qd.i32, shape=1), qd.field(qd.i32, shape=6)
    flags, picked, count = qd.field(qd.i32, shape=6), qd.field(qd.i32, shape=6), qd.field(qd.i32, shape=1)
    scratch = qd.field(qd.u32, shape=qd.algorithms.select_scratch_slots(6))
    arr.from_numpy(np.array([5, 1, 4, 1, 5, 9], dtype=np.int32))
    flags.from_numpy(np.array([1, 0, 1, 0, 0, 1], dtype=np.int32))

    @qd.kernel
    def run(n: qd.i32):
        qd.algorithms.reduce_max(arr, total, scratch, n, qd.i32, 1)
        qd.algorithms.exclusive_scan_add(arr, prefix, scratch, n, qd.i32, 1)
        qd.algorithms.select(arr, flags, picked, count, scratch, n, 1)

    run(6)
    assert total[0] == 9 and prefix.to_numpy().tolist() == [0, 5, 6, 10, 11, 16]
    assert count[0] == 3 and picked.to_numpy()[:3].tolist() == [5, 4, 9]
    with pytest.warns(DeprecationWarning):
        executor = qd.algorithms.PrefixSumExecutor(6)
    executor.run(arr)
    assert arr.to_numpy().tolist() == [5, 6, 10, 11, 16, 25]


@probe("`qd.algorithms.parallel_sort(keys, values=None)` on 1-D fields (offsets too) and ndarrays; the "
       "`*_scratch_slots` sizing helpers")
def parallel_sort():
    from quadrants.algorithms import reduce_scratch_slots, sort_scratch_slots

    rng = np.random.default_rng(3)
    keys = qd.field(qd.f32, shape=100, offset=-50)
    values = qd.ndarray(qd.i32, shape=100)
    k = rng.standard_normal(100).astype(np.float32)
    keys.from_numpy(k)
    values.from_numpy(np.arange(100, dtype=np.int32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.algorithms.parallel_sort(keys, values)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)  # as upstream
    assert (keys.to_numpy() == np.sort(k)).all() and (values.to_numpy() == np.argsort(k, kind="stable")).all()
    nd = qd.ndarray(qd.i64, shape=50)
    nd.from_numpy(rng.integers(-1000, 1000, 50))
    expected = np.sort(nd.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        qd.algorithms.parallel_sort(nd)
    assert (nd.to_numpy() == expected).all()
    assert sort_scratch_slots(1000, 2) == 1028 and reduce_scratch_slots(1000) > 0
    with pytest.raises(qd.QuadrantsCompilationError, match=r"qd.algorithms.sort\(\) is not supported yet"):
        @qd.kernel
        def composable(a: qd.types.ndarray()):  # the note: the composable sort is not yet there
            qd.algorithms.sort(a, a, a, a, a, a, qd.u32, False, 32, 1)

        composable(qd.ndarray(qd.u32, 8))


@probe("`qd.linalg`: `SparseMatrixBuilder` (`builder[i, j] += v` in kernels), `SparseMatrix`, `SparseSolver` "
       "(`solver_type` `\"LLT\"`, `\"LDLT\"`, `\"LU\"`; `ordering` `\"AMD\"`, `\"COLAMD\"`; f32, f64; "
       "`analyze_pattern` / `factorize` / `compute` / `solve` / `info()`), `SparseCG`, `MatrixFreeCG`, "
       "`MatrixFreeBICGSTAB`")
def sparse_linear_algebra():
    n = 20

    @qd.kernel
    def fill(b: qd.types.sparse_matrix_builder()):
        for i in range(n):  # a shifted 1-d Laplacian: symmetric positive definite
            b[i, i] += 2.5
            if i > 0:
                b[i, i - 1] -= 1.0
                b[i - 1, i] += -1.0

    matrices = {}
    for dtype in (qd.f32, qd.f64):
        builder = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=3 * n, dtype=dtype)
        fill(builder)
        matrices[dtype] = builder.build()
    A = matrices[qd.f64]
    dense = A.to_numpy()
    rhs = np.linspace(-1.0, 1.0, n)
    expected = np.linalg.solve(dense, rhs)
    for solver_type, ordering in (("LLT", "AMD"), ("LDLT", "COLAMD"), ("LU", "AMD")):
        solver = qd.linalg.SparseSolver(dtype=qd.f64, solver_type=solver_type, ordering=ordering)
        solver.analyze_pattern(A)
        solver.factorize(A)
        assert solver.info()
        same(solver.solve(rhs), expected, 1e-10)
    single = qd.linalg.SparseSolver(dtype=qd.f32, solver_type="LDLT")
    single.compute(matrices[qd.f32])
    assert single.info()
    same(single.solve(rhs.astype(np.float32)), expected, 1e-5)
    x, converged = qd.linalg.SparseCG(A, rhs, max_iter=200, atol=1e-12).solve()
    assert converged
    same(x, expected, 1e-8)
    field_x, field_b, field_ax = (qd.field(qd.f64, shape=n) for _ in range(3))

    @qd.kernel
    def apply(v: qd.template(), out: qd.template()):
        for i in range(n):
            out[i] = 2.5 * v[i] - (v[i - 1] if i > 0 else 0.0) - (v[i + 1] if i < n - 1 else 0.0)

    field_b.from_numpy(rhs)
    for name in ("MatrixFreeCG", "MatrixFreeBICGSTAB"):
        field_x.fill(0.0)
        assert getattr(qd.linalg, name)(qd.linalg.LinearOperator(apply), field_b, field_x, tol=1e-12, maxiter=500)
        same(field_x.to_numpy(), expected, 1e-8)
    apply(field_x, field_ax)
    same(field_ax.to_numpy(), rhs, 1e-8)
