# tests/python/test_kernel_seed.py: the kernel examples of the first seed (interop guide), run unchanged.
import torch

import quadrants as qd


def test_square_on_torch_tensors():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def square(inp: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
        for i in range(32):
            out[i] = inp[i] * inp[i]

    x = torch.ones(32, dtype=torch.float32) * 3.0
    y = torch.zeros(32, dtype=torch.float32)
    square(x, y)
    assert y[0].item() == 9.0
    assert torch.equal(y, torch.full((32,), 9.0))


def test_sqr_autograd_function():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def forward_kernel(t: qd.types.ndarray(), o: qd.types.ndarray()) -> None:
        for i in range(32):
            o[i] = t[i] * t[i]

    @qd.kernel
    def backward_kernel(t_grad: qd.types.ndarray(), t: qd.types.ndarray(), o_grad: qd.types.ndarray()) -> None:
        for i in range(32):
            t_grad[i] = 2 * t[i] * o_grad[i]

    class Sqr(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            outp = torch.zeros_like(inp)
            ctx.save_for_backward(inp)
            forward_kernel(inp, outp)
            return outp

        @staticmethod
        def backward(ctx, outp_grad):
            outp_grad = outp_grad.contiguous()
            inp_grad = torch.zeros_like(outp_grad)
            (inp,) = ctx.saved_tensors
            backward_kernel(inp_grad, inp, outp_grad)
            return inp_grad

    x = torch.tensor([2.0] * 32, requires_grad=True)
    loss = Sqr.apply(x).sum()
    loss.backward()
    assert x.grad[0].item() == 4.0
    assert torch.equal(x.grad, torch.full((32,), 4.0))
