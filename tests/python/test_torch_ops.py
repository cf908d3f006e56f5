# tests/python/test_torch_ops.py: kernels registered as torch operators: eager, autograd, torch.compile, opcheck.
import pytest

import quadrants as qd

torch = pytest.importorskip("torch")


@qd.kernel
def square_kernel(x: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]


@qd.kernel
def square_backward_kernel(x: qd.types.ndarray(), grad: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        out[i] = 2 * x[i] * grad[i]


@qd.torch_op("qdtest::square")
def square(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    square_kernel(x, out)
    return out


@qd.torch_op("qdtest::square_backward")
def square_backward(x: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    square_backward_kernel(x, grad.contiguous(), out)
    return out


@qd.torch_op("qdtest::scale_", mutates_args=("x",))
def scale_(x: torch.Tensor, factor: float) -> None:
    scale_kernel(x, factor)


@qd.kernel
def scale_kernel(x: qd.types.ndarray(), factor: qd.f32) -> None:
    for i in range(x.shape[0]):
        x[i] = x[i] * factor


def _setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return square_backward(x, grad)


square.register_autograd(_backward, setup_context=_setup_context)


@pytest.fixture(autouse=True)
def cpu_runtime():
    qd.init(arch=qd.cpu)


def test_eager_call_is_visible_to_autograd():
    x = torch.arange(5, dtype=torch.float32, requires_grad=True)
    y = square(x)
    assert y.tolist() == [0.0, 1.0, 4.0, 9.0, 16.0]
    assert "qdtest_square" in type(y.grad_fn).__name__  # a node of torch's graph, not an opaque call
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert torch.ops.qdtest.square.default is not None


def test_mutating_op_writes_in_place():
    x = torch.ones(3)
    scale_(x, 2.5)
    assert x.tolist() == [2.5, 2.5, 2.5]


def test_traced_by_torch_compile_without_graph_breaks():
    traced = torch.compile(lambda t: square(t) + 1, backend="aot_eager", fullgraph=True)
    assert traced(torch.arange(4.0)).tolist() == [1.0, 2.0, 5.0, 10.0]
    # A new shape goes through the fake implementation again: kernels are skipped while tracing.
    assert traced(torch.arange(6.0)).tolist() == [1.0, 2.0, 5.0, 10.0, 17.0, 26.0]


def test_inductor_compiles_around_the_op():
    compiled = torch.compile(lambda t: square(t).sin(), fullgraph=True)
    x = torch.linspace(0, 1, 16)
    torch.testing.assert_close(compiled(x), torch.sin(x * x))


def test_opcheck_passes():
    torch.library.opcheck(square, (torch.randn(6, requires_grad=True),))
    torch.library.opcheck(scale_, (torch.randn(4), 3.0))
