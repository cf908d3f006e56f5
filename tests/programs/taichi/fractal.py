# tests/programs/taichi/fractal.py: a Julia set, 128x64, over 10 time steps.
# Adapted from Taichi's python/taichi/examples/simulation/fractal.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; n 320 -> 64; the GUI loop replaced by 10 frames; pixels saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

n = 64
pixels = qd.field(dtype=float, shape=(n * 2, n))


@qd.func
def complex_sqr(z):
    return qd.Vector([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2])


@qd.kernel
def paint(t: float):
    for i, j in pixels:  # Parallelized over all pixels
        c = qd.Vector([-0.8, qd.cos(t) * 0.2])
        z = qd.Vector([i / n - 1, j / n - 0.5]) * 2
        iterations = 0
        while z.norm() < 20 and iterations < 50:
            z = complex_sqr(z) + c
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


def main():
    t = 0.0
    for frame in range(10):
        paint(t)
        t += 0.03


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "fractal.npz"), pixels=pixels.to_numpy())
