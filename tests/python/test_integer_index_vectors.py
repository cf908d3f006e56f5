# tests/python/test_integer_index_vectors.py: vectors that quadrants 1.3.3 types as integers (qd.Vector.unit's
# default dtype among them) index fields and ndarrays inside kernels.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_vector_unit_is_an_integer_vector_by_default():
    @qd.kernel
    def k() -> qd.types.vector(2, qd.f32):
        v = qd.Vector.unit(2, 1)
        v[0] = 2.7  # an integer local: 2, as 1.3.3 (with its precision warning)
        return v * 0.5

    np.testing.assert_allclose(k(), [1.0, 0.5])


def test_index_expressions_built_from_unit_vectors():
    x = qd.field(qd.f32, shape=(3, 3))
    y = qd.field(qd.f32, shape=(3, 3))

    @qd.kernel
    def k(i: qd.i32):
        for j in range(3):
            I = qd.Vector([1, j]) + qd.Vector.unit(2, i)
            x[I] = 1.0
        for I in qd.grouped(qd.ndrange(2, 2)):
            y[I + qd.Vector.unit(2, 0)] += 1.0

    k(0)
    np.testing.assert_array_equal(x.to_numpy(), [[0, 0, 0], [0, 0, 0], [1, 1, 1]])  # 1.3.3's result
    np.testing.assert_array_equal(y.to_numpy(), [[0, 0, 0], [1, 1, 0], [1, 1, 0]])


def test_vector_unit_with_a_kernel_value_index():
    @qd.kernel
    def k(i: qd.i32) -> qd.types.vector(3, qd.i32):
        return qd.Vector.unit(3, i)

    @qd.kernel
    def typed(i: qd.i32) -> qd.types.vector(3, qd.f32):
        return qd.Vector.unit(3, i, qd.f32) * 1.5

    for i in range(3):
        np.testing.assert_array_equal(k(i), np.eye(3, dtype=int)[i])
    np.testing.assert_array_equal(k(5), [0, 0, 0])  # out of range: no entry is 1, as 1.3.3's (i == k) entries
    np.testing.assert_allclose(typed(1), [0.0, 1.5, 0.0])
