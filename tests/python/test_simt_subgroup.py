# tests/python/test_simt_subgroup.py: qd.simt.subgroup scans, broadcasts, segmented reductions, sorts vs numpy.
#
# Runs on the CPU (fibers) and, with QD_TEST_ARCH=cuda, on the CUDA backend (the driver emulation runs
# a block's threads as fibers too; QD_CHECK_CUDA=1 compiles each kernel with NVRTC as well).
import warnings

import numpy as np
import pytest

import quadrants as qd

sg = qd.simt.subgroup
N = 128  # four subgroups


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu)


def _tiles(a, log2_size):
    return a.reshape(-1, 1 << log2_size)


def _exclusive(a, log2_size, ufunc, identity):
    t = _tiles(a, log2_size)
    inc = ufunc.accumulate(t, axis=1)
    out = np.empty_like(t)
    out[:, 0] = identity
    out[:, 1:] = inc[:, :-1]
    return out.ravel()


SCAN_DTYPES = [(qd.i32, np.int32), (qd.f32, np.float32), (qd.f64, np.float64), (qd.u32, np.uint32)]


@pytest.mark.parametrize("dtype,np_dtype", SCAN_DTYPES)
@pytest.mark.parametrize("log2_size", [1, 3, 5])
def test_min_max_scans_and_broadcast(dtype, np_dtype, log2_size):
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=dtype, ndim=1), out: qd.types.ndarray(dtype=dtype, ndim=2)):
        qd.loop_config(block_dim=64)
        for i in range(N):
            v = src[i]
            out[i, 0] = sg.inclusive_min_tiled(v, log2_size)
            out[i, 1] = sg.inclusive_max_tiled(v, log2_size)
            out[i, 2] = sg.exclusive_min_tiled(v, log2_size)
            out[i, 3] = sg.exclusive_max_tiled(v, log2_size)
            out[i, 4] = sg.broadcast(v, qd.u32(7))
            out[i, 5] = sg.broadcast_first(v)
            out[i, 6] = sg.exclusive_min(v)
            out[i, 7] = sg.exclusive_max(v)

    rng = np.random.default_rng(log2_size)
    src = rng.integers(0 if np_dtype == np.uint32 else -1000, 1000, N).astype(np_dtype)
    out = np.zeros((N, 8), np_dtype)
    k(src, out)
    if np.issubdtype(np_dtype, np.floating):
        hi, lo = np.inf, -np.inf
    else:
        hi, lo = np.iinfo(np_dtype).max, np.iinfo(np_dtype).min
    t = _tiles(src, log2_size)
    np.testing.assert_array_equal(out[:, 0], np.minimum.accumulate(t, axis=1).ravel())
    np.testing.assert_array_equal(out[:, 1], np.maximum.accumulate(t, axis=1).ravel())
    np.testing.assert_array_equal(out[:, 2], _exclusive(src, log2_size, np.minimum, hi))
    np.testing.assert_array_equal(out[:, 3], _exclusive(src, log2_size, np.maximum, lo))
    np.testing.assert_array_equal(out[:, 4], np.repeat(src.reshape(-1, 32)[:, 7], 32))
    np.testing.assert_array_equal(out[:, 5], np.repeat(src.reshape(-1, 32)[:, 0], 32))
    np.testing.assert_array_equal(out[:, 6], _exclusive(src, 5, np.minimum, hi))
    np.testing.assert_array_equal(out[:, 7], _exclusive(src, 5, np.maximum, lo))


