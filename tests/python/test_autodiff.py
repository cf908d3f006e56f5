# tests/python/test_autodiff.py: reverse-mode autodiff (kernel.grad, qd.ad.Tape) against central finite differences.
#
# Every derivative rule of src/passes/ad_rules.cpp is checked in float64: the adjoint kernel's gradient
# against (f(x + h) - f(x - h)) / 2h computed by the same forward kernel. Arch-neutral (QD_TEST_ARCH).
import warnings

import numpy as np
import pytest

import quadrants as qd
from finite_differences import central_difference


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_experimental_enabled=True)  # qd.cpu: CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


N = 5


def _check_unary(fn, inputs):
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    y = qd.field(qd.f64, shape=N, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            y[i] = fn(x[i])

    x.from_numpy(np.asarray(inputs, dtype=np.float64))

    def run():
        k()
        return y.to_numpy()

    expected = central_difference(run, x)
    k()
    y.grad.fill(1.0)
    x.grad.fill(0.0)
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(y.grad.to_numpy(), 0.0)  # a store's adjoint zeroes what it read (upstream)


@qd.func
def _neg(v):
    return -v


@qd.func
def _sqrt(v):
    return qd.sqrt(v)


@qd.func
def _rsqrt(v):
    return qd.rsqrt(v)


@qd.func
def _sin(v):
    return qd.sin(v)


@qd.func
def _cos(v):
    return qd.cos(v)


@qd.func
def _tan(v):
    return qd.tan(v)


@qd.func
def _asin(v):
    return qd.asin(v)


@qd.func
def _acos(v):
    return qd.acos(v)


@qd.func
def _atan(v):
    return qd.atan2(v, 1.0)


@qd.func
def _tanh(v):
    return qd.tanh(v)


@qd.func
def _exp(v):
    return qd.exp(v)


@qd.func
def _log(v):
    return qd.log(v)


@qd.func
def _abs(v):
    return abs(v)


@qd.func
def _floor(v):
    return qd.floor(v) * v


@qd.func
def _ceil(v):
    return qd.ceil(v) * v


@qd.func
def _round(v):
    return qd.round(v) * v


@qd.func
def _log2(v):
    return qd.math.log2(v)


@qd.func
def _exp2(v):
    return qd.math.exp2(v)


@qd.func
def _cast_f32(v):
    return qd.cast(v, qd.f32) * 2.0


@qd.func
def _cast_int_stops(v):
    return qd.cast(qd.cast(v * 3.0, qd.i32), qd.f64) + v * v


@qd.func
def _select(v):
    return qd.select(v > 0.0, v * v, -3.0 * v)


@qd.func
def _chain(v):
    return qd.exp(qd.sin(v) * v) / (1.0 + v * v)


UNARY = {
    "neg": (_neg, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "sqrt": (_sqrt, [0.3, 0.9, 1.5, 2.0, 4.0]),
    "rsqrt": (_rsqrt, [0.3, 0.9, 1.5, 2.0, 4.0]),
    "sin": (_sin, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "cos": (_cos, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "tan": (_tan, [-1.2, -0.3, 0.2, 0.7, 1.1]),
    "asin": (_asin, [-0.9, -0.3, 0.2, 0.5, 0.8]),
    "acos": (_acos, [-0.9, -0.3, 0.2, 0.5, 0.8]),
    "atan": (_atan, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "tanh": (_tanh, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "exp": (_exp, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "log": (_log, [0.3, 0.9, 1.5, 2.0, 4.0]),
    "abs": (_abs, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "floor": (_floor, [-1.5, -0.3, 0.2, 0.7, 2.4]),
    "ceil": (_ceil, [-1.5, -0.3, 0.2, 0.7, 2.4]),
    "round": (_round, [-1.4, -0.3, 0.2, 0.7, 2.4]),
    "log2": (_log2, [0.3, 0.9, 1.5, 2.0, 4.0]),
    "exp2": (_exp2, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "cast_f32": (_cast_f32, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "cast_int_stops": (_cast_int_stops, [-1.4, -0.3, 0.2, 0.7, 2.4]),
    "select": (_select, [-1.5, -0.3, 0.2, 0.7, 2.0]),
    "chain": (_chain, [-1.5, -0.3, 0.2, 0.7, 2.0]),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rules_match_finite_differences(name):
    fn, inputs = UNARY[name]
    if name == "cast_f32":
        x = qd.field(qd.f64, shape=N, needs_grad=True)  # f32 rounding: a looser tolerance below
        y = qd.field(qd.f64, shape=N, needs_grad=True)

        @qd.kernel
        def k():
            for i in x:
                y[i] = fn(x[i])

        x.from_numpy(np.asarray(inputs))
        y.grad.fill(1.0)
        k.grad()
        np.testing.assert_allclose(x.grad.to_numpy(), 2.0)
        return
    _check_unary(fn, inputs)


@qd.func
def _b_add(a, b):
    return a + b


@qd.func
def _b_sub(a, b):
    return a - b


@qd.func
def _b_mul(a, b):
    return a * b


@qd.func
def _b_truediv(a, b):
    return a / b


@qd.func
def _b_pow(a, b):
    return a ** b


@qd.func
def _b_min(a, b):
    return qd.min(a, b)


@qd.func
def _b_max(a, b):
    return qd.max(a, b)


@qd.func
def _b_atan2(a, b):
    return qd.atan2(a, b)


@qd.func
def _b_mixed(a, b):
    return a * qd.sin(b) + b / (a * a + 1.0)


BINARY = {
    "add": _b_add,
    "sub": _b_sub,
    "mul": _b_mul,
    "truediv": _b_truediv,
    "pow": _b_pow,
    "min": _b_min,
    "max": _b_max,
    "atan2": _b_atan2,
    "mixed": _b_mixed,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_rules_match_finite_differences(name):
    fn = BINARY[name]
    a = qd.field(qd.f64, shape=N, needs_grad=True)
    b = qd.field(qd.f64, shape=N, needs_grad=True)
    y = qd.field(qd.f64, shape=N, needs_grad=True)

    @qd.kernel
    def k():
        for i in a:
            y[i] = fn(a[i], b[i])

    a.from_numpy(np.array([0.5, 1.2, 2.0, 0.8, 1.7]))
    b.from_numpy(np.array([1.5, 0.3, 2.5, -0.6, 1.1]) if name != "pow" else np.array([1.5, 0.3, 2.5, 0.6, 1.1]))

    def run():
        k()
        return y.to_numpy()

    expected_a = central_difference(run, a)
    expected_b = central_difference(run, b)
    y.grad.fill(1.0)
    k.grad()
    np.testing.assert_allclose(a.grad.to_numpy(), expected_a, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b.grad.to_numpy(), expected_b, rtol=1e-6, atol=1e-7)


def test_branches_locals_and_serial_loop():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    w = qd.field(qd.f64, shape=3, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            v = x[i]
            if v > 0.5:
                v = v * v
            else:
                v = qd.sin(v) + 1.0
            for j in range(3):
                t = v * w[j] + j
                loss[None] += t * t

    x.from_numpy(np.array([-0.4, 0.2, 0.6, 1.3, 2.2]))
    w.from_numpy(np.array([0.5, -1.0, 2.0]))

    def run():
        loss[None] = 0.0
        k()
        return np.array([loss[None]])

    expected_x = central_difference(run, x)
    expected_w = central_difference(run, w)
    with qd.ad.Tape(loss=loss):
        k()
    np.testing.assert_allclose(x.grad.to_numpy(), expected_x, rtol=1e-6)
    np.testing.assert_allclose(w.grad.to_numpy(), expected_w, rtol=1e-6)


def test_two_kernel_pipeline_under_tape():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    y = qd.field(qd.f64, shape=N, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def step(scale: qd.f64):
        for i in x:
            y[i] = qd.exp(x[i] * scale)

    @qd.kernel
    def reduce():
        for i in y:
            loss[None] += y[i] * y[i] - y[i]

    xs = np.linspace(-1.0, 1.0, N)
    x.from_numpy(xs)
    with qd.ad.Tape(loss=loss):
        step(0.5)
        reduce()
    y_value = np.exp(0.5 * xs)
    assert loss[None] == pytest.approx((y_value ** 2 - y_value).sum())
    np.testing.assert_allclose(x.grad.to_numpy(), (2 * y_value - 1) * y_value * 0.5, rtol=1e-12)
    assert loss.grad[None] == 1.0


def test_atomics_add_and_sub():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    total = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            total[None] += x[i] * x[i]
            qd.atomic_sub(total[None], 3.0 * x[i])

    xs = np.arange(N, dtype=np.float64)
    x.from_numpy(xs)
    with qd.ad.Tape(loss=total):
        k()
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * xs - 3.0)


def test_vector_field():
    v = qd.Vector.field(3, qd.f64, shape=N, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in v:
            loss[None] += v[i].norm() + v[i][0] * v[i][2]

    vs = np.random.default_rng(1).uniform(-1.0, 1.0, (N, 3))
    v.from_numpy(vs)
    with qd.ad.Tape(loss=loss):
        k()
    norms = np.linalg.norm(vs, axis=1, keepdims=True)
    expected = vs / norms
    expected[:, 0] += vs[:, 2]
    expected[:, 2] += vs[:, 0]
    np.testing.assert_allclose(v.grad.to_numpy(), expected, rtol=1e-12)


def test_ndarrays_with_grad():
    a = qd.ndarray(qd.f64, N, needs_grad=True)
    b = qd.ndarray(qd.f64, N, needs_grad=True)
    c = qd.ndarray(qd.f64, N)  # no gradient: a constant

    @qd.kernel
    def k(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray()):
        for i in a:
            b[i] = qd.log(a[i]) * c[i]

    a.from_numpy(np.linspace(0.5, 2.0, N))
    c.from_numpy(np.arange(N, dtype=np.float64))
    assert c.grad is None
    np.testing.assert_array_equal(a.grad.to_numpy(), 0.0)
    k(a, b, c)
    b.grad.fill(1.0)
    k.grad(a, b, c)
    np.testing.assert_allclose(a.grad.to_numpy(), c.to_numpy() / a.to_numpy())


def test_vector_ndarray_with_grad_and_template_kernel():
    a = qd.Vector.ndarray(2, qd.f64, N, needs_grad=True)
    out = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k(a: qd.types.ndarray(), power: qd.template()):
        for i in a:
            out[None] += a[i][0] ** power * a[i][1]

    values = np.random.default_rng(2).uniform(0.5, 1.5, (N, 2))
    a.from_numpy(values)
    with qd.ad.Tape(loss=out):
        k(a, 3)
    expected = np.stack([3 * values[:, 0] ** 2 * values[:, 1], values[:, 0] ** 3], axis=1)
    np.testing.assert_allclose(a.grad.to_numpy(), expected, rtol=1e-12)


def test_clear_all_gradients_and_integer_fields():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    with pytest.raises(qd.QuadrantsRuntimeError, match="i32 is not supported for field with `needs_grad=True`"):
        qd.field(qd.i32, shape=N, needs_grad=True)  # integers have no gradient: upstream's error
    with pytest.raises(qd.QuadrantsRuntimeError, match="u8 is not supported for ndarray"):
        qd.ndarray(qd.u8, shape=N, needs_dual=True)
    x.grad.fill(2.0)
    qd.ad.clear_all_gradients()
    np.testing.assert_array_equal(x.grad.to_numpy(), 0.0)


def test_grad_replaced_and_no_grad():
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    total = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def accumulate(mul: qd.f64):
        for i in x:
            total[None] += x[i] * mul

    @qd.ad.grad_replaced
    def forward(mul):
        accumulate(mul)
        accumulate(mul)

    @qd.ad.grad_for(forward)
    def backward(mul):
        accumulate.grad(mul)

    with qd.ad.Tape(loss=total):
        forward(4.0)
    np.testing.assert_allclose(x.grad.to_numpy(), 4.0)  # the custom gradient ran once, not twice

    @qd.ad.no_grad
    def skipped():
        accumulate(1.0)

    with qd.ad.Tape(loss=total):
        skipped()
        accumulate(2.0)
    np.testing.assert_allclose(x.grad.to_numpy(), 2.0)


def test_kernel_without_gradients_warns_once_and_does_nothing():
    x = qd.field(qd.f64, shape=N)

    @qd.kernel
    def k():
        for i in x:
            x[i] = 1.0

    with pytest.warns(UserWarning, match="none of the arrays it uses has a gradient.*Nothing was done"):
        k.grad()  # upstream runs an adjoint that changes nothing (its test_mod does this on integer fields)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k.grad()  # once per kernel
    assert np.all(x.to_numpy() == 0.0)


def test_tape_skips_kernels_without_gradients():
    loss = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def nothing():
        for i in range(N):
            for j in range(N):
                pass

    with qd.ad.Tape(loss=loss):
        nothing()
    assert loss.grad[None] == 1.0


def test_tape_grad_check_passes_correct_gradients_and_catches_wrong_ones():
    x = qd.field(qd.f64, shape=(2, 2), needs_grad=True)
    v = qd.Vector.field(3, qd.f64, shape=2, needs_grad=True)
    loss = qd.field(qd.f64, shape=(), needs_grad=True)
    x.from_numpy(np.array([[1.0, 2.0], [3.0, 4.0]]))
    v.from_numpy(np.arange(6.0).reshape(2, 3))

    @qd.kernel
    def compute():
        for i, j in x:
            loss[None] += qd.cos(x[i, j]) * v[i][j]

    with qd.ad.Tape(loss, grad_check=[x, v]):
        compute()
    assert loss[None] == pytest.approx(sum(np.cos(x.to_numpy()[i, j]) * v.to_numpy()[i, j]
                                           for i in range(2) for j in range(2)))

    @qd.ad.grad_replaced
    def wrong():
        compute()

    @qd.ad.grad_for(wrong)
    def wrong_grad():
        compute.grad()
        x.grad.from_numpy(x.grad.to_numpy() * 1.5)  # a deliberately wrong gradient

    with pytest.raises(AssertionError, match=r"Grad check failed: .*variable 0 \(a qd.field\(f64\)\): smallest relative error 0.333"):
        with qd.ad.Tape(loss, grad_check=[x]):
            wrong()


def test_tape_grad_check_needs_a_float64_loss():
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    with pytest.raises(RuntimeError, match="needs a float64 loss"):
        with qd.ad.Tape(loss, grad_check=[loss]):
            pass


def test_an_unread_atomic_result_keeps_the_atomic_statement():
    # Genesis' MPM p2g: `prev = qd.atomic_add(grid.mass, w)`, whose reader a qd.static branch removes under autodiff
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    mass = qd.field(qd.f64, shape=(), needs_grad=True)
    keep = qd.field(qd.f64, shape=N)

    @qd.kernel
    def p2g(bookkeeping: qd.template()):
        for i in x:
            prev = qd.atomic_add(mass[None], x[i] * x[i])
            if qd.static(bookkeeping):
                keep[i] = prev

    x.from_numpy(np.arange(1.0, N + 1.0))
    with qd.ad.Tape(loss=mass):
        p2g(False)
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.arange(1.0, N + 1.0))
    with pytest.raises(qd.QuadrantsSyntaxError, match="uses the value an atomic operation returns"):
        p2g.grad(True)
