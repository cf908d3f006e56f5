# Gradients through dataclass, data_oriented and qd.Tensor arguments: the arrays a kernel reads through
# them (leaves, compound_params.py) get their gradient arrays in kernel.grad() and under qd.ad.Tape.
import dataclasses

import numpy as np
import pytest

import quadrants as qd


@dataclasses.dataclass(frozen=True)
class State:
    x: qd.types.ndarray()
    y: qd.Tensor
    w: qd.f32


@qd.kernel
def weighted_squares(s: State, loss: qd.types.ndarray()):
    for i in range(s.x.shape[0]):
        s.y[i] = s.x[i] * s.x[i] * s.w
    for i in range(s.x.shape[0]):
        loss[None] += s.y[i]


def _ndarray(values, needs_grad=True):
    a = qd.ndarray(qd.f32, len(values), needs_grad=needs_grad)
    a.from_numpy(np.asarray(values, np.float32))
    return a


def test_tape_through_a_dataclass_with_ndarray_and_tensor_members():
    x = _ndarray([1, 2, 3])
    loss = qd.ndarray(qd.f32, (), needs_grad=True)
    state = State(x, qd.tensor(qd.f32, 3, needs_grad=True), 2.0)
    with qd.ad.Tape(loss=loss):
        weighted_squares(state, loss)
    assert loss.to_numpy() == 28
    np.testing.assert_allclose(x.grad.to_numpy(), [4, 8, 12])  # d/dx of 2 x^2


def test_kernel_grad_with_a_member_without_gradient():
    @qd.kernel
    def weighted_total(s: State, loss: qd.types.ndarray()):
        for i in range(s.x.shape[0]):
            loss[None] += s.y[i] * s.w + s.x[i]

    x = _ndarray([1, 2, 3], needs_grad=False)  # no gradient: only y's flows
    y = qd.tensor(qd.f32, 3, needs_grad=True)
    loss = qd.ndarray(qd.f32, (), needs_grad=True)
    loss.grad.fill(1.0)
    weighted_total.grad(State(x, y, 3.0), loss)
    np.testing.assert_allclose(y.grad.to_numpy(), [3, 3, 3])


def test_tensor_parameter_none_then_array_under_a_tape():
    bias = _ndarray([3, 0, 0, 0])
    loss = qd.ndarray(qd.f32, (), needs_grad=True)

    @qd.kernel
    def pick_first(loss: qd.types.NDArray[qd.f32, None], bias: qd.Tensor):
        if qd.static(bias is not None):
            loss[None] = bias[0] * 2.0

    with qd.ad.Tape(loss=loss):
        pick_first(loss, None)
        pick_first(loss, qd.wrap(bias))
        pick_first(loss, None)
    assert loss.to_numpy() == 6
    np.testing.assert_allclose(bias.grad.to_numpy(), [2, 0, 0, 0])


def test_data_oriented_ndarray_members():
    @qd.data_oriented
    class Model:
        def __init__(self):
            self.w = _ndarray([0.5, 2.0])

        @qd.kernel
        def forward(self, x: qd.types.ndarray(), loss: qd.types.ndarray()):
            for i in range(2):
                loss[None] += qd.sin(self.w[i] * x[i])

    model = Model()
    x = _ndarray([1.0, 3.0], needs_grad=False)
    loss = qd.ndarray(qd.f32, (), needs_grad=True)
    with qd.ad.Tape(loss=loss):
        model.forward(x, loss)
    np.testing.assert_allclose(model.w.grad.to_numpy(), np.cos([0.5, 6.0]) * [1.0, 3.0], rtol=1e-5)


def test_kernels_read_and_write_the_gradient_of_array_arguments():
    @qd.kernel
    def seed(a: qd.types.ndarray(), s: State):
        for i in range(a.shape[0]):
            a.grad[i] = 3.0 * i
            s.x.grad[i] += 1.0
            s.y.grad[i] = a.grad[i] + s.x.grad[i]

    a = _ndarray([0, 0, 0])
    state = State(_ndarray([0, 0, 0]), qd.tensor(qd.f32, 3, needs_grad=True), 1.0)
    seed(a, state)
    seed(a, state)
    np.testing.assert_array_equal(a.grad.to_numpy(), [0, 3, 6])
    np.testing.assert_array_equal(state.x.grad.to_numpy(), [2, 2, 2])
    np.testing.assert_array_equal(state.y.grad.to_numpy(), [2, 5, 8])
    fresh = _ndarray([0, 0, 0])  # another array: its own gradient, not the first call's
    seed(fresh, state)
    np.testing.assert_array_equal(fresh.grad.to_numpy(), [0, 3, 6])


def test_reading_the_gradient_of_an_array_without_one_is_a_clear_error():
    @qd.kernel
    def read(a: qd.types.ndarray()):
        for i in range(a.shape[0]):
            a.grad[i] = 1.0

    with pytest.raises(qd.QuadrantsTypeError, match="'a.grad' is read, but the array passed for 'a' has no grad"):
        read(np.zeros(3, np.float32))


def test_a_gradient_read_is_found_from_the_kernels_own_lines():
    # Deciding at decoration whether a kernel reads `a.grad` parses only the kernel's own lines, not its whole file
    # (import genesis decorates hundreds of kernels); an indented kernel with a split signature and a parenthesized
    # array name must still be recognized, or its call would not find the gradient array.
    from quadrants.kernels.definition import _own_tree

    @qd.kernel
    def seed(
        a: qd.types.ndarray(),  # written through its gradient below
    ):
        for i in range(a.shape[0]):
            (a
             ).grad[i] = 2.0 * i

    assert _own_tree(seed.fn) is not None
    a = _ndarray([0, 0, 0])
    seed(a)
    np.testing.assert_array_equal(a.grad.to_numpy(), [0, 2, 4])
