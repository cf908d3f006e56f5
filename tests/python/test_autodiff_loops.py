# tests/python/test_autodiff_loops.py: reverse-mode autodiff of loop-carried locals in serial loops
# (a local declared outside a serial loop and assigned inside it), against central finite differences
# in float64. Arch-neutral (QD_TEST_ARCH).
import numpy as np
import pytest

import quadrants as qd
from finite_differences import check_adjoint


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_experimental_enabled=True)  # qd.cpu: CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


N = 4
M = 5


def _fields(rng):
    x = qd.field(qd.f64, shape=N, needs_grad=True)
    y = qd.field(qd.f64, shape=M, needs_grad=True)
    out = qd.field(qd.f64, shape=N, needs_grad=True)
    x.from_numpy(rng.uniform(0.5, 1.2, N))
    y.from_numpy(rng.uniform(-1.0, 1.0, M))
    return x, y, out


def test_horner_loop_in_parallel_loop():
    x, y, out = _fields(np.random.default_rng(1))

    @qd.kernel
    def k():
        for i in x:
            s = 1.0
            for j in range(M):
                s = s * x[i] + y[j]
            out[i] = s

    check_adjoint(k, out, [x, y])


def test_linear_accumulation_and_two_carried_locals():
    x, y, out = _fields(np.random.default_rng(2))

    @qd.kernel
    def k():
        for i in x:
            s = 0.0
            p = x[i]
            for j in range(1, M):
                s += qd.sin(p) * y[j]
                p = p * y[j - 1] + 0.5
            out[i] = s + p * p

    check_adjoint(k, out, [x, y])


def test_carried_local_in_branch_and_nested_loops():
    x, y, out = _fields(np.random.default_rng(3))

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            for j in range(M):
                for r in range(2):
                    if y[j] > 0.0:
                        s = s * y[j] + x[i]
                    else:
                        s = qd.tanh(s) - y[j]
            out[i] = s

    check_adjoint(k, out, [x, y])


def test_carried_local_with_runtime_trip_count_and_integer_counter():
    x, y, out = _fields(np.random.default_rng(4))

    @qd.kernel
    def k(n: qd.i32):
        for i in x:
            s = x[i]
            count = 0
            for j in range(i, n):
                s = s * s * 0.5 + y[j] * count
                count += 1
            out[i] = s

    def run_kernel():
        k(M)

    run_kernel.grad = lambda: k.grad(M)
    check_adjoint(run_kernel, out, [x, y])


def test_loop_carried_local_in_parallel_loop_is_a_clear_error():
    x, y, out = _fields(np.random.default_rng(6))

    @qd.kernel
    def k():
        s = 0.0
        for i in x:
            s = s + x[i]
        out[0] = s

    with pytest.raises(qd.QuadrantsSyntaxError, match="assigns local 's' inside a parallel loop"):
        k.grad()


def test_linear_accumulations_run_each_iteration_once():
    # s += ... and s = s - ... only accumulate: upstream's exemption, no recomputation of earlier iterations.
    x, y, out = _fields(np.random.default_rng(7))

    @qd.kernel
    def k():
        for i in x:
            s = x[i] * 2.0
            t = 0.0
            for j in range(M):
                s += qd.sin(x[i] * y[j])
                if y[j] > 0.0:
                    t = t - y[j] * x[i]
            out[i] = s * t + s

    check_adjoint(k, out, [x, y])


def test_while_loop_with_carried_locals():
    x, y, out = _fields(np.random.default_rng(8))

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            n = 0
            while n < i + 2:
                s = s * qd.cos(s) + y[n] * x[i]
                n += 1
            out[i] = s

    check_adjoint(k, out, [x, y])


def test_while_loop_until_a_value_condition():
    x, y, out = _fields(np.random.default_rng(9))

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            while s < 3.0:
                s = s * 1.5 + y[i % M] * 0.1
            out[i] = s * x[i]

    check_adjoint(k, out, [x, y])


def _prefix_sum_kernels(out, x, n):
    @qd.kernel
    def serial_inside():
        for _ in range(1):
            for i in range(n):  # a serial loop: iteration i reads what iteration i - 1 wrote
                if i == 0:
                    out[i] = x[None]
                else:
                    out[i] = out[i - 1] * 2.0 + x[None]

    @qd.kernel
    def serialized():
        qd.loop_config(serialize=True)
        for i in range(n):
            if i == 0:
                out[i] = x[None]
            else:
                out[i] = out[i - 1] * 2.0 + x[None]

    @qd.kernel
    def parallel():
        for i in range(n):
            if i == 0:
                out[i] = x[None]
            else:
                out[i] = out[i - 1] * 2.0 + x[None]

    return serial_inside, serialized, parallel


