# tests/python/test_autodiff_stack.py: reverse-mode autodiff through the AD stack: long serial loops with
# loop-carried locals (for, while, nested, vector locals, branches), against central finite differences in
# float64; the overflow error and qd.init(ad_stack_size=); and that the adjoint is linear in the trip count.
# Arch-neutral (QD_TEST_ARCH) except where marked.
import math
import time

import numpy as np
import pytest

import quadrants as qd
from quadrants.base.errors import QuadrantsAssertionError
from finite_differences import check_adjoint


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_experimental_enabled=True)  # qd.cpu: CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


def _field(values):
    f = qd.field(qd.f64, shape=len(values), needs_grad=True)
    f.from_numpy(np.asarray(values, dtype=np.float64))
    return f


def test_thousand_iterations_of_a_nonlinear_carried_local():
    x = _field([0.3, 0.7, 1.1])
    c = _field([0.9, -0.4, 0.25, 0.6])
    out = _field([0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            for j in range(1000):
                s = qd.sin(s) * c[j % 4] + 0.5 * s
            out[i] = s

    check_adjoint(k, out, [x, c])


def test_nested_loops_each_with_carried_locals():
    x = _field([0.2, 0.5])
    w = _field([0.8, 0.3, -0.6])
    out = _field([0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            t = 1.0
            for a in range(40):
                u = s
                for b in range(30):
                    u = qd.tanh(u * w[b % 3] + t * 0.01)
                s = 0.5 * s + u
                t = t * 0.99 + s * 0.001
            out[i] = s + t

    check_adjoint(k, out, [x, w])


def test_while_loop_with_several_carried_locals_and_a_branch():
    x = _field([0.4, 1.3, 2.2])
    out = _field([0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            a = x[i]
            b = 1.0
            n = 0
            while n < 300:
                if a > 1.0:
                    a = a * 0.9 + b * 0.01
                else:
                    a = a * 1.05 + qd.sin(b) * 0.02
                b = b * qd.cos(a * 0.1)
                n += 1
            out[i] = a * b

    check_adjoint(k, out, [x])


def test_vector_carried_local():
    x = _field([0.3, -0.2, 0.9])
    out = _field([0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            v = qd.Vector([x[i], 1.0])
            for j in range(500):
                angle = 0.01 * v[0]
                v = qd.Vector([v[0] * qd.cos(angle) - v[1] * qd.sin(angle), v[0] * qd.sin(angle) + v[1] * qd.cos(angle)])
            out[i] = v[0] * v[1]

    check_adjoint(k, out, [x])


def test_carried_loop_in_the_kernel_body_before_a_parallel_loop():
    # The kernel body's serial statements may be split into several CUDA tasks; its carried loop records
    # its stack right before the sweep.
    x = _field([0.6])
    out = _field([0.0, 0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        s = x[0]
        j = 0
        while j < 200:  # a top-level `for` would be a parallel loop
            s = s * qd.cos(s * 0.05) + 0.001
            j += 1
        if s > -10.0:
            for r in range(100):  # serial: not at the top level
                s = s + qd.sin(s) * 0.01
        for i in out:
            out[i] = s * (i + 1)

    check_adjoint(k, out, [x])


def test_accumulation_and_carried_local_in_one_loop():
    x = _field([0.5, 0.8])
    out = _field([0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            total = 0.0
            for j in range(700):
                s = s * 0.999 + qd.sin(s) * 0.001
                total += s * s
            out[i] = total

    check_adjoint(k, out, [x])


def _overflowing(n_iter):
    x = _field([0.1])
    y = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            v = x[i]
            for _ in range(n_iter):
                y[None] += qd.sin(v)
                v = v + 1.0

    k()
    y.grad[None] = 1.0
    return k, x


def test_a_loop_longer_than_the_stack_is_a_clear_error():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_size=32, ad_stack_experimental_enabled=True)
    k, _ = _overflowing(64)
    with pytest.raises(QuadrantsAssertionError, match=r"adstack overflow.*\(32 values.*qd\.init\(ad_stack_size=N\)"):
        k.grad()
    k()  # the error belonged to that launch: the next one runs normally
    with pytest.raises(AssertionError, match=r"adstack overflow"):  # and it is an AssertionError, as upstream's
        k.grad()


def test_ad_stack_size_raises_the_capacity():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_size=64, ad_stack_experimental_enabled=True)
    k, x = _overflowing(64)
    k.grad()
    assert x.grad[0] == pytest.approx(sum(math.cos(0.1 + j) for j in range(64)), rel=1e-9)


def test_default_capacity_is_1024():
    k, _ = _overflowing(1024)
    k.grad()  # fits exactly
    k2, _ = _overflowing(1025)
    with pytest.raises(AssertionError, match=r"\(1024 values"):
        k2.grad()


@pytest.mark.parametrize("bad", [-1, 1 << 25])
def test_bad_ad_stack_size_names_the_option(bad):
    with pytest.raises(ValueError, match=r"qd\.init\(ad_stack_size=\.\.\.\) expects an int"):
        qd.init(arch=qd.cpu, ad_stack_size=bad)
    with pytest.raises(TypeError, match=r"ad_stack_size"):
        qd.init(arch=qd.cpu, ad_stack_size=1.5)


@pytest.mark.cpu_only  # a 300,000-slot f64 stack is 2.4 MB of a thread's stack; the CUDA emulation runs threads in turn
def test_adjoint_is_linear_in_the_trip_count():
    # With the O(n^2) replay this adjoint would replay 4.5e10 iterations (minutes); with the stack it replays
    # 6e5 (milliseconds). The bound is generous so that a slow machine never fails it.
    n = 300_000
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_size=n, ad_stack_experimental_enabled=True)
    x = _field([0.5])
    out = _field([0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            for j in range(n):
                s = s * 0.99999 + qd.sin(s) * 1e-5
            out[i] = s

    k()
    out.grad.fill(1.0)
    k.grad()  # compiles
    x.grad.fill(0.0)
    out.grad.fill(1.0)  # the adjoint of `out[i] = s` used up the seed
    start = time.perf_counter()
    k.grad()
    assert time.perf_counter() - start < 5.0
    # d s_{j+1} / d s_j = 0.99999 + 1e-5 cos(s_j): the product along the forward trajectory.
    s, expected = 0.5, 1.0
    for _ in range(n):
        expected *= 0.99999 + 1e-5 * math.cos(s)
        s = s * 0.99999 + math.sin(s) * 1e-5
    assert x.grad[0] == pytest.approx(expected, rel=1e-9)


def test_break_in_a_for_loop_with_a_carried_local():
    x = _field([0.3, 0.9, 1.4])
    out = _field([0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            for j in range(100_000):  # ends by its break long before the range: the stack holds what ran
                s = s * 1.01 + qd.sin(s) * 0.05
                if s > 3.0:
                    break
            out[i] = s

    check_adjoint(k, out, [x])


def test_continue_and_break_in_a_while_loop():
    x = _field([0.2, 0.6])
    w = _field([0.5, -0.3, 0.8, 0.1])
    out = _field([0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            s = x[i]
            n = 0
            while True:
                n += 1
                if n % 3 == 0:
                    continue
                s = s * qd.cos(s * w[n % 4]) + 0.02
                if n >= 40:
                    break
            out[i] = s

    check_adjoint(k, out, [x, w])


def test_continue_in_nested_loops_and_in_the_parallel_loop():
    x = _field([0.4, -0.7, 1.1, 0.2])
    out = _field([0.0, 0.0, 0.0, 0.0])

    @qd.kernel
    def k():
        for i in x:
            if x[i] < 0.0:
                continue
            s = x[i]
            for a in range(20):
                t = s
                for b in range(10):
                    if b == a % 10:
                        continue
                    t = qd.tanh(t + 0.1 * b)
                s = 0.5 * s + 0.5 * t
            out[i] = s

    check_adjoint(k, out, [x])
