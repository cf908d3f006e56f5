# tests/python/test_autodiff_forward.py: forward-mode autodiff (qd.ad.FwdMode, needs_dual=True) against
# central finite differences in float64: loss.dual is the Jacobian-vector product d loss / d param . seed.
# Arch-neutral (QD_TEST_ARCH).
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64)  # conftest.py turns qd.cpu into CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


N = 4
M = 5


def _jvp_by_differences(run, x, seed, h=1e-6):
    base = x.to_numpy()
    outs = []
    for sign in (1, -1):
        x.from_numpy(base + sign * h * seed.reshape(base.shape))
        outs.append(run())
    x.from_numpy(base)
    return (outs[0] - outs[1]) / (2 * h)


def test_elementwise_rules_and_serial_loop():
    rng = np.random.default_rng(1)
    x = qd.field(qd.f64, shape=N, needs_dual=True)
    y = qd.field(qd.f64, shape=M)
    out = qd.field(qd.f64, shape=N, needs_dual=True)
    x.from_numpy(rng.uniform(0.5, 1.2, N))
    y.from_numpy(rng.uniform(-1.0, 1.0, M))

    @qd.kernel
    def k():
        for i in x:
            s = 1.0
            for j in range(M):
                s = s * qd.sin(x[i]) + y[j] * qd.exp(x[i]) / (1.0 + x[i] ** 2)
            if s > 0.0:
                s = qd.sqrt(s) + qd.max(x[i], 0.8)
            else:
                s = qd.tanh(s) * qd.atan2(x[i], 2.0)
            out[i] = s + qd.log(x[i]) * qd.cast(i, qd.f64)

    def run():
        k()
        return out.to_numpy()

    seed = rng.uniform(-1.0, 1.0, N)
    expected = _jvp_by_differences(run, x, seed)
    with qd.ad.FwdMode(loss=out, param=x, seed=list(seed)):
        k()
    np.testing.assert_allclose(out.dual.to_numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.to_numpy(), run())  # the primal results are computed too
    np.testing.assert_array_equal(x.dual.to_numpy(), 0.0)  # the seed is cleared on exit


def test_scalar_loss_through_two_kernels_and_atomics():
    rng = np.random.default_rng(2)
    x = qd.field(qd.f64, shape=N, needs_dual=True)
    mid = qd.field(qd.f64, shape=N, needs_dual=True)
    loss = qd.field(qd.f64, shape=(), needs_dual=True)
    x.from_numpy(rng.uniform(0.5, 1.2, N))

    @qd.kernel
    def square():
        for i in x:
            mid[i] = x[i] * x[i] * 3.0

    @qd.kernel
    def total():
        for i in mid:
            loss[None] += qd.cos(mid[i]) - mid[i]

    def run():
        loss.fill(0.0)
        square()
        total()
        return loss.to_numpy()

    for k in range(N):
        seed = np.zeros(N)
        seed[k] = 1.0
        expected = _jvp_by_differences(run, x, seed)
        loss.fill(0.0)
        with qd.ad.FwdMode(loss=loss, param=x, seed=list(seed)):
            square()
            total()
        np.testing.assert_allclose(loss.dual.to_numpy(), expected, rtol=1e-6, atol=1e-7)


def test_ndarray_arguments_and_while_loop():
    rng = np.random.default_rng(3)
    a = qd.ndarray(qd.f64, shape=N, needs_dual=True)
    b = qd.ndarray(qd.f64, shape=N, needs_dual=True)
    a.from_numpy(rng.uniform(0.5, 1.2, N))

    @qd.kernel
    def k(src: qd.types.ndarray(), dst: qd.types.ndarray()):
        for i in range(N):
            v = src[i]
            n = 0
            while n < 3:
                v = v * src[i] + 0.25
                n += 1
            dst[i] = v

    def run():
        k(a, b)
        return b.to_numpy()

    seed = rng.uniform(-1.0, 1.0, N)
    expected = _jvp_by_differences(run, a, seed)
    with qd.ad.FwdMode(loss=b, param=a, seed=list(seed)):
        k(a, b)
    np.testing.assert_allclose(b.dual.to_numpy(), expected, rtol=1e-6, atol=1e-7)


def test_missing_dual_and_wrong_seed_are_errors():
    x = qd.field(qd.f64, shape=N, needs_dual=True)
    y = qd.field(qd.f64, shape=N)
    with pytest.raises(RuntimeError, match="Dual numbers of loss are not allocated"):
        with qd.ad.FwdMode(loss=y, param=x, seed=[1.0] * N):
            pass
    with pytest.raises(RuntimeError, match="seed is needed"):
        with qd.ad.FwdMode(loss=x, param=x):
            pass
    with pytest.raises(ValueError, match="seed has 2 values"):
        with qd.ad.FwdMode(loss=x, param=x, seed=[1.0, 2.0]):
            pass


def test_lazy_grad_and_lazy_dual_place_companions():
    x = qd.field(qd.f64, shape=N)
    y = qd.field(qd.f64, shape=N)
    k_int = qd.field(qd.i32, shape=N)
    qd.root.lazy_grad()
    qd.root.lazy_dual()
    assert x.grad is not None and y.dual is not None and k_int.grad is None
    x.from_numpy(np.arange(N, dtype=np.float64))

    @qd.kernel
    def k():
        for i in x:
            y[i] = x[i] * x[i]

    with qd.ad.FwdMode(loss=y, param=x, seed=[1.0] * N):
        k()
    np.testing.assert_allclose(y.dual.to_numpy(), 2 * np.arange(N))
    y.grad.fill(1.0)
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), 2 * np.arange(N))


def test_template_kernel_specializes_per_field_in_forward_mode():
    # each template argument has its own tangent kernel (the key of the call, not the first call's fields)
    x = qd.field(qd.f64, shape=N, needs_dual=True)
    a = qd.field(qd.f64, shape=N, needs_dual=True)
    b = qd.field(qd.f64, shape=N, needs_dual=True)
    x.from_numpy(np.arange(N, dtype=np.float64))

    @qd.kernel
    def square(src: qd.template(), dst: qd.template()):
        for i in src:
            dst[i] = src[i] * src[i]

    for out in (a, b):
        with qd.ad.FwdMode(loss=out, param=x, seed=[1.0] * N):
            square(x, out)
        np.testing.assert_allclose(out.to_numpy(), np.arange(N) ** 2)
        np.testing.assert_allclose(out.dual.to_numpy(), 2 * np.arange(N))


def test_a_round_trip_through_an_integer_has_no_tangent():
    x = qd.field(qd.f64, shape=N, needs_dual=True)
    out = qd.field(qd.f64, shape=N, needs_dual=True)
    x.from_numpy(np.array([0.25, 1.5, 2.75, 4.0]))

    @qd.kernel
    def k():
        for i in x:
            out[i] = qd.cast(qd.cast(x[i] * 3.0, qd.i32), qd.f64) + x[i]  # the integer part is piecewise constant

    with qd.ad.FwdMode(loss=out, param=x, seed=[1.0] * N):
        k()
    np.testing.assert_array_equal(out.dual.to_numpy(), np.ones(N))