@pytest.mark.parametrize("which", [0, 1])
def test_iterations_that_talk_through_an_array_are_swept_last_to_first(which):
    # out[k] = (2^(k+1) - 1) x, so d out[n-1] / dx = 2^n - 1; a first-to-last sweep gave 1 (a silent wrong gradient).
    n = 6
    x = qd.field(qd.f64, shape=(), needs_grad=True)
    out = qd.field(qd.f64, shape=n, needs_grad=True)
    kernel = _prefix_sum_kernels(out, x, n)[which]
    x[None] = 1.5
    kernel()
    np.testing.assert_allclose(out.to_numpy(), [(2 ** (k + 1) - 1) * 1.5 for k in range(n)])
    out.grad[n - 1] = 1.0
    kernel.grad()
    assert x.grad[None] == 2 ** n - 1


def test_a_parallel_loop_reading_another_iterations_write_is_an_error():
    x = qd.field(qd.f64, shape=(), needs_grad=True)
    out = qd.field(qd.f64, shape=4, needs_grad=True)
    parallel = _prefix_sum_kernels(out, x, 4)[2]
    parallel()
    with pytest.raises(qd.QuadrantsSyntaxError, match="read 'out' at another element than they write it"):
        parallel.grad()


def test_parallel_loops_reading_their_own_element_or_a_fixed_one_are_fine():
    n = 4
    x = qd.field(qd.f64, shape=(), needs_grad=True)
    out = qd.field(qd.f64, shape=2 * n, needs_grad=True)

    @qd.kernel
    def k():
        for i in range(n):
            out[i] = out[i] * 3.0 + out[n] * x[None]  # out[n] is never written here; out[i] only by iteration i

    out.from_numpy(np.arange(2.0 * n))
    x[None] = 0.5
    k()
    out.grad.fill(0.0)
    for i in range(n):
        out.grad[i] = 1.0
    k.grad()
    assert x.grad[None] == n * out[n]
    assert out.grad[n] == n * 0.5
    np.testing.assert_array_equal(out.grad.to_numpy()[:n], 3.0)


def test_time_steps_indexed_by_the_loop_variable_are_no_race():
    # upstream's differentiable-simulation shape: iteration b reads row t and writes row t + 1, column b only
    steps, balls, dt = 6, 3, 0.1
    x = qd.field(qd.f64, shape=(steps + 1, balls), needs_grad=True)
    v = qd.field(qd.f64, shape=(steps + 1, balls), needs_grad=True)

    @qd.kernel
    def step(t: qd.i32):
        for b in range(balls):
            v[t + 1, b] = v[t, b] - dt * 9.8
            x[t + 1, b] = x[t, b] + dt * v[t + 1, b]

    for t in range(steps):
        step(t)
    x.grad.fill(0.0)
    v.grad.fill(0.0)
    for b in range(balls):
        x.grad[steps, b] = 1.0
    for t in reversed(range(steps)):
        step.grad(t)
    np.testing.assert_allclose(x.grad.to_numpy()[0], 1.0)
    np.testing.assert_allclose(v.grad.to_numpy()[0], steps * dt)  # x[T] = x[0] + dt * (v[1] + ... + v[T])


def test_a_loop_variable_pinned_in_one_index_but_shifted_in_another_is_still_an_error():
    a = qd.field(qd.f64, shape=(4, 5), needs_grad=True)

    @qd.kernel
    def shift():
        for i, j in qd.ndrange(4, 4):
            a[i, j] = a[i, j + 1] * 2.0  # iteration (i, j) reads what iteration (i, j + 1) writes

    shift()
    with pytest.raises(qd.QuadrantsSyntaxError, match="read 'a' at another element than they write it"):
        shift.grad()


def test_reading_one_entry_of_an_element_and_writing_another_is_no_race():
    pos = qd.Vector.field(3, qd.f64, shape=(4, 4), needs_grad=True)
    w = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i, j in pos:
            coord = qd.Vector([i, j])
            pos[coord][1] += w[None] * pos[coord][0]  # iteration (i, j) reads and writes only cell (i, j)

    pos.from_numpy(np.ones((4, 4, 3)))
    w[None] = 2.0
    k()
    pos.grad.fill(1.0)
    k.grad()
    assert w.grad[None] == 16.0
