# tests/python/test_integer_powers.py: a float to an integer power, computed as upstream lowers it.
"""Upstream Quadrants turns `x ** n` with an integer n into squaring and multiplying in x's type (the reciprocal for
n <= 0) instead of calling pow; results are those products, rounded as they go, which `powf` does not always give
(and costs a libm call). The reference here is the same algorithm in numpy, in the same dtype."""

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _by_squaring(x, n):
    """Upstream's loop: result = 1; a = x; for each bit of |n|: result *= a if the bit is set, a *= a."""
    dtype = x.dtype.type
    result, a, m = np.ones_like(x), x.copy(), abs(n)
    while m:
        if m & 1:
            result = (result * a).astype(x.dtype)
        a = (a * a).astype(x.dtype)
        m >>= 1
    return (dtype(1) / result).astype(x.dtype) if n <= 0 else result


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_constant_integer_exponents_square_and_multiply(dtype):
    qd_dtype = qd.f32 if dtype == np.float32 else qd.f64
    x = np.random.default_rng(3).uniform(0.3, 1.7, 4096).astype(dtype)
    exponents = (2, 3, 5, 7, 0, -1, -3)
    out = np.zeros((len(exponents), x.size), dtype)

    @qd.kernel
    def powers(x: qd.types.ndarray(dtype=qd_dtype, ndim=1), out: qd.types.ndarray(dtype=qd_dtype, ndim=2)):
        for i in x:
            out[0, i] = x[i] ** 2
            out[1, i] = x[i] ** 3
            out[2, i] = x[i] ** 5
            out[3, i] = x[i] ** 7
            out[4, i] = x[i] ** 0
            out[5, i] = x[i] ** -1
            out[6, i] = x[i] ** -3

    powers(x, out)
    for row, n in enumerate(exponents):
        np.testing.assert_array_equal(out[row], _by_squaring(x, n), err_msg=f"x ** {n}")
    np.testing.assert_array_equal(out[0], x * x)  # exactly the product, not pow's approximation


def test_runtime_integer_exponents():
    x = np.random.default_rng(4).uniform(0.5, 1.5, 64).astype(np.float32)
    n = np.arange(-8, 56, dtype=np.int32)
    out = np.zeros_like(x)

    @qd.kernel
    def powers(x: qd.types.ndarray(), n: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in x:
            out[i] = x[i] ** n[i]

    powers(x, n, out)
    expected = np.array([_by_squaring(x[i:i + 1], int(n[i]))[0] for i in range(x.size)], np.float32)
    np.testing.assert_array_equal(out, expected)


def test_other_powers_keep_their_meaning():
    @qd.kernel
    def mixed(a: qd.i32, b: qd.f32) -> qd.types.vector(4, qd.f64):
        return qd.Vector([a ** 3, 2 ** b, b ** 0.5, a ** -1], qd.f64)

    got = mixed(3, 2.25)
    assert list(got) == [27.0, pytest.approx(2 ** 2.25, rel=1e-6), pytest.approx(1.5, rel=1e-6), 0.0]


def test_gradient_of_an_integer_power():
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    values = np.linspace(0.5, 2.0, 8).astype(np.float32)
    x.from_numpy(values)

    @qd.kernel
    def cube_sum():
        for i in x:
            loss[None] += x[i] ** 3

    with qd.ad.Tape(loss=loss):
        cube_sum()
    np.testing.assert_allclose(x.grad.to_numpy(), 3 * values ** 2, rtol=1e-6)
    assert loss[None] == pytest.approx(float((values.astype(np.float64) ** 3).sum()), rel=1e-6)


def test_debug_mode_checks_runtime_exponents_from_zero_up():
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def power(x: qd.i32, n: qd.i32) -> qd.i32:
        return x ** n

    assert power(3, 0) == 1 and power(3, 2) == 9  # 0 is an exponent, not a negative one
    with pytest.raises(AssertionError, match="Negative exponent in pow"):
        power(3, -1)
    qd.init(arch=qd.cpu)