@pytest.mark.parametrize("log2_size", [2, 5])
def test_exclusive_add_mul_and_bitwise_scans(log2_size):
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        qd.loop_config(block_dim=128)
        for i in range(N):
            v = src[i]
            out[i, 0] = sg.exclusive_add_tiled(v, log2_size)
            out[i, 1] = sg.exclusive_mul_tiled(v % 3 + 1, log2_size)
            out[i, 2] = sg.exclusive_and_tiled(v, log2_size)
            out[i, 3] = sg.exclusive_or_tiled(v, log2_size)
            out[i, 4] = sg.exclusive_xor_tiled(v, log2_size)

    src = np.random.default_rng(7).integers(0, 1 << 20, N).astype(np.int32)
    out = np.zeros((N, 5), np.int32)
    k(src, out)
    np.testing.assert_array_equal(out[:, 0], _exclusive(src, log2_size, np.add, 0))
    small = (src % 3 + 1).astype(np.int32)
    np.testing.assert_array_equal(out[:, 1], _exclusive(small, log2_size, np.multiply, 1))
    np.testing.assert_array_equal(out[:, 2], _exclusive(src, log2_size, np.bitwise_and, -1))
    np.testing.assert_array_equal(out[:, 3], _exclusive(src, log2_size, np.bitwise_or, 0))
    np.testing.assert_array_equal(out[:, 4], _exclusive(src, log2_size, np.bitwise_xor, 0))


def _segmented(values, heads, log2_size, ufunc):
    out = np.empty_like(values)
    size = 1 << log2_size
    for i in range(len(values)):
        start = i
        while start % size and not heads[start]:
            start -= 1
        out[i] = ufunc.reduce(values[start:i + 1])
    return out


@pytest.mark.parametrize("dtype,np_dtype", [(qd.i32, np.int32), (qd.f32, np.float32)])
@pytest.mark.parametrize("log2_size", [0, 2, 5])
def test_segmented_reductions(dtype, np_dtype, log2_size):
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=dtype, ndim=1), heads: qd.types.ndarray(dtype=qd.i32, ndim=1),
          out: qd.types.ndarray(dtype=dtype, ndim=2)):
        qd.loop_config(block_dim=32)
        for i in range(N):
            v, h = src[i], heads[i]
            out[i, 0] = sg.segmented_reduce_add_tiled(v, h, log2_size)
            out[i, 1] = sg.segmented_reduce_min_tiled(v, h, log2_size)
            out[i, 2] = sg.segmented_reduce_max_tiled(v, h, log2_size)
            out[i, 3] = sg.segmented_reduce_add(v, h)

    rng = np.random.default_rng(3)
    src = rng.integers(-50, 50, N).astype(np_dtype)
    heads = (rng.random(N) < 0.2).astype(np.int32) * rng.integers(1, 5, N).astype(np.int32)  # any nonzero is a head
    heads[64:96] = 0  # a subgroup with no head at all: its first lane starts the only segment
    out = np.zeros((N, 4), np_dtype)
    k(src, heads, out)
    np.testing.assert_array_equal(out[:, 0], _segmented(src, heads, log2_size, np.add))
    np.testing.assert_array_equal(out[:, 1], _segmented(src, heads, log2_size, np.minimum))
    np.testing.assert_array_equal(out[:, 2], _segmented(src, heads, log2_size, np.maximum))
    np.testing.assert_array_equal(out[:, 3], _segmented(src, heads, 5, np.add))


@pytest.mark.parametrize("log2_size", [1, 3, 5])
def test_bitonic_sort_kv(log2_size):
    @qd.kernel
    def k(keys: qd.types.ndarray(dtype=qd.f32, ndim=1), vals: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=64)
        for i in range(N):
            key, val = sg.bitonic_sort_kv_tiled(keys[i], vals[i], log2_size)
            keys[i] = key
            vals[i] = val

    rng = np.random.default_rng(11)
    keys = rng.integers(0, 8, N).astype(np.float32)  # many equal keys: ties order by value
    vals = rng.permutation(N).astype(np.int32)
    expect_k, expect_v = keys.copy(), vals.copy()
    size = 1 << log2_size
    for s in range(0, N, size):
        order = np.lexsort((vals[s:s + size], keys[s:s + size]))
        expect_k[s:s + size], expect_v[s:s + size] = keys[s:s + size][order], vals[s:s + size][order]
    k(keys, vals)
    np.testing.assert_array_equal(keys, expect_k)
    np.testing.assert_array_equal(vals, expect_v)


