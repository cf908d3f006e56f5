# tests/programs/taichi/minimization.py: gradient descent on a sum of squares with qd.ad.Tape.
# Adapted from Taichi's python/taichi/examples/autodiff/minimization.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; x, y and L saved.
import os
import random

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

n = 8
x = qd.field(dtype=qd.f32, shape=n, needs_grad=True)
y = qd.field(dtype=qd.f32, shape=n)
L = qd.field(dtype=qd.f32, shape=(), needs_grad=True)


@qd.kernel
def reduce():
    for i in range(n):
        L[None] += 0.5 * (x[i] - y[i]) ** 2


@qd.kernel
def gradient_descent():
    for i in x:
        x[i] -= x.grad[i] * 0.1


def main():
    # Initialize vectors
    for i in range(n):
        x[i] = random.random()
        y[i] = random.random()

    # Optimize with 100 gradient descent iterations
    for k in range(100):
        with qd.ad.Tape(loss=L):
            reduce()
        print("Loss =", L[None])
        gradient_descent()

    for i in range(n):
        # Now you should approximately have x[i] == y[i]
        print(x[i], y[i])


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "minimization.npz"),
        x=x.to_numpy(),
        y=y.to_numpy(),
        L=L.to_numpy(),
    )
