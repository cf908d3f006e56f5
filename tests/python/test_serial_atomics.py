# Atomics in serial tasks (a kernel's top-level statements, loops with serialize=True) are plain updates on the
# CPU (cpu_renderer.cpp): they must still return the old value and give what the atomics gave.
import numpy as np
import pytest

import quadrants as qd


@pytest.mark.parametrize("dtype, np_dtype", [(qd.i32, np.int32), (qd.f32, np.float32), (qd.i64, np.int64)])
def test_a_serialized_loop_hands_out_slots_in_order(dtype, np_dtype):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def take(counters: qd.types.ndarray(dtype=dtype, ndim=1), slot_of: qd.types.ndarray(dtype=dtype, ndim=1)):
        qd.loop_config(serialize=True)
        for i in range(slot_of.shape[0]):
            slot_of[i] = qd.atomic_add(counters[i % 3], 1)

    counters = np.zeros(3, dtype=np_dtype)
    slot_of = np.zeros(10, dtype=np_dtype)
    take(counters, slot_of)
    assert counters.tolist() == [4, 3, 3]
    assert slot_of.tolist() == [i // 3 for i in range(10)]


def test_top_level_atomics_return_the_old_value_and_every_op_combines():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def ops(a: qd.types.ndarray(dtype=qd.i32, ndim=1), old: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        old[0] = qd.atomic_add(a[0], 5)
        old[1] = qd.atomic_sub(a[1], 2)
        old[2] = qd.atomic_max(a[2], 9)
        old[3] = qd.atomic_min(a[3], -4)
        old[4] = qd.atomic_and(a[4], 6)
        old[5] = qd.atomic_or(a[5], 8)
        old[6] = qd.atomic_xor(a[6], 3)
        old[7] = qd.atomic_cas(a[7], 7, 70)

    a = np.array([1, 10, 3, 0, 7, 1, 5, 7], dtype=np.int32)
    old = np.zeros(8, dtype=np.int32)
    ops(a, old)
    assert old.tolist() == [1, 10, 3, 0, 7, 1, 5, 7]
    assert a.tolist() == [6, 8, 9, -4, 6, 9, 6, 70]


def test_serialized_float_accumulation_matches_sequential_sums():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def accumulate(x: qd.types.ndarray(dtype=qd.f32, ndim=1), bins: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(serialize=True)
        for i in range(x.shape[0]):
            bins[i % 4] += x[i]

    x = np.random.default_rng(3).standard_normal(1001).astype(np.float32)
    bins = np.zeros(4, dtype=np.float32)
    accumulate(x, bins)
    expected = np.zeros(4, dtype=np.float32)
    for i, v in enumerate(x):  # the loop's order, in f32
        expected[i % 4] = np.float32(expected[i % 4] + v)
    assert bins.tolist() == expected.tolist()
