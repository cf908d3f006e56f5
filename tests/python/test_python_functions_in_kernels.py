# tests/python/test_python_functions_in_kernels.py: plain Python functions and lambdas called on kernel values are
# inlined like @qd.func (upstream runs them on its expressions as it traces the kernel), and shapeless float fields
# have an unplaced .grad/.dual that the program places.
import numpy as np
import pytest

import quadrants as qd

FUNCTIONS = [lambda x: x * x, lambda x: qd.sin(x) + 1.0, lambda x: (x - 3) * (x - 1), lambda y: qd.max(y, 0.0)]
NUMPY = [lambda x: x * x, lambda x: np.sin(x) + 1.0, lambda x: (x - 3) * (x - 1), lambda y: np.maximum(y, 0.0)]


@pytest.mark.parametrize("index", range(len(FUNCTIONS)))
def test_a_lambda_from_a_list_on_one_line_is_the_right_one(index):
    f = FUNCTIONS[index]

    @qd.kernel
    def k(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in x:
            y[i] = f(x[i])

    x = np.linspace(-2.0, 2.0, 9)
    y = np.zeros(9)
    k(x, y)
    np.testing.assert_allclose(y, NUMPY[index](x), rtol=1e-6)


def _helper(a, b=2.0):
    c = a * b
    return c + qd.cos(a)


def test_a_plain_function_with_defaults_and_locals():
    pick = [lambda u: _helper(u), lambda u: _helper(u, b=-1.0)]  # noqa: PLW0108 (lambdas calling functions)

    @qd.kernel
    def k(x: qd.types.ndarray(), y: qd.types.ndarray(), z: qd.types.ndarray()):
        for i in x:
            y[i] = pick[0](x[i])
            z[i] = pick[1](x[i])

    x = np.linspace(0.0, 1.0, 5)
    y, z = np.zeros(5), np.zeros(5)
    k(x, y, z)
    np.testing.assert_allclose(y, 2 * x + np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(z, -x + np.cos(x), rtol=1e-6)


def test_a_plain_function_of_compile_time_values_still_runs_in_python():
    calls = []

    def size(n):
        calls.append(n)
        return n * 2

    @qd.kernel
    def k(y: qd.types.ndarray()):
        for i in range(size(3)):
            y[i] = 1

    y = np.zeros(6, dtype=np.int32)
    k(y)
    assert y.tolist() == [1] * 6 and calls == [3]


def test_gradients_through_a_lambda():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    f = lambda v: qd.exp(v) * v  # noqa: E731
    x = qd.field(qd.f64)
    y = qd.field(qd.f64)
    qd.root.dense(qd.i, 4).place(x, x.grad, y, y.grad)  # shapeless fields place their gradients explicitly

    @qd.kernel
    def k():
        for i in x:
            y[i] = f(x[i])

    values = np.array([0.1, 0.5, -0.3, 1.2])
    x.from_numpy(values)
    y.grad.fill(1.0)
    k()
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), np.exp(values) * (1 + values), rtol=1e-12)


def test_a_shapeless_fields_gradient_exists_unplaced_and_is_placed_by_lazy_grad():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f32)
    n = qd.field(qd.i32)
    assert x.grad is not None and x.grad.shape is None and n.grad is None
    qd.root.dense(qd.i, 3).place(x, n)
    assert x.grad.shape is None  # not asked for: not placed beside x
    qd.root.lazy_grad()
    assert x.grad.shape == (3,)
    x.grad.fill(2.0)
    assert x.grad.to_numpy().tolist() == [2.0, 2.0, 2.0]