def test_bitonic_sort_kv_whole_subgroup_with_sentinels():
    @qd.kernel
    def k(keys: qd.types.ndarray(dtype=qd.i32, ndim=1), n: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(32):
            key = 2147483647  # sentinel past every real key
            if i < n:
                key = keys[i]
            key, idx = sg.bitonic_sort_kv(key, i)
            out[i] = idx

    keys = np.array([5, -3, 9, 0, 5, 2, -7, 1, 4, 8, 6], np.int32)
    out = np.zeros(32, np.int32)
    k(keys, len(keys), out)
    np.testing.assert_array_equal(out[:len(keys)], np.lexsort((np.arange(len(keys)), keys)))
    np.testing.assert_array_equal(out[len(keys):], np.arange(len(keys), 32))


def test_ballot_full_subgroup_is_a_deprecated_ballot():
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.u64, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(64):
            out[i] = sg.ballot_full_subgroup(src[i])

    src = (np.arange(64) % 3 == 0).astype(np.int32)
    out = np.zeros(64, np.uint64)
    sg._ballot_full_subgroup_deprecation_warned = False  # it warns once per process
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k(src, out)
    expected = [sum(int(b) << n for n, b in enumerate(w)) for w in src.reshape(-1, 32)]
    np.testing.assert_array_equal(out, np.repeat(np.array(expected, np.uint64), 32))
    assert any("ballot_full_subgroup() is deprecated" in str(w.message) for w in caught)


def test_tile_size_checks():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(32):
            a[i] = sg.segmented_reduce_add_tiled(a[i], 0, 6)

    with pytest.raises(Exception, match="log2_size to be an int in \\[0, 5\\]"):
        k(np.zeros(32, np.int32))


def test_deprecated_names_warn_and_work_inside_kernels():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=32)
        for i in range(32):
            a[i] = 1
            qd.simt.block.mem_sync()
            qd.simt.grid.memfence()
            sg.memory_barrier()
            sg.barrier()
            a[i] += sg.shuffle(a[i] * i, qd.u32(3))

    a = np.zeros(32, np.int32)
    qd.simt.block._mem_sync_deprecation_warned = qd.simt.grid._memfence_deprecation_warned = False
    sg._memory_barrier_deprecation_warned = sg._barrier_deprecation_warned = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k(a)
    np.testing.assert_array_equal(a, np.full(32, 4))
    text = " ".join(str(w.message) for w in caught)
    for old in ["block.mem_sync()", "grid.memfence()", "subgroup.memory_barrier()", "subgroup.barrier()"]:
        assert f"qd.simt.{old} is deprecated" in text


def test_ballot_lanemasks_and_elect():
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), bits: qd.types.ndarray(dtype=qd.u64, ndim=1),
          masks: qd.types.ndarray(dtype=qd.u32, ndim=2), elected: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(block_dim=64)
        for i in range(N):
            bits[i] = sg.ballot(src[i])
            lane = sg.invocation_id()
            masks[i, 0] = sg.lanemask_lt(lane)
            masks[i, 1] = sg.lanemask_le(lane)
            masks[i, 2] = sg.lanemask_eq(lane)
            masks[i, 3] = sg.lanemask_gt(lane)
            masks[i, 4] = sg.lanemask_ge(lane)
            elected[i] = sg.elect()

    src = (np.random.default_rng(5).random(N) < 0.4).astype(np.int32)
    bits, masks, elected = np.zeros(N, np.uint64), np.zeros((N, 5), np.uint32), np.zeros(N, np.int32)
    k(src, bits, masks, elected)
    expected = [sum(int(b) << n for n, b in enumerate(w)) for w in src.reshape(-1, 32)]
    np.testing.assert_array_equal(bits, np.repeat(np.array(expected, np.uint64), 32))
    lane = np.tile(np.arange(32, dtype=np.uint64), N // 32)
    one = np.uint64(1) << lane
    full = np.uint64(0xFFFFFFFF)
    np.testing.assert_array_equal(masks[:, 0], one - 1)
    np.testing.assert_array_equal(masks[:, 1], (one | (one - 1)) & full)
    np.testing.assert_array_equal(masks[:, 2], one)
    np.testing.assert_array_equal(masks[:, 3], ~(one | (one - 1)) & full)
    np.testing.assert_array_equal(masks[:, 4], ~(one - 1) & full)
    np.testing.assert_array_equal(elected, (lane == 0).astype(np.int32))
