# tests/python/test_autodiff_torch.py: kernel.grad() and qd.ad.Tape on torch tensors, as upstream: a tensor's
# gradient is its .grad, which a kernel call makes (zeros) for a tensor that requires grad.
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")

# Calling kernels on tensors that require grad is the point here: the pitfall warning is expected.
pytestmark = pytest.mark.filterwarnings("ignore::quadrants.AutogradWarning")


@pytest.fixture(autouse=True)
def _f64():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    yield


@qd.kernel
def _cube_sum(x: qd.types.ndarray(), loss: qd.types.ndarray()):
    for i in x:
        loss[0] += x[i] ** 3


def test_a_kernel_call_gives_tensors_that_require_grad_a_zero_grad():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    plain = torch.zeros(1, dtype=torch.float64)
    _cube_sum(x, plain)
    assert torch.equal(x.grad, torch.zeros(2, dtype=torch.float64))
    assert plain.grad is None  # does not require grad: nothing made


def test_kernel_grad_accumulates_into_the_tensors_grad():
    x = torch.tensor([1.0, 2.0, -3.0], dtype=torch.float64, requires_grad=True)
    loss = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    _cube_sum(x, loss)
    loss.grad.fill_(2.0)
    _cube_sum.grad(x, loss)
    torch.testing.assert_close(x.grad, 2.0 * 3 * x.detach() ** 2)
    _cube_sum.grad(x, loss)  # the adjoint adds to what is there
    torch.testing.assert_close(x.grad, 4.0 * 3 * x.detach() ** 2)


def test_tape_with_a_torch_loss():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    loss = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    with qd.ad.Tape(loss=loss):
        _cube_sum(x, loss)
    assert loss.item() == pytest.approx(0.5 ** 3 + 1.5 ** 3)
    torch.testing.assert_close(x.grad, 3 * x.detach() ** 2)


@qd.kernel
def _frozen_input(x: qd.types.ndarray(needs_grad=False), loss: qd.types.ndarray()):
    for i in x:
        loss[0] += x[i] * x[i]


def test_needs_grad_false_leaves_that_arguments_gradient_alone():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    loss = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    _frozen_input(x, loss)
    loss.grad.fill_(1.0)
    _frozen_input.grad(x, loss)
    assert torch.equal(x.grad, torch.zeros(2, dtype=torch.float64))


def test_tape_loss_errors_name_what_is_wrong():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"must be a tensor only contains one element, but got shape \(2,\)"):
        with qd.ad.Tape(loss=torch.zeros(2, dtype=torch.float64, requires_grad=True)):
            pass
    with pytest.raises(RuntimeError, match="please set requires_grad=True for all tensors"):
        with qd.ad.Tape(loss=torch.zeros(1, dtype=torch.float64)):
            _cube_sum(x, torch.zeros(1, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="must be an ndarray with only one element"):
        with qd.ad.Tape(loss=qd.ndarray(qd.f64, shape=2, needs_grad=True)):
            pass
    with pytest.raises(RuntimeError, match="please set needs_grad=True for all ndarrays"):
        with qd.ad.Tape(loss=qd.ndarray(qd.f64, shape=1)):
            pass


def test_float_mod_is_differentiated_as_a_minus_b_floor_a_over_b():
    @qd.kernel
    def k(x: qd.types.ndarray(), y: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in x:
            out[i] = x[i] % y[i] + qd.raw_mod(x[i], y[i]) * 2.0

    x = torch.tensor([5.5, -5.5, 0.25], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([2.0, 2.0, 0.75], dtype=torch.float64, requires_grad=True)
    out = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    k(x, y, out)
    out.grad.fill_(1.0)
    k.grad(x, y, out)
    xd, yd = x.detach(), y.detach()
    torch.testing.assert_close(out.detach(), torch.remainder(xd, yd) + 2.0 * torch.fmod(xd, yd))
    torch.testing.assert_close(x.grad, torch.full((3,), 3.0, dtype=torch.float64))
    torch.testing.assert_close(y.grad, -torch.floor(xd / yd) - 2.0 * torch.trunc(xd / yd))


def test_differentiating_a_kernel_that_reads_a_gradient_is_an_error():
    a = qd.ndarray(qd.f64, shape=4, needs_grad=True)
    b = qd.ndarray(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k(x: qd.types.ndarray(), total: qd.types.ndarray()):
        for i in x:
            total[None] += x.grad[i]

    a.grad.fill(2.0)
    k(a, b)
    assert b[None] == 8.0
    with pytest.raises(RuntimeError, match="Cannot automatically differentiate through a grad tensor: kernel 'k'"):
        k.grad(a, b)


def test_launches_check_requires_grad_only_after_a_kernel_met_a_tensor_that_requires_grad(tmp_path):
    # The check costs torch's requires_grad getter per tensor (about 45 ns), so it is off until needed.
    import subprocess
    import sys

    script = (
        "import torch, quadrants as qd\n"
        "from quadrants.runtime import _core\n"
        "qd.init(arch=qd.cpu)\n"
        "@qd.kernel\n"
        "def k(x: qd.types.ndarray(), y: qd.types.ndarray()):\n"
        "    for i in x:\n"
        "        y[i] = x[i]\n"
        "x, y = torch.ones(2), torch.zeros(2)\n"
        "k(x, y)\n"
        "print(_core.torch_grad_checks())\n"
        "x.requires_grad_()\n"
        "k(x, y)\n"  # the same specialization: no check yet, so no .grad
        "print(_core.torch_grad_checks(), x.grad is None)\n"
        "k(x.detach().requires_grad_(), torch.zeros(2, dtype=torch.float64))\n"  # a new one: turns it on
        "k(x, y)\n"
        "print(_core.torch_grad_checks(), x.grad.tolist())\n"
    )
    path = tmp_path / "grad_checks.py"
    path.write_text(script)
    out = subprocess.run([sys.executable, "-W", "ignore", str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == ["False", "False True", "True [0.0, 0.0]"]
