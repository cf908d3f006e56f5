# tests/programs/taichi/simple_derivative.py: kernel.grad() of a piecewise function with a branch.
# Adapted from Taichi's python/taichi/examples/autodiff/simple_derivative.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the plot removed; f and f' saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

N = 2048
x, y = qd.field(qd.f32), qd.field(qd.f32)

qd.root.dense(qd.i, N).place(x, x.grad, y, y.grad)


@qd.kernel
def poly():
    for i in x:
        v = x[i]
        ret = 0.0
        guard = 0.2
        if v < -guard or v > guard:
            ret = 4 / qd.max(v, 0.1)
        else:
            ret = 0
        y[i] = ret


xs = []
ys = []
grad_xs = []


def initialize():
    for i in range(N):
        v = ((i + 0.5) / N) * 2 - 1
        xs.append(v)
        x[i] = v

    poly()

    for i in range(N):
        y.grad[i] = 1
        ys.append(y[i])

    poly.grad()
    print("grad_x")
    for i in range(N):
        grad_xs.append(x.grad[i])


def main():
    initialize()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "simple_derivative.npz"),
        ys=np.array(ys),
        grad_xs=np.array(grad_xs),
    )
