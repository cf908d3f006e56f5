# tests/python/test_large_arrays.py: arrays past 2^31 elements, and 0-d loops (issue 11, items 1 and 3).
#
# Each large test allocates one real 2 GiB array and frees it before the next; a loop bound that
# wrapped to 32 bits would leave it untouched (or raise nothing), which is what these catch.
import gc
import os

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

N = 2**31 + 16  # one element count a 32-bit trip count cannot hold
SAMPLES = (0, 1, N // 2 + 3, N - 2, N - 1)
# The CUDA driver emulation runs GPU threads one by one: 2^31 of them take many minutes there.
_EMULATED = os.environ.get("QD_TEST_ARCH") == "cuda" and "emulated" in os.environ.get("QD_CUDA_DRIVER_PATH", "")
huge_loop = pytest.mark.skipif(_EMULATED, reason="2^31-element arrays are too slow on the CUDA emulation")


@pytest.fixture
def big_u8():
    a = np.zeros(N, dtype=np.uint8)
    yield a
    del a
    gc.collect()


@huge_loop
def test_1d_loop_past_2_31_with_i64_indices(big_u8):
    qd.init(arch=qd.cpu, default_ip=qd.i64)

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.u8, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = qd.cast(i % 251, qd.u8)

    fill(big_u8)
    for i in SAMPLES:
        assert big_u8[i] == i % 251, i


@huge_loop
def test_struct_for_past_2_31_with_i64_indices(big_u8):
    qd.init(arch=qd.cpu, default_ip=qd.i64)

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.u8, ndim=1)):
        for i in a:
            a[i] = qd.cast(i % 253 + 1, qd.u8)

    fill(big_u8)
    for i in SAMPLES:
        assert big_u8[i] == i % 253 + 1, i


@huge_loop  # staging the 2^31-element view for the emulated device copies 2 GiB through mprotect'd pages
def test_i32_index_cannot_count_the_extent_is_an_error():
    qd.init(arch=qd.cpu)  # default_ip=i32: the loop variable a user sees is an i32
    # A read-only view of one byte repeated N times: the extent is real, the memory is not needed.
    # Through the buffer protocol: kernels refuse numpy views in neither C nor Fortran order, as upstream.
    a = memoryview(np.lib.stride_tricks.as_strided(np.ones(1, dtype=np.uint8), shape=(N,), strides=(0,)))
    total = np.zeros(1, dtype=np.int64)

    @qd.kernel
    def count(a: qd.types.ndarray(dtype=qd.u8, ndim=1), total: qd.types.ndarray(dtype=qd.i64, ndim=1)):
        for i in range(a.shape[0]):
            total[0] += qd.cast(a[i], qd.i64)

    with pytest.raises(ValueError, match=r"'a' has 2147483664 elements in dimension 0.*default_ip=qd\.i64"):
        count(a, total)
    assert total[0] == 0


def test_i32_extent_check_costs_nothing_for_small_arrays():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def count(a: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:
        return a.shape[0]

    assert count(np.zeros(7, dtype=np.int32)) == 7


@huge_loop
@pytest.mark.parametrize("how", ["grouped", "ndrange"])
def test_2d_loop_with_more_than_2_31_points_in_i32(how):
    qd.init(arch=qd.cpu)  # each extent fits i32, their product does not: the flattened count is 64-bit
    rows, cols = 2**16, 2**15 + 1

    if how == "grouped":
        @qd.kernel
        def fill(a: qd.types.ndarray(dtype=qd.u8, ndim=2)):
            for I in qd.grouped(a):
                a[I] = qd.cast((I[0] * 7 + I[1]) % 251, qd.u8)
    else:
        @qd.kernel
        def fill(a: qd.types.ndarray(dtype=qd.u8, ndim=2)):
            for i, j in qd.ndrange(a.shape[0], a.shape[1]):
                a[i, j] = qd.cast((i * 7 + j) % 251, qd.u8)

    b = np.zeros((rows, cols), dtype=np.uint8)
    fill(b)
    for i, j in ((0, 0), (0, cols - 1), (rows // 2, 123), (rows - 1, cols - 2), (rows - 1, cols - 1)):
        assert b[i, j] == (i * 7 + j) % 251, (i, j)
    del b
    gc.collect()


@pytest.mark.parametrize("make", ["field", "ndarray"])
def test_grouped_loop_over_0d_container_runs_once(make):
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f32, shape=()) if make == "field" else qd.ndarray(qd.f32, shape=())

    if make == "field":
        @qd.kernel
        def bump():
            for I in qd.grouped(x):
                x[I] += 1.5
    else:
        @qd.kernel
        def bump(y: qd.types.ndarray()):
            for I in qd.grouped(y):
                y[I] += 1.5

    for expected in (1.5, 3.0):
        bump() if make == "field" else bump(x)
        assert x[None] == expected


def test_grouped_0d_index_is_empty_vector():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.i32, shape=())

    @qd.kernel
    def size_of_index():
        for I in qd.grouped(x):
            x[None] = qd.static(len(I)) + 10

    size_of_index()
    assert x[None] == 10


def test_plain_loop_over_0d_field_is_a_clear_error():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f32, shape=())

    @qd.kernel
    def bad():
        for i in x:
            x[None] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="0-d field or ndarray has no index"):
        bad()


def test_parallel_for_without_variables_in_ir_text_is_an_error_not_a_crash():
    text = ("(kernel k (options) (params (array a f32 0 () 1 1)) (returns void) "
            "(body (parallel_for () () (config (block_dim 0) (serialize 0)) ((store a () () (const f32 1))))))")
    with pytest.raises(ValueError, match="parallel_for needs one or more loop variables"):
        _core.compile_kernel(text)


@pytest.mark.parametrize("make", ["field", "ndarray"])
def test_0d_containers_compile_in_debug_mode(make):
    qd.init(arch=qd.cpu, debug=True)  # bounds checks: a 0-d access has no index to check
    x = qd.field(qd.i32, shape=()) if make == "field" else qd.ndarray(qd.i32, shape=())

    @qd.kernel
    def bump(y: qd.types.ndarray()):
        y[None] += 3

    @qd.kernel
    def bump_field():
        x[None] += 3

    bump(x) if make == "ndarray" else bump_field()
    assert x[None] == 3
