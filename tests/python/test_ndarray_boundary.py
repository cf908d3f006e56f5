# tests/python/test_ndarray_boundary.py: qd.types.ndarray(boundary="clamp") clamps each outer index into the
# array's extent for loads, stores and atomics, as upstream does; "unsafe" (the default) does not. A runtime
# index into a vector/matrix element clamps the entry's row-major offset into the element (upstream's rule).
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core


@pytest.fixture(autouse=True)
def _runtime():
    qd.init(arch=qd.cpu)


def test_loads_clamp_each_index_into_the_extent():
    @qd.kernel
    def read(x: qd.types.ndarray(boundary="clamp"), i: qd.i32, j: qd.i32) -> qd.f32:
        return x[i, j]

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for i, j in [(-1, 0), (-5, -5), (1, 2), (3, 1), (2, 9), (100, -100)]:
        assert read(x, i, j) == x[min(max(i, 0), 2), min(max(j, 0), 3)]


def test_stores_and_atomics_clamp_too():
    @qd.kernel
    def write(x: qd.types.ndarray(dtype=qd.i32, ndim=1, boundary="clamp"), n: qd.i32):
        for k in range(n):
            x[k - 2] = 7  # k - 2 < 0 writes x[0]; k - 2 >= 5 writes x[4]
            qd.atomic_add(x[k + 3], 1)

    x = np.zeros(5, np.int32)
    write(x, 1)  # one iteration: x[-2] -> x[0] = 7, then x[3] += 1
    assert x.tolist() == [7, 0, 0, 1, 0]
    y = np.zeros(5, np.int32)

    @qd.kernel
    def bump(x: qd.types.ndarray(dtype=qd.i32, ndim=1, boundary="clamp")):
        for k in range(10):
            qd.atomic_add(x[k], 1)  # 5 of the 10 land on x[4]

    bump(y)
    assert y.tolist() == [1, 1, 1, 1, 6]


def test_vector_elements_are_clamped_in_the_outer_dims():
    @qd.kernel
    def read(x: qd.types.ndarray(boundary="clamp"), i: qd.i32) -> qd.f32:
        return x[i, i][1]

    x = qd.ndarray(qd.math.vec2, shape=(2, 2))
    x.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    assert read(x, -3) == 1 and read(x, 5) == 7


def test_runtime_element_indices_clamp_the_entry_offset():
    @qd.kernel
    def vector_entry(x: qd.types.ndarray(boundary="clamp"), k: qd.i32) -> qd.f32:
        return x[1, 2][k]

    @qd.kernel
    def matrix_entry(x: qd.types.ndarray(boundary="clamp"), i: qd.i32, j: qd.i32) -> qd.f32:
        return x[1, 2][i, j]

    v = qd.ndarray(qd.math.vec2, shape=(3, 3))
    v.from_numpy(np.arange(18, dtype=np.float32).reshape(3, 3, 2))  # v[1, 2] = [10, 11]
    assert [vector_entry(v, k) for k in (-1, 0, 1, 2, 9)] == [10, 10, 11, 11, 11]
    m = qd.ndarray(qd.math.mat2, shape=(3, 3))
    m.from_numpy(np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2))  # m[1, 2] = [[20, 21], [22, 23]]
    # The offset 2 * i + j is clamped into [0, 3]: (1, -1) is offset 1, (2, 0) offset 4 -> 3.
    cases = {(-1, 0): 20, (0, 1): 21, (1, -1): 21, (1, 0): 22, (2, 0): 23, (1, 2): 23, (0, 9): 23}
    assert {ij: matrix_entry(m, *ij) for ij in cases} == cases


@pytest.mark.parametrize("debug", [False, True])  # debug mode's bounds checks see the clamped index
def test_runtime_element_indices_clamp_for_stores_atomics_and_rows(debug):
    qd.init(arch=qd.cpu, debug=debug)
    mat23 = qd.types.matrix(2, 3, qd.f32)

    @qd.kernel
    def write(x: qd.types.ndarray(dtype=mat23, ndim=1, boundary="clamp"), i: qd.i32, j: qd.i32):
        x[5][i, j] = 7.0  # outer index 5 -> 1, entry offset 3 * i + j -> clamped into [0, 5]
        x[0][i, j] += 1.0
        qd.atomic_add(x[0][i, j], 1.0)

    @qd.kernel
    def row_sum(x: qd.types.ndarray(dtype=mat23, ndim=1, boundary="clamp"), i: qd.i32) -> qd.f32:
        row = x[0][i, :]  # each entry's offset 3 * i + c is clamped into [0, 5] (upstream reads out of bounds)
        return row[0] + row[1] * 10 + row[2] * 100

    x = np.zeros((2, 2, 3), np.float32)
    write(x, 1, 5)
    assert x[1, 1, 2] == 7 and x[0, 1, 2] == 2 and np.count_nonzero(x) == 2
    write(x, -4, 0)
    assert x[1, 0, 0] == 7 and x[0, 0, 0] == 2
    write(x, 0, 4)  # offset 4 is entry (1, 1), not (0, 2) as clamping each index would give
    assert x[1, 1, 1] == 7 and x[0, 1, 1] == 2 and x[0, 0, 2] == 0
    x[0] = np.arange(6).reshape(2, 3)
    assert row_sum(x, -3) == 0 and row_sum(x, 7) == 555 and row_sum(x, 1) == 543


def test_unclamped_arrays_keep_their_element_index():
    @qd.kernel
    def read(x: qd.types.ndarray(dtype=qd.math.vec2, ndim=1), k: qd.i32) -> qd.f32:
        return x[0][k]

    text = read.ir((("array", "f32", 1, (2,), True, True), ("scalar", "i32")))
    assert "(load x ((const int 0)) ((arg k)))" in text  # the index as given (checked in debug mode)


@pytest.mark.skipif(not _core.nvrtc_available(), reason="NVRTC not found")
def test_clamped_element_indices_compile_for_cuda():
    @qd.kernel
    def write(x: qd.types.ndarray(dtype=qd.math.mat3, ndim=2, boundary="clamp"), i: qd.i32, j: qd.i32):
        for k in range(4):
            x[k, k][i, j] += x[k, 0][j, i]

    spec = (("array", "f32", 2, (3, 3), True, True), ("scalar", "i32"), ("scalar", "i32"))
    assert _core.compile_kernel_cuda(write.ir(spec), 9, 0).image_size > 0


def test_unsafe_is_the_default_and_other_names_are_refused():
    assert qd.types.ndarray().boundary == "unsafe"
    with pytest.raises(ValueError, match=r"boundary=\.\.\.\) expects 'unsafe' or 'clamp', but got 'wrap'"):
        qd.types.ndarray(boundary="wrap")
