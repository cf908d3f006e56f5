# tests/programs/taichi/initial_value_problem.py: a vector field of sines over 2500 points; a numpy shape
# read in a kernel.
# Adapted from Taichi's python/taichi/examples/simulation/initial_value_problem.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the wall-clock time replaced by t = 0.5 k for 10
# frames; the GUI removed; dirs saved.
import os

import numpy as np

import quadrants as qd


def init():
    a = []
    for i in np.linspace(0, 1, n, False):
        for j in np.linspace(0, 1, n, False):
            a.append([i, j])
    return np.array(a).astype(np.float32)


qd.init(arch=qd.gpu)
n = 50
dirs = qd.field(dtype=float, shape=(n * n, 2))
locations_np = init()

locations = qd.field(dtype=float, shape=(n * n, 2))
locations.from_numpy(locations_np)


@qd.kernel
def paint(t: float):
    (o, p) = locations_np.shape
    for i in range(0, o):  # Parallelized over all pixels
        x = locations[i, 0]
        y = locations[i, 1]
        dirs[i, 0] = qd.sin((t * x - y))
        dirs[i, 1] = qd.cos(t * y - x)
        l = (dirs[i, 0] ** 2 + dirs[i, 1] ** 2) ** 0.5
        dirs[i, 0] /= l * 40
        dirs[i, 1] /= l * 40


def main():
    for k in range(10):
        paint(k * 0.5)
        dirs_np = dirs.to_numpy()


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "initial_value_problem.npz"), dirs=dirs.to_numpy())
