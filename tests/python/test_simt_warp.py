# tests/python/test_simt_warp.py: qd.simt.warp, upstream's CUDA-style names (mask first), against numpy on every backend.
import numpy as np
import pytest

import quadrants as qd

warp = qd.simt.warp
FULL = 0xFFFFFFFF


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu)


def test_shuffles_votes_and_ballot():
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=2),
          f: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        qd.loop_config(block_dim=64)
        for i in range(64):
            v = src[i]
            out[i, 0] = warp.shfl_sync_i32(qd.u32(FULL), v, 5)
            out[i, 1] = warp.shfl_up_i32(qd.u32(FULL), v, 1)
            out[i, 2] = warp.shfl_down_i32(qd.u32(FULL), v, 2)
            out[i, 3] = warp.shfl_xor_i32(qd.u32(FULL), v, 3)
            out[i, 4] = warp.all_nonzero(qd.u32(FULL), v)
            out[i, 5] = warp.any_nonzero(qd.u32(FULL), v - 1)
            out[i, 6] = warp.unique(FULL, v > 0)
            out[i, 7] = qd.cast(warp.ballot(v % 2), qd.i32)
            f[i, 0] = warp.shfl_down_f32(qd.u32(FULL), v * 0.5, 1)
            f[i, 1] = warp.shfl_up_f32(qd.u32(FULL), v * 0.5, 3)
            f[i, 2] = warp.shfl_sync_f32(qd.u32(FULL), v * 0.5, 31)

    src = np.arange(1, 65, dtype=np.int32)
    src[40] = 1  # the second warp: every value nonzero, one value 1
    out = np.zeros((64, 8), np.int32)
    f = np.zeros((64, 3), np.float32)
    k(src, out, f)
    w = src.reshape(2, 32)
    lane = np.arange(32)
    np.testing.assert_array_equal(out[:, 0], np.repeat(w[:, 5], 32))
    np.testing.assert_array_equal(out[:, 1], np.where(lane >= 1, w[:, np.maximum(lane - 1, 0)], w).ravel())
    np.testing.assert_array_equal(out[:, 2], np.where(lane < 30, w[:, np.minimum(lane + 2, 31)], w).ravel())
    np.testing.assert_array_equal(out[:, 3], w[:, lane ^ 3].ravel())
    assert (out[:, 4] == 1).all() and (out[:, 5] == 1).all() and (out[:, 6] == 1).all()
    bits = [sum(int(b) << n for n, b in enumerate(r % 2)) for r in w]
    np.testing.assert_array_equal(out[:, 7].view(np.uint32), np.repeat(np.array(bits, np.uint32), 32))
    h = w * 0.5
    np.testing.assert_array_equal(f[:, 0], np.where(lane < 31, h[:, np.minimum(lane + 1, 31)], h).ravel())
    np.testing.assert_array_equal(f[:, 1], np.where(lane >= 3, h[:, np.maximum(lane - 3, 0)], h).ravel())
    np.testing.assert_array_equal(f[:, 2], np.repeat(h[:, 31], 32))


def test_unique_match_and_active_mask():
    @qd.kernel
    def k(src: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.u32, ndim=2)):
        qd.loop_config(block_dim=48)  # a full warp, then a warp of 16 threads
        for i in range(48):
            v = src[i]
            out[i, 0] = qd.cast(warp.unique(qd.u32(FULL), v), qd.u32)
            out[i, 1] = warp.match_any(qd.u32(FULL), v)
            out[i, 2] = warp.match_all(qd.u32(FULL), v)
            out[i, 3] = warp.active_mask()

    src = np.zeros(48, np.int32)
    src[:16] = 7  # warp 0: two groups of 16; warp 1 (16 threads): all equal
    out = np.zeros((48, 4), np.uint32)
    k(src, out)
    np.testing.assert_array_equal(out[:32, 0], 0)
    np.testing.assert_array_equal(out[32:, 0], 1)
    np.testing.assert_array_equal(out[:16, 1], 0x0000FFFF)
    np.testing.assert_array_equal(out[16:32, 1], 0xFFFF0000)
    np.testing.assert_array_equal(out[32:, 1], 0x0000FFFF)
    np.testing.assert_array_equal(out[:32, 2], 0)
    np.testing.assert_array_equal(out[32:, 2], 0x0000FFFF)
    np.testing.assert_array_equal(out[:32, 3], 0xFFFFFFFF)
    np.testing.assert_array_equal(out[32:, 3], 0x0000FFFF)


def test_sync_outside_and_inside_a_parallel_loop():
    a = qd.field(qd.i32, shape=32)

    @qd.kernel
    def k():
        qd.loop_config(block_dim=32)
        for i in range(32):
            a[i] = i
            warp.sync(qd.u32(FULL))
        warp.sync(qd.u32(FULL))  # one thread runs here: nothing to wait for
        for i in range(16):
            a[i] = a[i + 16]

    k()
    np.testing.assert_array_equal(a.to_numpy(), np.arange(32) % 16 + 16)


def test_a_partial_mask_is_a_compile_error():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), m: qd.u32):
        for i in range(32):
            a[i] = warp.shfl_sync_i32(m, a[i], 0)

    with pytest.raises(qd.QuadrantsTypeError, match="mask must be 0xFFFFFFFF known at compile time"):
        k(np.zeros(32, np.int32), 0xFFFF)
