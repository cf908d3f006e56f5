# tests/programs/taichi/mandelbrot_zoom.py: a Mandelbrot zoom with qd.math.cmul, 100x80, 5 frames.
# Adapted from Taichi's python/taichi/examples/simulation/mandelbrot_zoom.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; 800x640 -> 100x80; the GUI loop replaced by 5
# frames; pixels saved.
import os

import numpy as np

import quadrants as qd
from quadrants.math import cmul, dot, log2, vec2, vec3

qd.init(arch=qd.gpu)

MAXITERS = 100
width, height = 100, 80
pixels = qd.Vector.field(3, qd.f32, shape=(width, height))


@qd.func
def setcolor(z, i):
    v = log2(i + 1 - log2(log2(z.norm()))) / 5
    col = vec3(0.0)
    if v < 1.0:
        col = vec3(v**4, v**2.5, v)
    else:
        v = qd.max(0.0, 2 - v)
        col = vec3(v, v**1.5, v**3)
    return col


@qd.kernel
def render(time: qd.f32):
    zoo = 0.64 + 0.36 * qd.cos(0.02 * time)
    zoo = qd.pow(zoo, 8.0)
    ca = qd.cos(0.15 * (1.0 - zoo) * time)
    sa = qd.sin(0.15 * (1.0 - zoo) * time)
    for i, j in pixels:
        c = 2.0 * vec2(i, j) / height - vec2(1)
        # c *= 1.16
        xy = vec2(c.x * ca - c.y * sa, c.x * sa + c.y * ca)
        c = vec2(-0.745, 0.186) + xy * zoo
        z = vec2(0.0)
        count = 0.0
        while count < MAXITERS and dot(z, z) < 50:
            z = cmul(z, z) + c
            count += 1.0

        if count == MAXITERS:
            pixels[i, j] = [0, 0, 0]
        else:
            pixels[i, j] = setcolor(z, count)


def main():
    for i in range(5):
        render(i * 0.03)


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "mandelbrot_zoom.npz"), pixels=pixels.to_numpy())
