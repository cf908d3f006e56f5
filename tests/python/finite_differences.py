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
