# tests/python/test_matrix_diag_in_kernels.py: qd.Matrix.diag(dim, val) inside kernels, with a constant or a
# kernel value on the diagonal (it was inlined as plain Python and failed on its argument check).
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_diag_of_a_kernel_value_and_of_a_constant():
    @qd.kernel
    def k(s: qd.f32) -> qd.types.matrix(3, 3, qd.f32):
        return qd.Matrix.diag(3, s * 2.0) + qd.Matrix.diag(dim=3, val=1)

    np.testing.assert_allclose(k(1.5), np.diag([4.0, 4.0, 4.0]))


def test_diag_of_a_kernel_value_is_differentiable():
    x = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        m = qd.Matrix.diag(2, x[None] * x[None]) @ qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        loss[None] += m.sum()  # x^2 * (1 + 2 + 3 + 4)

    x[None] = 3.0
    with qd.ad.Tape(loss=loss):
        k()
    assert loss[None] == pytest.approx(90.0)
    assert x.grad[None] == pytest.approx(60.0)  # d/dx 10 x^2 at x = 3


def test_diag_needs_a_compile_time_size_and_a_scalar():
    @qd.kernel
    def bad_size(n: qd.i32) -> qd.f32:
        return qd.Matrix.diag(n, 1.0)[0, 0]

    @qd.kernel
    def bad_value() -> qd.f32:
        return qd.Matrix.diag(2, qd.Vector([1.0, 2.0]))[0, 0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.Matrix.diag\(dim, val\) needs a positive compile-time int dim"):
        bad_size(2)
    with pytest.raises(qd.QuadrantsTypeError, match=r"needs a scalar val, but got a 2-vector"):
        bad_value()
