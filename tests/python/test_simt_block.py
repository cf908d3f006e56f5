# tests/python/test_simt_block.py: qd.simt against numpy: shared arrays, barriers, block reductions/scans, shuffles.
#
# On the CPU a block's threads are fibers; with QD_TEST_ARCH=cuda the same tests run on the CUDA backend
# (on the driver emulation its blocks are fibers too, and misused intrinsics fail there: see
# test_simt_emulation.py). QD_CHECK_CUDA=1 also compiles every kernel here with NVRTC.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)


def test_shared_array_sum_with_sync():
    n, bd = 256, 64

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            sh = qd.simt.block.SharedArray((bd,), qd.f32)
            tid = qd.simt.block.thread_idx()
            sh[tid] = src[i]
            qd.simt.block.sync()
            # tree reduction in shared memory: a barrier in a serial loop
            stride = bd // 2
            while stride > 0:
                if tid < stride:
                    sh[tid] = sh[tid] + sh[tid + stride]
                qd.simt.block.sync()
                stride //= 2
            if tid == 0:
                out[i // bd] = sh[0]

    src = np.random.default_rng(0).random(n).astype(np.float32)
    out = np.zeros(n // bd, np.float32)
    k(src, out)
    np.testing.assert_allclose(out, src.reshape(-1, bd).sum(1), rtol=1e-5)


def test_reverse_within_block_needs_the_barrier():
    # every thread reads another thread's write: without barrier semantics thread 0 would read stale data
    n, bd = 128, 32

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            sh = qd.simt.block.SharedArray((bd,), qd.i32)
            tid = qd.simt.block.thread_idx()
            sh[tid] = a[i] * 10
            qd.simt.block.sync()
            a[i] = sh[bd - 1 - tid] + qd.simt.block.global_thread_idx() * 0

    a = np.arange(n, dtype=np.int32)
    k(a)
    np.testing.assert_array_equal(a, (np.arange(n).reshape(-1, bd)[:, ::-1] * 10).ravel())


@pytest.mark.parametrize("dtype,np_dtype", [(qd.f32, np.float32), (qd.i32, np.int32), (qd.f64, np.float64)])
def test_block_reduce_all_and_scans(dtype, np_dtype):
    n, bd = 512, 128

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=dtype, ndim=1), total: qd.types.ndarray(dtype=dtype, ndim=1),
          inc: qd.types.ndarray(dtype=dtype, ndim=1), exc: qd.types.ndarray(dtype=dtype, ndim=1),
          mx: qd.types.ndarray(dtype=dtype, ndim=1)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            v = src[i]
            total[i] = qd.simt.block.reduce_all_add(v, bd, dtype)
            inc[i] = qd.simt.block.inclusive_add(v, bd, dtype)
            exc[i] = qd.simt.block.exclusive_add(v, bd, dtype)
            m = qd.simt.block.reduce_max(v, bd, dtype)
            if qd.simt.block.thread_idx() == 0:
                mx[i // bd] = m

    rng = np.random.default_rng(1)
    src = (rng.integers(-50, 50, n)).astype(np_dtype)
    total, inc, exc = (np.zeros(n, np_dtype) for _ in range(3))
    mx = np.zeros(n // bd, np_dtype)
    k(src, total, inc, exc, mx)
    blocks = src.reshape(-1, bd)
    np.testing.assert_allclose(total, np.repeat(blocks.sum(1), bd))
    np.testing.assert_allclose(inc, np.cumsum(blocks, 1).ravel())
    np.testing.assert_allclose(exc, (np.cumsum(blocks, 1) - blocks).ravel())
    np.testing.assert_allclose(mx, blocks.max(1))


def test_subgroup_shuffles_and_reductions():
    n, bd = 128, 64

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            sg = qd.simt.subgroup
            v = src[i]
            lane = sg.invocation_id()
            out[i, 0] = sg.shuffle(v, qd.u32((lane // 4) * 4 + 3 - lane % 4))
            out[i, 1] = sg.shuffle_down(v, qd.u32(1))
            out[i, 2] = sg.shuffle_up(v, qd.u32(2))
            out[i, 3] = sg.shuffle_xor(v, qd.u32(1))
            out[i, 4] = sg.reduce_all_add(v)
            out[i, 5] = sg.reduce_add(v)
            out[i, 6] = sg.inclusive_add(v)
            out[i, 7] = sg.reduce_all_min(v)
            out[i, 8] = qd.cast(sg.ballot_first_n(qd.i32(v > 0.5), 32), qd.f32)

    src = np.random.default_rng(2).random(n).astype(np.float32)
    out = np.zeros((n, 9), np.float32)
    k(src, out)
    w = src.reshape(-1, 32)
    lanes = np.arange(32)
    np.testing.assert_array_equal(out[:, 0], w[:, (lanes // 4) * 4 + 3 - lanes % 4].ravel())
    np.testing.assert_array_equal(out[:, 1], np.where(lanes < 31, w[:, np.minimum(lanes + 1, 31)], w).ravel())
    np.testing.assert_array_equal(out[:, 2], np.where(lanes >= 2, w[:, np.maximum(lanes - 2, 0)], w).ravel())
    np.testing.assert_array_equal(out[:, 3], w[:, lanes ^ 1].ravel())
    np.testing.assert_allclose(out[:, 4], np.repeat(w.sum(1), 32), rtol=1e-5)
    np.testing.assert_allclose(out[::32, 5], w.sum(1), rtol=1e-5)
    np.testing.assert_allclose(out[:, 6], np.cumsum(w, 1).ravel(), rtol=1e-5)
    np.testing.assert_array_equal(out[:, 7], np.repeat(w.min(1), 32))
    bits = ((w > 0.5) << lanes).sum(1).astype(np.uint32)
    np.testing.assert_array_equal(out[::32, 8].astype(np.uint32), bits.astype(np.float32).astype(np.uint32))


def test_sync_count_and_votes():
    n, bd = 96, 96  # a block of three subgroups

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            p = src[i]
            out[i, 0] = qd.simt.block.sync_count_nonzero(p)
            out[i, 1] = qd.simt.block.sync_all_nonzero(p)
            out[i, 2] = qd.simt.block.sync_any_nonzero(p)
            out[i, 3] = qd.simt.subgroup.any_true(p)
            out[i, 4] = qd.simt.subgroup.all_true(1 - p * 0)

    src = np.zeros(n, np.int32)
    src[[3, 40, 41]] = 1
    out = np.zeros((n, 5), np.int32)
    k(src, out)
    assert (out[:, 0] == 3).all() and (out[:, 1] == 0).all() and (out[:, 2] == 1).all()
    np.testing.assert_array_equal(out[:, 3], np.repeat([1, 1, 0], 32))
    assert (out[:, 4] == 1).all()


def test_partial_last_block_and_continue():
    # 100 iterations in blocks of 32: the last block has 4 threads; threads that `continue` stop counting
    n, bd = 100, 32

    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=bd)
        for i in range(n):
            if i % 2 == 1:
                continue
            out[i] = qd.simt.block.sync_count_nonzero(1)

    out = np.zeros(n, np.int32)
    k(out)
    expected = np.where(np.arange(n) % 2 == 0, np.where(np.arange(n) < 96, 16, 2), 0)
    np.testing.assert_array_equal(out, expected)


def test_simt_outside_parallel_loop_is_an_error():
    @qd.kernel
    def k():
        qd.simt.block.sync()

    with pytest.raises(qd.QuadrantsSyntaxError, match="only inside the outermost"):
        k()


@pytest.mark.cpu_only  # CUDA hangs here; the emulation's report is in test_simt_emulation.py
def test_divergent_subgroup_and_block_barrier_is_reported():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(32):
            if i < 16:
                out[i] = qd.simt.subgroup.shuffle(i, qd.u32(0))
            else:
                qd.simt.block.sync()

    with pytest.raises(RuntimeError, match="stopped waiting for each other"):
        k(np.zeros(32, np.int32))


@pytest.mark.parametrize("where", ["load", "store", "atomic"])
def test_shared_index_out_of_range_is_an_index_error_in_debug_mode(where):
    qd.init(arch=qd.cpu, debug=True)
    bd = 32

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), bad: qd.i32):
        qd.loop_config(block_dim=bd)
        for i in range(64):
            sh = qd.simt.block.SharedArray((bd, 2), qd.i32)
            tid = qd.simt.block.thread_idx()
            row = tid
            if i == 37:
                row = bad
            if qd.static(where == "store"):
                sh[row, 1] = i
            else:
                sh[tid, 1] = i
            qd.simt.block.sync()
            if qd.static(where == "load"):
                a[i] = sh[row, 1]
            elif qd.static(where == "atomic"):
                qd.atomic_add(sh[row, 1], 1)
            else:
                a[i] = sh[tid, 1]

    a = np.zeros(64, np.int32)
    k(a, 3)  # in range: runs
    with pytest.raises(IndexError, match=r"index \(40, 1\) is out of bounds for a qd.simt.block.SharedArray of "
                                         r"shape \(32, 2\) in dimension 0"):
        k(a, 40)
        qd.sync()


def test_shared_index_out_of_range_is_clamped_in_release_mode():
    # documented behaviour (docs/IR.md): an index past the extent reads/writes the nearest element of the array
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(32):
            sh = qd.simt.block.SharedArray((32,), qd.i32)
            sh[i] = i * 10
            qd.simt.block.sync()
            a[i] = sh[i + 100] + sh[i - 100]

    a = np.zeros(32, np.int32)
    k(a)
    np.testing.assert_array_equal(a, np.full(32, 310))


def test_shared_array_of_vectors_and_matrices():
    bd = 32

    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        qd.loop_config(block_dim=bd)
        for i in range(64):
            vs = qd.simt.block.SharedArray((bd,), qd.math.vec3)
            ms = qd.simt.block.SharedArray(bd, qd.types.matrix(2, 2, qd.f32))
            tid = qd.simt.block.thread_idx()
            x = src[i]
            vs[tid] = qd.Vector([x, x + 1, x + 2])
            ms[tid] = qd.Matrix([[x, 2 * x], [3 * x, 4 * x]])
            vs[tid].y += 10.0  # one element of a shared vector
            qd.simt.block.sync()
            other = bd - 1 - tid
            v = vs[other]
            m = ms[other]
            out[i, 0] = v.x
            out[i, 1] = v[1]
            out[i, 2] = v.z
            out[i, 3] = (m @ qd.Vector([1.0, 1.0]))[1]
            out[i, 4] = ms[other][0, 1]

    src = np.arange(64, dtype=np.float32)
    out = np.zeros((64, 5), np.float32)
    k(src, out)
    other = (np.arange(64) // bd) * bd + bd - 1 - np.arange(64) % bd
    x = src[other]
    np.testing.assert_array_equal(out, np.stack([x, x + 11, x + 2, 7 * x, 2 * x], axis=1))


def test_subgroup_exchanges_after_some_threads_finished():
    # threads that `continue` have finished; the rest of their subgroup still exchanges values. A thread
    # reading a finished lane gets its own value on the CPU (CUDA leaves that undefined: here only
    # live lanes are read, through xor partners that are both live)
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=64)
        for i in range(128):
            if i % 4 >= 2:
                continue
            out[i] = qd.simt.subgroup.shuffle_xor(i * 10, qd.u32(1)) + qd.simt.subgroup.ballot_first_n(1, 32) * 0

    out = np.full(128, -1, np.int32)
    k(out)
    i = np.arange(128)
    np.testing.assert_array_equal(out, np.where(i % 4 < 2, (i ^ 1) * 10, -1))


def test_fences_outside_a_parallel_loop_do_nothing():
    a = qd.field(qd.i32, shape=4)

    @qd.kernel
    def k():
        a[0] = 11
        qd.simt.grid.mem_fence()
        qd.simt.block.mem_fence()
        qd.simt.subgroup.mem_fence()
        for i in range(1, 4):
            a[i] = a[0] + i
            qd.simt.grid.mem_fence()

    k()
    np.testing.assert_array_equal(a.to_numpy(), [11, 12, 13, 14])


@pytest.mark.parametrize("pattern,bit_start,num_bits,radix_bits", [("few", 0, 8, 8), ("uniform", 0, 8, 8),
                                                                    ("uniform", 8, 8, 8), ("uniform", 3, 5, 7)])
def test_radix_rank_match_atomic_or(pattern, bit_start, num_bits, radix_bits):
    bd = 1 << radix_bits

    @qd.kernel
    def k(keys: qd.types.ndarray(dtype=qd.u32, ndim=1), ranks: qd.types.ndarray(dtype=qd.i32, ndim=1),
          bins: qd.types.ndarray(dtype=qd.i32, ndim=1), excl: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=bd)
        for i in range(2 * bd):  # two blocks, ranked separately
            b = qd.simt.block.SharedArray((bd,), qd.i32)
            e = qd.simt.block.SharedArray((bd,), qd.i32)
            ranks[i] = qd.simt.block.radix_rank_match_atomic_or(keys[i], bd, radix_bits, bit_start, num_bits, b, e)
            bins[i] = b[qd.simt.block.thread_idx()]
            excl[i] = e[qd.simt.block.thread_idx()]

    rng = np.random.default_rng(21)
    if pattern == "few":
        keys = rng.choice(rng.integers(0, 1 << 16, 12), 2 * bd).astype(np.uint32)
    else:
        keys = rng.integers(0, 1 << 20, 2 * bd).astype(np.uint32)
    ranks, bins, excl = (np.zeros(2 * bd, np.int32) for _ in range(3))
    k(keys, ranks, bins, excl)
    for blk in range(2):
        digits = (keys[blk * bd:(blk + 1) * bd] >> bit_start) & ((1 << num_bits) - 1)
        counts = np.bincount(digits, minlength=bd).astype(np.int32)
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        order = np.argsort(digits, kind="stable")
        expected = np.empty(bd, np.int32)
        expected[order] = np.arange(bd)
        np.testing.assert_array_equal(ranks[blk * bd:(blk + 1) * bd], expected)
        np.testing.assert_array_equal(bins[blk * bd:(blk + 1) * bd], counts)
        np.testing.assert_array_equal(excl[blk * bd:(blk + 1) * bd], start)
