# tests/python/test_own_element_atomics.py: atomics on an array that a parallel loop touches only at each
# iteration's own element (`a[i, j] -= x` in `for i, j in ...`) are plain read-modify-writes on the CPU when no
# other array of the launch shares the array's memory (privatize_atomics lists them as (own ARRAY)), and the
# answers are the atomics' answers. Arrays that also share memory with another argument keep their atomics.
#
# Each kernel runs on 4 threads over enough iterations that every thread runs several chunks. Arch-neutral
# (QD_TEST_ARCH): CUDA renders the same entries.
import numpy as np
import pytest

import quadrants as qd

N = 1 << 18


@pytest.fixture(autouse=True)
def four_threads():
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)


def test_fields_updated_at_their_own_element_in_an_nd_loop(capfd):
    # Genesis' spatial hasher: fields of shape (n, 1), each slot updated at its own element.
    start = qd.field(qd.i32, shape=(N, 1))
    size = qd.field(qd.i32, shape=(N, 1))

    @qd.kernel
    def shift():
        for i, b in qd.ndrange(N, 1):
            start[i, b] -= size[i, b]

    sizes = (np.arange(N, dtype=np.int32) % 7).reshape(N, 1)
    starts = (np.arange(N, dtype=np.int32) * 3).reshape(N, 1)
    size.from_numpy(sizes)
    start.from_numpy(starts)
    shift()
    shift()
    np.testing.assert_array_equal(start.to_numpy(), starts - 2 * sizes)


def test_every_atomic_op_and_used_results():
    @qd.kernel
    def update(a: qd.types.ndarray(dtype=qd.i32, ndim=1), f: qd.types.ndarray(dtype=qd.f64, ndim=1),
               old: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in a:
            old[i] = qd.atomic_add(a[i], 5)
            qd.atomic_max(a[i], 12)
            qd.atomic_min(a[i], 40)
            qd.atomic_or(a[i], 1)
            qd.atomic_xor(a[i], 2)
            qd.atomic_and(a[i], 0xFFFF)
            a[i] *= 3
            f[i] += qd.cast(a[i], qd.f64) * 0.5
            f[i] -= 1.0

    base = np.arange(N, dtype=np.int32) % 50
    a, f, old = base.copy(), np.full(N, 2.0), np.zeros(N, np.int32)
    update(a, f, old)
    expected = (((np.minimum(np.maximum(base + 5, 12), 40) | 1) ^ 2) & 0xFFFF) * 3
    np.testing.assert_array_equal(old, base)
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(f, 2.0 + expected * 0.5 - 1.0)


def test_own_arrays_are_listed_in_the_loop_config(capfd):
    qd.init(arch=qd.cpu, cpu_max_num_threads=4, print_ir=True)

    @qd.kernel
    def shift(a: qd.types.ndarray(dtype=qd.f32, ndim=2), b: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i, j in a:
            a[i, j] -= b[i, j]

    a, b = np.ones((64, 3), np.float32), np.full((64, 3), 0.25, np.float32)
    shift(a, b)
    np.testing.assert_array_equal(a, 0.75)
    captured = capfd.readouterr()
    after = (captured.out + captured.err).split("// IR after privatize_atomics")[-1]
    assert "(own a)" in after
    assert "(own b)" not in after and "(privatize" not in after


@pytest.mark.cpu_only  # CUDA copies each host argument to the device on its own: no shared memory there
def test_an_own_array_sharing_memory_with_another_argument_keeps_its_atomics():
    # x[i] is x's own element, but y is the same memory and iteration i - 1 updates it there: the launch
    # sees the overlap and keeps the atomics, so no update is lost.
    @qd.kernel
    def bump(x: qd.types.ndarray(dtype=qd.i32, ndim=1), y: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in x:
            for _ in range(8):
                x[i] += 1
                y[(i + 1) % N] += 1

    for _ in range(3):
        x = np.zeros(N, np.int32)
        bump(x, x)
        np.testing.assert_array_equal(x, 16)
    x, y = np.zeros(N, np.int32), np.zeros(N, np.int32)
    bump(x, y)  # separate memory: x plain, y atomic
    np.testing.assert_array_equal(x, 8)
    np.testing.assert_array_equal(y, 8)


def test_struct_for_over_a_vector_field_updates_each_component():
    v = qd.Vector.field(3, qd.f32, shape=(N // 64, 64))

    @qd.kernel
    def grow():
        for i, j in v:
            for k in qd.static(range(3)):
                v[i, j][k] += k + 1.0

    grow()
    grow()
    np.testing.assert_array_equal(v.to_numpy(), np.broadcast_to(np.array([2.0, 4.0, 6.0], np.float32),
                                                                (N // 64, 64, 3)))
