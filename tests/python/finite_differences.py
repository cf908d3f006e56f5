# tests/python/finite_differences.py: central differences, the reference the autodiff suites check gradients against.
import numpy as np


def central_difference(run, x, h=1e-6):
    """d sum(run(x)) / dx by central differences, one element at a time (run returns the output as numpy)."""
    base = x.to_numpy()
    grad = np.zeros_like(base)
    for index in np.ndindex(*base.shape):
        for sign in (1, -1):
            shifted = base.copy()
            shifted[index] += sign * h
            x.from_numpy(shifted)
            grad[index] += sign * run().sum() / (2 * h)
    x.from_numpy(base)
    return grad


def check_adjoint(kernel, out, inputs, rtol=1e-6):
    """kernel.grad()'s gradients of sum(out) for each input field against central differences."""

    def run():
        kernel()
        return out.to_numpy()

    expected = [central_difference(run, x) for x in inputs]
    kernel()
    out.grad.fill(1.0)
    for x in inputs:
        x.grad.fill(0.0)
    kernel.grad()
    for x, e in zip(inputs, expected):
        np.testing.assert_allclose(x.grad.to_numpy(), e, rtol=rtol, atol=1e-7)
