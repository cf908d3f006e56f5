# tests/python/test_autodiff_call_forms.py: every way of calling a kernel works for its adjoint and its tangent
# (issue 32): by position and by name, defaults, template and data_oriented kernels, qd.Tensor and dataclass
# arguments, through kernel.grad(...), qd.ad.Tape, qd.ad.FwdMode and qd.autograd_op; wrong calls get upstream's
# errors. Gradients are checked against analytic values (the kernels are polynomials) in float64.
import dataclasses

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _init():
    qd.init(arch=qd.cpu, default_fp=qd.f64)  # conftest.py turns qd.cpu into CUDA under QD_TEST_ARCH=cuda
    yield
    qd.reset()


X = np.array([1.0, -2.0, 0.5, 3.0])
Y = np.array([0.25, 1.5, -1.0, 2.0])


def _arrays(needs_grad=True, needs_dual=False):
    a = qd.ndarray(qd.f64, len(X), needs_grad=needs_grad, needs_dual=needs_dual)
    b = qd.ndarray(qd.f64, len(X), needs_grad=needs_grad, needs_dual=needs_dual)
    a.from_numpy(X)
    b.from_numpy(Y)
    loss = qd.ndarray(qd.f64, (), needs_grad=needs_grad, needs_dual=needs_dual)
    return a, b, loss


# loss = sum(s * a * a * b): d/da = 2 s a b, d/db = s a^2
@qd.kernel
def scaled(a: qd.types.ndarray(), b: qd.types.ndarray(), s: qd.f64, loss: qd.types.ndarray()):
    for i in a:
        loss[None] += s * a[i] * a[i] * b[i]


@qd.kernel
def scaled_default(a: qd.types.ndarray(), b: qd.types.ndarray(), loss: qd.types.ndarray(), s: qd.f64 = 3.0):
    for i in a:
        loss[None] += s * a[i] * a[i] * b[i]


@qd.kernel
def scaled_template(a: qd.types.ndarray(), b: qd.types.ndarray(), s: qd.template(), loss: qd.types.ndarray()):
    for i in a:
        loss[None] += s * a[i] * a[i] * b[i]


def _expect_grads(a, b, s):
    np.testing.assert_allclose(a.grad.to_numpy(), 2 * s * X * Y, rtol=1e-12)
    np.testing.assert_allclose(b.grad.to_numpy(), s * X * X, rtol=1e-12)


def _seeded_grad(call, kernel, s):
    a, b, loss = _arrays()
    loss.grad.fill(1.0)
    call(kernel, a, b, loss)
    _expect_grads(a, b, s)


CALLS = {
    "all_by_name": lambda k, a, b, loss: k.grad(a=a, b=b, s=2.0, loss=loss),
    "mixed": lambda k, a, b, loss: k.grad(a, b, loss=loss, s=2.0),
    "names_in_another_order": lambda k, a, b, loss: k.grad(loss=loss, s=2.0, b=b, a=a),
}


@pytest.mark.parametrize("kernel", [scaled, scaled_template], ids=["fast", "template"])
@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_kernel_grad_takes_keywords(kernel, call):
    _seeded_grad(call, kernel, 2.0)


def test_kernel_with_a_default_forward_and_grad():
    a, b, loss = _arrays()
    scaled_default(a, b, loss)  # the default s=3.0
    assert loss.to_numpy() == pytest.approx(3.0 * np.sum(X * X * Y))
    loss.grad.fill(1.0)
    scaled_default.grad(a, b, loss)
    _expect_grads(a, b, 3.0)
    a, b, loss = _arrays()
    loss.grad.fill(1.0)
    scaled_default.grad(a, b, loss=loss, s=0.5)
    _expect_grads(a, b, 0.5)


@pytest.mark.parametrize("kernel", [scaled, scaled_template], ids=["fast", "template"])
def test_tape_records_calls_by_name(kernel):
    a, b, loss = _arrays()
    with qd.ad.Tape(loss=loss):
        kernel(loss=loss, a=a, s=2.0, b=b)
    assert loss.to_numpy() == pytest.approx(2.0 * np.sum(X * X * Y))
    _expect_grads(a, b, 2.0)


