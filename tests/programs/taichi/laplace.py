# tests/programs/taichi/laplace.py: a 5-point Laplacian on a 16x16 field placed with qd.root.dense.
# Adapted from Taichi's python/taichi/examples/algorithm/laplace.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; y is saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

N = 16

x, y = qd.field(qd.f32), qd.field(qd.f32)

qd.root.dense(qd.ij, N).place(x, y)


@qd.kernel
def laplace():
    for i, j in x:
        if (i + j) % 3 == 0 and 1 <= i < N - 1 and 1 <= j < N - 1:
            y[i, j] = 4.0 * x[i, j] - x[i - 1, j] - x[i + 1, j] - x[i, j - 1] - x[i, j + 1]
        else:
            y[i, j] = 0.0


def main():
    for i in range(10):
        x[i, i + 1] = 1.0

    laplace()

    for i in range(10):
        print(y[i, i + 1])


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "laplace.npz"), y=y.to_numpy())
