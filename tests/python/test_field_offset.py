# tests/python/test_field_offset.py: field offsets: shifted indices in kernels, struct-for loops and Python scope.
"""Offsets from issue 12: qd.field(dtype, shape=(4,), offset=(-2,)) is indexed -2..1 everywhere, and
place(x, offset=...) does the same for fields placed in SNodes; copies to numpy ignore the offset."""

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_offset_indices_in_python_and_kernels():
    x = qd.field(qd.f32, shape=(4,), offset=(-2,))
    x[-2] = 1.0
    x[1] = 4.0
    np.testing.assert_array_equal(x.to_numpy(), [1, 0, 0, 4])

    @qd.kernel
    def read(i: qd.i32) -> qd.f32:
        return x[i]

    @qd.kernel
    def indices():
        for i in x:
            x[i] = i * 10

    assert read(-2) == 1.0 and read(1) == 4.0
    indices()
    np.testing.assert_array_equal(x.to_numpy(), [-20, -10, 0, 10])
    assert x[-1] == -10


def test_struct_for_over_2d_offsets_and_grouped():
    a = qd.field(qd.i32)
    qd.root.dense(qd.ij, (5, 3)).place(a, offset=(16, -4))
    b = qd.field(qd.i32, shape=(5, 3), offset=(16, -4))

    @qd.kernel
    def fill():
        for i, j in a:
            a[i, j] = i + j * 100
        for I in qd.grouped(b):
            b[I] = I[0] * I[1]

    fill()
    i, j = np.meshgrid(np.arange(16, 21), np.arange(-4, -1), indexing="ij")
    np.testing.assert_array_equal(a.to_numpy(), i + j * 100)
    np.testing.assert_array_equal(b.to_numpy(), i * j)
    assert a[20, -2] == 20 - 200


def test_vector_and_matrix_fields_with_offsets():
    v = qd.Vector.field(2, qd.i32, shape=4, offset=8)
    m = qd.Matrix.field(2, 2, qd.f32, shape=(2, 2), offset=(-1, -1))

    @qd.kernel
    def fill():
        for i in v:
            v[i] = qd.Vector([i, -i])
        for i, j in m:
            m[i, j][0, 1] = i + j

    fill()
    np.testing.assert_array_equal(v.to_numpy(), [[8, -8], [9, -9], [10, -10], [11, -11]])
    assert v[11][1] == -11
    assert m[0, -1][0, 1] == -1 and m[-1, -1][0, 1] == -2


def test_offset_with_serial_loop_and_template_argument():
    x = qd.field(qd.i32, shape=6, offset=-3)

    @qd.kernel
    def sums(f: qd.template()) -> qd.i32:
        total = 0
        for k in range(1):
            for i in f:  # a serial struct-for (inside another loop)
                f[i] = i
                total += i
        return total

    assert sums(x) == sum(range(-3, 3))
    np.testing.assert_array_equal(x.to_numpy(), np.arange(-3, 3))


def test_sparse_field_with_offset():
    x = qd.field(qd.f32)
    qd.root.pointer(qd.i, 4).dense(qd.i, 4).place(x, offset=-8)
    count = qd.field(qd.i32, shape=())

    @qd.kernel
    def run():
        x[-7] = 1.0
        x[6] = 2.0
        for i in x:
            count[None] += 1

    run()
    assert count[None] == 8
    np.testing.assert_array_equal(np.nonzero(x.to_numpy())[0], [1, 14])
    assert x[-7] == 1.0 and x[6] == 2.0


def test_offset_errors():
    with pytest.raises(qd.QuadrantsCompilationError, match="The dimensionality of shape and offset must be the same"):
        qd.field(qd.f32, shape=3, offset=(3, 4))
    with pytest.raises(qd.QuadrantsCompilationError, match="shape cannot be None when offset is set"):
        qd.Vector.field(3, qd.f32, shape=None, offset=(3,))
    with pytest.raises(qd.QuadrantsCompilationError, match="The dimensionality of shape and offset"):
        qd.Matrix.field(3, 3, qd.i32, shape=(32, 16, 8), offset=(32, 16))
