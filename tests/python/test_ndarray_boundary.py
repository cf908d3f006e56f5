# tests/python/test_ndarray_boundary.py: qd.types.ndarray(boundary="clamp") clamps each outer index into the
# array's extent for loads, stores and atomics, as upstream does; "unsafe" (the default) does not.
import numpy as np
import pytest

import quadrants as qd


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


def test_unsafe_is_the_default_and_other_names_are_refused():
    assert qd.types.ndarray().boundary == "unsafe"
    with pytest.raises(ValueError, match=r"boundary=\.\.\.\) expects 'unsafe' or 'clamp', but got 'wrap'"):
        qd.types.ndarray(boundary="wrap")