def test_tape_records_a_call_that_takes_a_default():
    a, b, loss = _arrays()
    with qd.ad.Tape(loss=loss):
        scaled_default(a=a, b=b, loss=loss)
    _expect_grads(a, b, 3.0)


def test_validating_tape_records_calls_by_name():
    qd.init(arch=qd.cpu, default_fp=qd.f64, debug=True)
    a, b, loss = _arrays()
    with qd.ad.Tape(loss=loss, validation=True):
        scaled(a, b, s=2.0, loss=loss)
    _expect_grads(a, b, 2.0)


@pytest.mark.parametrize("kernel", [scaled, scaled_template], ids=["fast", "template"])
def test_forward_mode_runs_calls_by_name(kernel):
    a, b, loss = _arrays(needs_grad=False, needs_dual=True)
    seed = np.array([1.0, 0.0, -2.0, 0.5])
    with qd.ad.FwdMode(loss=loss, param=a, seed=list(seed)):
        kernel(a=a, b=b, s=2.0, loss=loss)
    assert loss.dual.to_numpy() == pytest.approx(np.sum(2 * 2.0 * X * Y * seed))


def test_forward_mode_with_a_default():
    a, b, loss = _arrays(needs_grad=False, needs_dual=True)
    with qd.ad.FwdMode(loss=loss, param=b, seed=[1.0, 1.0, 1.0, 1.0]):
        scaled_default(a, b, loss=loss)
    assert loss.dual.to_numpy() == pytest.approx(np.sum(3.0 * X * X))


@qd.data_oriented
class Model:
    def __init__(self, scale):
        self.scale = scale
        self.w = qd.ndarray(qd.f64, len(X), needs_grad=True, needs_dual=True)
        self.w.from_numpy(Y)

    @qd.kernel
    def run(self, a: qd.types.ndarray(), loss: qd.types.ndarray(), s: qd.f64 = 1.0):
        for i in a:
            loss[None] += self.scale * s * a[i] * a[i] * self.w[i]


def test_data_oriented_grad_by_name_and_default():
    model = Model(2.0)
    a, _, loss = _arrays()
    loss.grad.fill(1.0)
    model.run.grad(loss=loss, a=a)  # s takes its default
    np.testing.assert_allclose(a.grad.to_numpy(), 2 * 2.0 * X * Y, rtol=1e-12)
    np.testing.assert_allclose(model.w.grad.to_numpy(), 2.0 * X * X, rtol=1e-12)
    model.w.grad.fill(0.0)
    model.run.grad(a, s=0.5, loss=loss)
    np.testing.assert_allclose(model.w.grad.to_numpy(), 1.0 * X * X, rtol=1e-12)


def test_data_oriented_tape_and_forward_mode_by_name():
    model = Model(2.0)
    a, _, loss = _arrays(needs_dual=True)
    with qd.ad.Tape(loss=loss):
        model.run(loss=loss, a=a, s=0.5)
    np.testing.assert_allclose(model.w.grad.to_numpy(), 1.0 * X * X, rtol=1e-12)
    with qd.ad.FwdMode(loss=loss, param=model.w, seed=[1.0] * len(X)):
        model.run(loss=loss, a=a)
    assert loss.dual.to_numpy() == pytest.approx(np.sum(2.0 * X * X))


@dataclasses.dataclass(frozen=True)
class Pair:
    a: qd.types.ndarray()
    b: qd.Tensor


@qd.kernel
def pair_loss(p: Pair, s: qd.f64, loss: qd.types.ndarray()):
    for i in range(p.a.shape[0]):
        loss[None] += s * p.a[i] * p.a[i] * p.b[i]


@qd.kernel
def tensor_loss(a: qd.Tensor, b: qd.Tensor, s: qd.f64, loss: qd.Tensor):
    for i in range(a.shape[0]):
        loss[None] += s * a[i] * a[i] * b[i]


def test_dataclass_argument_by_name():
    a, b, loss = _arrays()
    loss.grad.fill(1.0)
    pair_loss.grad(loss=loss, s=2.0, p=Pair(a, qd.wrap(b)))
    _expect_grads(a, b, 2.0)
    a, b, loss = _arrays()
    with qd.ad.Tape(loss=loss):
        pair_loss(Pair(a, qd.wrap(b)), loss=loss, s=2.0)
    _expect_grads(a, b, 2.0)


