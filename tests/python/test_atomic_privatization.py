# tests/python/test_atomic_privatization.py: atomics that privatize_atomics turns into per-chunk
# private updates (histograms, reductions into one element or a local) give numpy's answers.
#
# Each kernel runs on 4 threads over enough iterations that every thread runs several chunks, so a
# missing merge (zeros), a merge done twice (double counts) or a lost private copy changes exact
# integer results. Arrays that start non-zero check that merges add to what was there. Loops that
# also read the updated array, or use an atomic's result, must keep their atomics. Arch-neutral
# (QD_TEST_ARCH): on CUDA, reductions into one element or a local combine per warp by shuffles before
# one atomic per warp, and arrays keep plain atomics; the answers must be the same.
import numpy as np
import pytest

import quadrants as qd

N = 1 << 20
BINS = 256


@pytest.fixture(autouse=True)
def four_threads():
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)  # conftest.py turns qd.cpu into CUDA under QD_TEST_ARCH=cuda


def _indices(n, bins, seed=0):
    return np.random.default_rng(seed).integers(0, bins, n).astype(np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64])
def test_histogram_of_counts_every_dtype(dtype):
    @qd.kernel
    def histogram(idx: qd.types.ndarray(), bins: qd.types.ndarray()):
        for i in idx:
            bins[idx[i]] += 1

    idx = _indices(N, BINS)
    bins = np.arange(BINS).astype(dtype)  # merges add to what is there
    histogram(idx, bins)
    np.testing.assert_array_equal(bins, np.arange(BINS) + np.bincount(idx, minlength=BINS))


def test_float_weighted_histogram_within_reduction_tolerance():
    @qd.kernel
    def weighted(idx: qd.types.ndarray(), w: qd.types.ndarray(), bins: qd.types.ndarray()):
        for i in idx:
            qd.atomic_add(bins[idx[i]], w[i])

    idx = _indices(N, BINS, seed=1)
    w = np.random.default_rng(2).random(N).astype(np.float32)
    bins = np.zeros(BINS, np.float32)
    weighted(idx, w, bins)
    np.testing.assert_allclose(bins, np.bincount(idx, weights=w.astype(np.float64), minlength=BINS), rtol=1e-4)


def test_field_histogram_with_add_and_sub():
    bins = qd.field(qd.i32, shape=BINS)

    @qd.kernel
    def up_and_down(idx: qd.types.ndarray()):
        for i in idx:
            bins[idx[i]] += 3
            qd.atomic_sub(bins[(idx[i] + 1) % BINS], 1)

    idx = _indices(N, BINS, seed=3)
    bins.from_numpy(np.full(BINS, 5, np.int32))
    up_and_down(idx)
    counts = np.bincount(idx, minlength=BINS)
    np.testing.assert_array_equal(bins.to_numpy(), 5 + 3 * counts - np.roll(counts, 1))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_per_bin_min_and_max(dtype):
    @qd.kernel
    def extremes(idx: qd.types.ndarray(), x: qd.types.ndarray(), lo: qd.types.ndarray(), hi: qd.types.ndarray()):
        for i in idx:
            qd.atomic_min(lo[idx[i]], x[i])
            qd.atomic_max(hi[idx[i]], x[i])

    idx = _indices(N, BINS, seed=4)
    x = (np.random.default_rng(5).random(N) * 2e6 - 1e6).astype(dtype)
    lo, hi = np.full(BINS, 10, dtype), np.full(BINS, -10, dtype)
    extremes(idx, x, lo, hi)
    want_lo, want_hi = np.full(BINS, 10, dtype), np.full(BINS, -10, dtype)
    np.minimum.at(want_lo, idx, x)
    np.maximum.at(want_hi, idx, x)
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


