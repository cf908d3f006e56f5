# tests/python/test_autodiff_random.py: reverse-mode autodiff rejects kernels that draw random numbers, as
# upstream does ("RandStmt not supported"): the adjoint's replay would draw other numbers than the primal did.
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _fields():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    return x, loss


def test_random_outside_loops_is_rejected_under_a_tape():
    x, loss = _fields()

    @qd.kernel
    def work():
        loss[None] = x[0] * qd.random()

    with pytest.raises(RuntimeError, match=r"kernel.grad\(\) of 'work': RandStmt not supported in reverse-mode"):
        with qd.ad.Tape(loss):
            work()


@pytest.mark.parametrize("draw", ["random", "randn"])
def test_random_in_a_parallel_loop_is_rejected(draw):
    x, loss = _fields()

    @qd.kernel
    def work():
        for i in x:
            r = qd.random(qd.f32) if qd.static(draw == "random") else qd.randn(qd.f32)
            loss[None] += x[i] * r

    work()  # the primal itself runs
    loss.grad[None] = 1.0
    with pytest.raises(qd.QuadrantsRuntimeError, match="RandStmt not supported"):
        work.grad()


def test_forward_mode_and_kernels_without_random_are_unaffected():
    x, loss = _fields()

    @qd.kernel
    def work():
        for i in x:
            loss[None] += x[i] * 2.0

    x.fill(1.0)
    with qd.ad.Tape(loss):
        work()
    assert x.grad.to_numpy().tolist() == [2.0] * 4
