# tests/python/test_autograd_op.py: qd.autograd_op, a kernel as a torch operator whose backward is the derived adjoint.
import numpy as np
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _f64():
    qd.init(arch=qd.cpu, default_fp=qd.f64, ad_stack_experimental_enabled=True)
    yield


def _rand(*shape, grad=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=torch.float64) + 0.5).requires_grad_(grad)


@qd.kernel
def _affine_sin(x: qd.types.ndarray(), w: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in x:
        y[i] = qd.sin(w[0] * x[i]) + w[1] * x[i] * x[i]


def test_forward_and_gradients_match_torch_autograd_of_the_same_formula():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    x, w = _rand(7), _rand(2, seed=1)
    y = op(x, w)
    expected = torch.sin(w[0] * x) + w[1] * x * x
    torch.testing.assert_close(y, expected, rtol=1e-12, atol=0)
    (y * torch.arange(7.0, dtype=torch.float64)).sum().backward()
    x_ref, w_ref = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    ((torch.sin(w_ref[0] * x_ref) + w_ref[1] * x_ref * x_ref) * torch.arange(7.0, dtype=torch.float64)).sum().backward()
    torch.testing.assert_close(x.grad, x_ref.grad, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(w.grad, w_ref.grad, rtol=1e-12, atol=1e-14)


def test_gradcheck_in_float64():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    assert torch.autograd.gradcheck(op, (_rand(6), _rand(2, seed=3)))


@qd.kernel
def _weighted_loss(x: qd.types.ndarray(), scale: qd.f64, steps: qd.i32, loss: qd.types.ndarray()):
    for i in x:
        v = x[i]
        for _ in range(steps):  # a serial loop carrying v
            v = v * scale + qd.sqrt(v)
        loss[0] += v


def test_scalar_parameters_loops_and_a_reduction_into_a_shape_allocated_output():
    op = qd.autograd_op(_weighted_loss, outputs={"loss": (1,)})
    x = _rand(5)
    assert torch.autograd.gradcheck(lambda t: op(t, 0.7, 3), (x,))
    loss = op(x, 0.7, 3)
    assert loss.shape == (1,) and loss.dtype == torch.float64
    v = x.detach().numpy().copy()
    for _ in range(3):
        v = v * 0.7 + np.sqrt(v)
    np.testing.assert_allclose(loss.item(), v.sum(), rtol=1e-12)


@qd.kernel
def _gather_two(x: qd.types.ndarray(), index: qd.types.ndarray(), a: qd.types.ndarray(), b: qd.types.ndarray()):
    for i in index:
        a[i] = x[index[i]] * 2.0
        b[i] = x[index[i]] ** 3


def test_two_outputs_and_an_integer_index_input():
    op = qd.autograd_op(_gather_two, outputs={"a": "index", "b": lambda index: torch.empty(index.shape[0],
                                                                                          dtype=torch.float64)})
    x = _rand(4)
    index = torch.tensor([3, 0, 3, 1, 2], dtype=torch.int64)
    a, b = op(x, index)
    assert a.dtype == torch.int64  # allocated like `index`: the kernel's stores convert
    torch.testing.assert_close(b, x.detach()[index] ** 3)
    b.sum().backward()
    expected = torch.zeros(4, dtype=torch.float64).index_add_(0, index, 3 * x.detach()[index] ** 2)
    torch.testing.assert_close(x.grad, expected, rtol=1e-12, atol=0)
    assert torch.autograd.gradcheck(lambda t: op(t, index)[1], (x.detach().clone().requires_grad_(),))


def test_opcheck_passes():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    torch.library.opcheck(op, (_rand(5), _rand(2, seed=2)))
    op2 = qd.autograd_op(_weighted_loss, outputs={"loss": (1,)})
    torch.library.opcheck(op2, (_rand(5), 0.5, 2))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_forward_and_backward_match_eager(backend):
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    compiled = torch.compile(lambda x, w: op(x, w).square().sum(), fullgraph=True, backend=backend)
    x, w = _rand(9), _rand(2, seed=4)
    loss = compiled(x, w)
    loss.backward()
    x_ref, w_ref = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    loss_ref = op(x_ref, w_ref).square().sum()
    loss_ref.backward()
    torch.testing.assert_close(loss, loss_ref)
    torch.testing.assert_close(x.grad, x_ref.grad)
    torch.testing.assert_close(w.grad, w_ref.grad)


def test_a_training_loop_fits_the_parameters():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    x = torch.linspace(0.1, 1.0, 32, dtype=torch.float64)
    target = torch.sin(0.8 * x) + 0.3 * x * x
    w = torch.nn.Parameter(torch.tensor([0.2, 1.0], dtype=torch.float64))
    opt = torch.optim.Adam([w], lr=0.05)
    for _ in range(400):
        opt.zero_grad()
        loss = (op(x, w) - target).square().mean()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-6
    torch.testing.assert_close(w.detach(), torch.tensor([0.8, 0.3], dtype=torch.float64), rtol=0, atol=2e-3)


def test_the_forward_leaves_the_inputs_gradients_alone():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    x, w = _rand(3), _rand(2)
    op(x, w)
    assert x.grad is None and w.grad is None  # no .grad made as a side effect; autograd fills it on backward


def test_inputs_that_do_not_require_grad_get_none():
    op = qd.autograd_op(_affine_sin, outputs={"y": "x"})
    x, w = _rand(4, grad=False), _rand(2)
    op(x, w).sum().backward()
    assert x.grad is None and w.grad is not None


@qd.kernel
def _template_kernel(x: qd.template(), y: qd.types.ndarray()):
    for i in y:
        y[i] = 1.0


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="names 'z', which is not a parameter of kernel '_affine_sin'"):
        qd.autograd_op(_affine_sin, outputs={"z": "x"})
    with pytest.raises(TypeError, match=r"expects a dict \{parameter name: allocation\}"):
        qd.autograd_op(_affine_sin, outputs=("y",))
    with pytest.raises(ValueError, match="allocated like 'q', which is not an input array"):
        qd.autograd_op(_affine_sin, outputs={"y": "q"})
    with pytest.raises(TypeError, match="'x' of kernel '_template_kernel' is a template"):
        qd.autograd_op(_template_kernel, outputs={"y": (3,)})
    with pytest.raises(ValueError, match="qualified name 'namespace::name'"):
        qd.autograd_op(_affine_sin, outputs={"y": "x"}, name="plain")
    with pytest.raises(TypeError, match="takes a @qd.kernel"):
        qd.autograd_op(lambda x: x, outputs={"y": "x"})


def test_an_allocation_of_an_unknown_kind_is_an_error_at_registration():
    with pytest.raises(TypeError, match="an allocation is an input name, a shape tuple or a callable, but got 3"):
        qd.autograd_op(_affine_sin, outputs={"y": 3})