def test_every_thread_hits_the_same_bins():
    @qd.kernel
    def two_bins(n: qd.i32, bins: qd.types.ndarray()):
        for i in range(n):
            bins[i % 2] += 1
            bins[7] += 2

    bins = np.zeros(8, np.int64)
    two_bins(N, bins)
    np.testing.assert_array_equal(bins, [N // 2, N // 2, 0, 0, 0, 0, 0, 2 * N])


def test_vector_bins_and_a_two_dimensional_loop():
    bins = qd.Vector.field(2, qd.i32, shape=(16, 16))

    @qd.kernel
    def grid(idx: qd.types.ndarray()):
        for i, j in qd.ndrange(idx.shape[0], idx.shape[1]):
            k = idx[i, j]
            bins[k // 16, k % 16][0] += 1
            bins[k // 16, k % 16][1] += j

    idx = _indices(N, BINS, seed=6).reshape(1024, 1024)
    grid(idx)
    got = bins.to_numpy().reshape(BINS, 2)
    np.testing.assert_array_equal(got[:, 0], np.bincount(idx.ravel(), minlength=BINS))
    cols = np.broadcast_to(np.arange(1024), idx.shape).ravel()
    np.testing.assert_array_equal(got[:, 1], np.bincount(idx.ravel(), weights=cols, minlength=BINS))


@pytest.mark.parametrize("bins_count, n", [(1 << 17, N), (1 << 14, 5000)])
def test_beyond_the_size_limit_keeps_atomics_and_stays_exact(bins_count, n):
    # 512 KiB of i32 is past the 256 KiB limit; 16384 bins over 5000 iterations is past one per element.
    @qd.kernel
    def histogram(idx: qd.types.ndarray(), bins: qd.types.ndarray()):
        for i in idx:
            bins[idx[i]] += 1

    idx = _indices(n, bins_count, seed=7)
    bins = np.ones(bins_count, np.int32)
    histogram(idx, bins)
    np.testing.assert_array_equal(bins, 1 + np.bincount(idx, minlength=bins_count))


def test_array_also_read_in_the_loop_is_not_privatized():
    # Each iteration updates its own counter, then reads it back: a private copy would hide the update.
    @qd.kernel
    def bump_and_read(counters: qd.types.ndarray(), seen: qd.types.ndarray()):
        for i in counters:
            qd.atomic_add(counters[i], 1)
            seen[i] = counters[i]

    counters = np.arange(BINS, dtype=np.int32) * 10
    seen = np.zeros(BINS, np.int32)
    for _ in range(3):
        bump_and_read(counters, seen)
    np.testing.assert_array_equal(counters, np.arange(BINS) * 10 + 3)
    np.testing.assert_array_equal(seen, counters)



def test_array_also_stored_in_the_loop_is_not_privatized():
    # Each iteration updates its own counter, then overwrites it: a private copy's update would be added
    # back after the loop, on top of the store.
    @qd.kernel
    def bump_then_overwrite(counters: qd.types.ndarray()):
        for i in counters:
            qd.atomic_add(counters[i], 1)
            counters[i] = i

    counters = np.full(BINS, 7, np.int32)
    bump_then_overwrite(counters)
    np.testing.assert_array_equal(counters, np.arange(BINS))

@pytest.mark.cpu_only  # CUDA copies each host argument to the device on its own: no shared memory there
def test_arguments_sharing_memory_keep_their_atomics():
    # counters is not read in the loop, but the same memory is, through another argument: each
    # iteration must see its own update there, as with atomics, so the launch does not privatize.
    @qd.kernel
    def bump_then_read(counters: qd.types.ndarray(), same: qd.types.ndarray(), seen: qd.types.ndarray()):
        for i in counters:
            qd.atomic_add(counters[i], 1)
            seen[i] = same[i // 16, i % 16]

    counters = np.arange(BINS, dtype=np.int32)
    seen = np.zeros(BINS, np.int32)
    bump_then_read(counters, counters.reshape(16, 16), seen)
    np.testing.assert_array_equal(counters, np.arange(BINS) + 1)
    np.testing.assert_array_equal(seen, counters)
    separate = counters.copy().reshape(16, 16)
    bump_then_read(counters, separate, seen)  # no shared memory: privatized, and still right
    np.testing.assert_array_equal(counters, np.arange(BINS) + 2)
    np.testing.assert_array_equal(seen, np.arange(BINS) + 1)


def test_atomic_whose_result_is_used_stays_atomic():
    @qd.kernel
    def take_slots(n: qd.i32, next_slot: qd.types.ndarray(), slots: qd.types.ndarray()):
        for i in range(n):
            slots[qd.atomic_add(next_slot[0], 1)] = i

    next_slot, slots = np.zeros(1, np.int32), np.full(N, -1, np.int32)
    take_slots(N, next_slot, slots)
    assert next_slot[0] == N
    np.testing.assert_array_equal(np.sort(slots), np.arange(N))


def test_reductions_into_one_element():
    total = qd.field(qd.i64, shape=())

    @qd.kernel
    def reduce(x: qd.types.ndarray(), k: qd.i32, stats: qd.types.ndarray(), lo: qd.types.ndarray()) -> qd.f64:
        s = 0.0
        for i in x:
            total[None] += qd.cast(x[i], qd.i64)
            stats[k] += x[i]
            stats[k + 1] += x[i] * x[i]
            qd.atomic_min(lo[0], x[i])
            s += x[i]
        return s

    x = np.random.default_rng(8).integers(-1000, 1000, N).astype(np.float64)
    total[None] = 7
    stats, lo = np.array([0.5, 1.0, 2.0]), np.array([-5.0])
    s = reduce(x, 1, stats, lo)
    assert total[None] == 7 + int(x.sum())
    assert s == pytest.approx(x.sum(), rel=1e-12, abs=1e-6)
    np.testing.assert_allclose(stats, [0.5, 1.0 + x.sum(), 2.0 + (x * x).sum()], rtol=1e-12)
    assert lo[0] == min(-5.0, x.min())


def test_integer_reduction_into_a_local_is_exact():
    @qd.kernel
    def count_odd(x: qd.types.ndarray()) -> qd.i32:
        odd = 0
        for i in x:
            if x[i] % 2 == 1:
                odd += 1
        return odd

    x = _indices(N, 1000, seed=9)
    assert count_odd(x) == int((x % 2 == 1).sum())


def test_atomics_on_thread_private_locals():
    @qd.kernel
    def locals_(x: qd.types.ndarray(), out: qd.types.ndarray()) -> qd.i32:
        serial = 1
        qd.atomic_add(serial, 4)
        qd.atomic_max(serial, 3)
        for i in x:
            t = 0
            qd.atomic_add(t, x[i])
            qd.atomic_sub(t, 1)
            qd.atomic_max(t, 0)
            out[i] = t
        return serial

    x = _indices(1000, 10, seed=10)
    out = np.zeros_like(x)
    assert locals_(x, out) == 5
    np.testing.assert_array_equal(out, np.maximum(x - 1, 0))


@pytest.mark.parametrize("block_dim", [16, 48, 1000])
def test_sums_over_blocks_that_end_in_a_partial_warp(block_dim):
    # On CUDA a block of 48 has a warp of 16 lanes: its shuffles must combine those lanes only.
    @qd.kernel
    def sums(x: qd.types.ndarray(), out: qd.types.ndarray()) -> qd.i64:
        s = qd.cast(0, qd.i64)
        qd.loop_config(block_dim=block_dim)
        for i in x:
            s += qd.cast(x[i], qd.i64)
            qd.atomic_max(out[0], x[i])
            qd.atomic_min(out[1], x[i])
        return s

    x = _indices(100_003, 1 << 20, seed=11)
    out = np.array([-1, 1 << 30], dtype=np.int32)
    assert sums(x, out) == int(x.astype(np.int64).sum())
    assert out.tolist() == [x.max(), x.min()]