def test_tensor_arguments_by_name():
    a, b, loss = _arrays()
    loss.grad.fill(1.0)
    tensor_loss.grad(b=qd.wrap(b), a=qd.wrap(a), loss=loss, s=2.0)
    _expect_grads(a, b, 2.0)
    a, b, loss = _arrays()
    with qd.ad.Tape(loss=loss):
        tensor_loss(qd.wrap(a), qd.wrap(b), loss=qd.wrap(loss), s=2.0)
    _expect_grads(a, b, 2.0)


@pytest.mark.parametrize("kernel", [scaled, scaled_template], ids=["fast", "template"])
def test_grad_call_errors_name_the_argument(kernel):
    a, b, loss = _arrays()
    listing = "a, b, s, loss"
    cases = [
        (lambda: kernel.grad(a, b, 2.0, los=loss),
         f"Unexpected argument 'los': kernel '{kernel.__name__}' has no parameter of that name (its parameters: "
         f"{listing})."),
        (lambda: kernel.grad(a, b, loss=loss),
         f"Missing argument 's' of kernel '{kernel.__name__}' (its parameters: {listing})."),
        (lambda: kernel.grad(a, b, 2.0, a=a),
         f"Multiple values for argument 'a': kernel '{kernel.__name__}' got it by position and by name."),
        (lambda: kernel.grad(a, b),
         f"Missing argument 's': kernel '{kernel.__name__}' takes 4 argument(s) ({listing}), but 2 were given."),
        (lambda: kernel.grad(a, b, 2.0, loss, 1),
         f"Too many arguments: kernel '{kernel.__name__}' takes 4 argument(s) ({listing}), but 5 were given."),
    ]
    for call, message in cases:
        with pytest.raises(qd.QuadrantsSyntaxError) as info:  # upstream's type; a TypeError too
            call()
        assert str(info.value) == message
        assert isinstance(info.value, TypeError)
    assert not a.grad.to_numpy().any()


def test_grad_errors_list_defaults():
    a, b, loss = _arrays()
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"Missing argument 'loss' of kernel 'scaled_default' \(its "
                       r"parameters: a, b, loss, s=3\.0\)\."):
        scaled_default.grad(a, b, s=1.0)


def test_data_oriented_grad_errors():
    model = Model(2.0)
    a, _, loss = _arrays()
    with pytest.raises(qd.QuadrantsSyntaxError, match="Unexpected argument 'x': kernel 'run'"):
        model.run.grad(x=a, loss=loss)


def test_streams_are_refused_under_autodiff():
    a, b, loss = _arrays(needs_dual=True)
    with pytest.raises(RuntimeError, match="qd_stream is not compatible with autodiff kernels"):
        scaled.grad(a, b, 2.0, loss, qd_stream=0)
    with pytest.raises(RuntimeError, match="qd_stream is not compatible with autograd Tape"):
        with qd.ad.Tape(loss=loss):
            scaled(a, b, 2.0, loss, qd_stream=0)
    with pytest.raises(RuntimeError, match="qd_stream is not compatible with autodiff kernels"):
        with qd.ad.FwdMode(loss=loss, param=a, seed=[1.0] * len(X)):
            scaled(a, b, 2.0, loss, qd_stream=0)


@qd.kernel
def affine(x: qd.types.ndarray(), w: qd.types.ndarray(), y: qd.types.ndarray(), shift: qd.f64 = 0.5):
    for i in x:
        y[i] = w[0] * x[i] * x[i] + shift


def test_autograd_op_by_name_and_default():
    torch = pytest.importorskip("torch")
    op = qd.autograd_op(affine, outputs={"y": "x"})
    x = torch.tensor(X, requires_grad=True)
    w = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    y = op(w=w, x=x)  # shift takes its default
    np.testing.assert_allclose(y.detach().numpy(), 2.0 * X * X + 0.5)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4.0 * X)
    np.testing.assert_allclose(w.grad.numpy(), [np.sum(X * X)])
    y2 = op(x, w, shift=-1.0)
    np.testing.assert_allclose(y2.detach().numpy(), 2.0 * X * X - 1.0)
