# tests/python/test_high_rank_arrays.py: arrays of up to 12 dims (upstream's quadrants_max_num_indices), plus a
# matrix element's two, in fields, ndarrays, layouts, external arrays and kernels.
import numpy as np
import pytest

import quadrants as qd
from quadrants._lib import core

RANK = 12


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_the_limit_is_upstreams():
    assert core.get_max_num_indices() == RANK
    assert qd.runtime._core.max_ndim == RANK + 2
    assert repr(qd.axes(RANK - 1)[0]) == f"qd.axes({RANK - 1})" and repr(qd.i[0]) == "qd.i"
    with pytest.raises(ValueError, match=rf"An axis is an int in \[0, {RANK}\), but got {RANK}\."):
        qd.axes(RANK)


@pytest.mark.parametrize("backend", [qd.Backend.FIELD, qd.Backend.NDARRAY], ids=["field", "ndarray"])
def test_rank_12_tensor_with_a_reversed_layout(backend):
    shape = tuple(2 + (i % 2) for i in range(RANK))
    layout = tuple(reversed(range(RANK)))
    a = qd.tensor(qd.f32, shape=shape, backend=backend, layout=layout)
    assert tuple(a.shape) == shape
    index = tuple(i % 2 for i in range(RANK))
    a[index] = 5.0
    assert a[index] == 5.0
    assert a.to_numpy()[index] == 5.0 and a.to_numpy().sum() == 5.0


def test_kernel_over_a_rank_12_field_and_ndarray():
    shape = (2,) * RANK
    field = qd.field(qd.i32, shape=shape)
    array = qd.ndarray(qd.i32, shape=shape)

    @qd.kernel
    def fill(out: qd.types.ndarray(ndim=RANK)):
        for I in qd.grouped(field):
            field[I] = I.sum()
            out[I] = I[RANK - 1] + 10 * I[0]

    fill(array)
    grid = np.indices(shape)
    np.testing.assert_array_equal(field.to_numpy(), grid.sum(axis=0))
    np.testing.assert_array_equal(array.to_numpy(), grid[RANK - 1] + 10 * grid[0])


def test_matrix_elements_on_top_of_12_dims():
    shape = (1,) * (RANK - 1) + (3,)
    m = qd.Matrix.ndarray(2, 2, qd.f32, shape=shape)

    @qd.kernel
    def fill(m: qd.types.ndarray(dtype=qd.types.matrix(2, 2, qd.f32), ndim=RANK)):
        for I in qd.grouped(m):
            m[I] = qd.Matrix([[I[RANK - 1], 1.0], [2.0, 3.0]])

    fill(m)
    out = m.to_numpy()
    assert out.shape == shape + (2, 2)
    assert out[(0,) * (RANK - 1) + (2,)].tolist() == [[2.0, 1.0], [2.0, 3.0]]
    with pytest.raises(ValueError, match=f"at most {RANK + 2} dimensions including element dimensions, but "
                                         f"{RANK + 3} were requested"):
        qd.Matrix.ndarray(2, 2, qd.f32, shape=(1,) * (RANK + 1))


def test_numpy_arrays_of_14_dims_are_kernel_arguments():
    @qd.kernel
    def bump(x: qd.types.ndarray(ndim=RANK + 2)):
        for I in qd.grouped(x):
            x[I] += 1

    x = np.zeros((1,) * (RANK + 1) + (2,), np.int32)
    bump(x)
    assert x.sum() == 2
    with pytest.raises(ValueError, match="up to 14 dimensions, but got 15"):
        bump(np.zeros((1,) * 15, np.int32))
