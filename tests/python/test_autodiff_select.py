# tests/python/test_autodiff_select.py: autodiff through selects (`a if c else b`, qd.select) whose arms load
# arrays: the arm not taken must be neither read nor given a gradient (x[i - 1] at i == 0 is outside x), in the
# adjoint (kernel.grad, qd.ad.Tape) and in forward mode (qd.ad.FwdMode). Debug mode turns any such access into
# an IndexError, so these tests run with debug=True; gradients are checked against central differences.
# Arch-neutral (QD_TEST_ARCH).
import numpy as np
import pytest

import quadrants as qd
from finite_differences import central_difference

N, M = 5, 4


@pytest.fixture(params=[True, False], ids=["debug", "release"])
def debug(request):
    qd.init(arch=qd.cpu, debug=request.param, ad_stack_experimental_enabled=True)  # qd.cpu: CUDA under QD_TEST_ARCH=cuda
    yield request.param
    qd.reset()


@pytest.fixture
def debug64():
    qd.init(arch=qd.cpu, debug=True, default_fp=qd.f64, ad_stack_experimental_enabled=True)
    yield
    qd.reset()


def _shift_kernel(x, y):
    @qd.kernel
    def shift():
        for i in x:
            y[i] = x[i - 1] if i > 0 else 0.0

    return shift


SHIFT_GRAD = np.array([1, 1, 1, 1, 1, 1, 1, 0], dtype=np.float32)  # y[i] = x[i-1]: d sum(y)/d x[j] = (j < 7)


def test_shifted_read_under_ternary_grad(debug):
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    y = qd.field(qd.f32, shape=8, needs_grad=True)
    shift = _shift_kernel(x, y)
    x.from_numpy(np.arange(8, dtype=np.float32))
    shift()
    np.testing.assert_array_equal(y.to_numpy(), [0, 0, 1, 2, 3, 4, 5, 6])
    y.grad.fill(1.0)
    shift.grad()
    np.testing.assert_array_equal(x.grad.to_numpy(), SHIFT_GRAD)
    np.testing.assert_array_equal(y.grad.to_numpy(), 0.0)  # y[i] = ... overwrites: its gradient is consumed


def test_shifted_read_under_ternary_tape(debug):
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    y = qd.field(qd.f32, shape=8, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    shift = _shift_kernel(x, y)

    @qd.kernel
    def total():
        for i in y:
            loss[None] += y[i] * qd.cast(i + 1, qd.f32)

    x.from_numpy(np.arange(8, dtype=np.float32))
    with qd.ad.Tape(loss=loss):
        shift()
        total()
    assert loss[None] == pytest.approx(sum((i + 1) * (i - 1) for i in range(1, 8)))
    # d loss / d x[j] = (j + 2) for j < 7: x[j] reaches y[j + 1], weighted by j + 2.
    np.testing.assert_array_equal(x.grad.to_numpy(), [2, 3, 4, 5, 6, 7, 8, 0])


def test_select_call_and_nested_ternaries_grad(debug):
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    y = qd.field(qd.f32, shape=8, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            # An active select whose untaken arm reads past either end, and a nested one.
            far = x[i - 2] if i > 1 else (x[i - 1] if i > 0 else 0.0)
            y[i] = qd.select(i < 7, x[i + 1], 0.0) * 2.0 + far

    x.from_numpy(np.arange(8, dtype=np.float32))
    k()
    y.grad.fill(1.0)
    k.grad()
    # x[j+1] * 2 for i = j - 1 <= 6; far reads x[i-2] for i >= 2 (j <= 5) and x[0] at i = 1.
    expected = np.zeros(8, dtype=np.float32)
    expected[1:8] += 2.0
    expected[0:6] += 1.0
    expected[0] += 1.0
    np.testing.assert_array_equal(x.grad.to_numpy(), expected)


def _stencil(x, out):
    @qd.kernel
    def stencil():
        for i, j in x:
            left = x[i - 1, j] if i > 0 else x[i, j]
            right = qd.select(i < N - 1, x[i + 1, j], x[i, j])
            down = x[i, j - 1] if j > 0 else 0.5 * x[i, j]
            s = 0.0
            for k in range(2):  # a serial loop carrying s, with a boundary read inside
                s = s * (x[i, j + k + 1] if j + k + 1 < M else 1.0) + left
            out[i, j] = left * right - qd.sin(down) + s * x[i, j]

    return stencil


def test_stencil_with_boundary_ternaries_matches_finite_differences(debug64):
    rng = np.random.default_rng(3)
    x = qd.field(qd.f64, shape=(N, M), needs_grad=True)
    out = qd.field(qd.f64, shape=(N, M), needs_grad=True)
    x.from_numpy(rng.uniform(0.5, 1.5, (N, M)))
    stencil = _stencil(x, out)

    def run():
        stencil()
        return out.to_numpy()

    expected = central_difference(run, x)
    stencil()
    out.grad.fill(1.0)
    x.grad.fill(0.0)
    stencil.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-6, atol=1e-7)


def test_shifted_read_forward_mode(debug):
    x = qd.field(qd.f32, shape=8, needs_dual=True)
    y = qd.field(qd.f32, shape=8, needs_dual=True)
    shift = _shift_kernel(x, y)
    x.from_numpy(np.arange(8, dtype=np.float32))
    seed = [float(j + 1) for j in range(8)]
    with qd.ad.FwdMode(loss=y, param=x, seed=seed):
        shift()
    np.testing.assert_array_equal(y.dual.to_numpy(), [0, 1, 2, 3, 4, 5, 6, 7])  # y_dot[i] = seed[i - 1]
    np.testing.assert_array_equal(y.to_numpy(), [0, 0, 1, 2, 3, 4, 5, 6])


def test_stencil_forward_mode_matches_finite_differences(debug64):
    rng = np.random.default_rng(4)
    x = qd.field(qd.f64, shape=(N, M), needs_dual=True)
    out = qd.field(qd.f64, shape=(N, M), needs_dual=True)
    x.from_numpy(rng.uniform(0.5, 1.5, (N, M)))
    stencil = _stencil(x, out)
    seed = rng.uniform(-1.0, 1.0, (N, M))
    base = x.to_numpy()
    outs = []
    for sign in (1, -1):
        x.from_numpy(base + sign * 1e-6 * seed)
        stencil()
        outs.append(out.to_numpy())
    x.from_numpy(base)
    with qd.ad.FwdMode(loss=out, param=x, seed=list(seed.ravel())):
        stencil()
    np.testing.assert_allclose(out.dual.to_numpy(), (outs[0] - outs[1]) / 2e-6, rtol=1e-6, atol=1e-7)


def test_boundary_ternaries_in_conditions_and_constant_arrays_grad(debug):
    x = qd.field(qd.f32, shape=8, needs_grad=True)
    w = qd.field(qd.f32, shape=8)  # no gradient: its loads are constants, still read only when chosen
    y = qd.field(qd.f32, shape=8, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            v = x[i] * (w[i + 1] if i < 7 else 1.0)
            if (x[i - 1] if i > 0 else 0.0) > 2.5:  # the condition of an if reads past x's start at i == 0
                v = v * 3.0
            y[i] = v

    x.from_numpy(np.arange(8, dtype=np.float32))
    w.from_numpy(np.full(8, 2.0, dtype=np.float32))
    k()
    y.grad.fill(1.0)
    k.grad()
    # v = x[i] * (2, or 1 at i = 7), tripled where x[i - 1] = i - 1 > 2.5, i.e. i >= 4.
    np.testing.assert_array_equal(x.grad.to_numpy(), [2, 2, 2, 2, 6, 6, 6, 3])
