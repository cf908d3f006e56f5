# examples/demo.py: a Mandelbrot image computed by a quadrants kernel into a numpy array, timed against numpy.
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import quadrants as qd  # noqa: E402
from png import write_png  # noqa: E402

WIDTH, HEIGHT, MAX_ITER = 1024, 768, 256


@qd.kernel
def mandelbrot(counts: qd.types.ndarray(dtype=qd.i32, ndim=2), max_iter: qd.i32) -> None:
    for y, x in qd.ndrange(counts.shape[0], counts.shape[1]):
        cr = -2.2 + 3.2 * x / counts.shape[1]
        ci = -1.2 + 2.4 * y / counts.shape[0]
        zr = 0.0
        zi = 0.0
        n = 0
        while n < max_iter and zr * zr + zi * zi < 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        counts[y, x] = n


def mandelbrot_numpy(height, width, max_iter):
    cr = (-2.2 + 3.2 * np.arange(width, dtype=np.float32) / width)[None, :]
    ci = (-1.2 + 2.4 * np.arange(height, dtype=np.float32) / height)[:, None]
    c = (cr + 1j * ci).astype(np.complex64)
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for _ in range(max_iter):
        alive = np.abs(z) < 2.0
        z[alive] = z[alive] * z[alive] + c[alive]
        counts += alive
    return counts


def colorize(counts, max_iter):
    t = counts.astype(np.float32) / max_iter
    rgb = np.stack([9 * (1 - t) * t**3, 15 * (1 - t) ** 2 * t**2, 8.5 * (1 - t) ** 3 * t], axis=-1)
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def main():
    qd.init(arch=qd.cpu)
    counts = np.zeros((HEIGHT, WIDTH), dtype=np.int32)
    start = time.perf_counter()
    mandelbrot(counts, MAX_ITER)  # first call compiles (or loads from the disk cache)
    first = time.perf_counter() - start
    start = time.perf_counter()
    mandelbrot(counts, MAX_ITER)
    kernel_time = time.perf_counter() - start

    start = time.perf_counter()
    reference = mandelbrot_numpy(HEIGHT, WIDTH, MAX_ITER)
    numpy_time = time.perf_counter() - start
    agree = np.mean(np.abs(reference - counts) <= 1)

    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mandelbrot.png")
    write_png(out, colorize(counts, MAX_ITER))
    print(f"mandelbrot {WIDTH}x{HEIGHT}, {MAX_ITER} iterations, {qd.runtime._core.num_threads()} CPU threads")
    print(f"  quadrants kernel: {kernel_time * 1e3:8.1f} ms   (first call incl. compile: {first * 1e3:.0f} ms)")
    print(f"  numpy:            {numpy_time * 1e3:8.1f} ms   -> {numpy_time / kernel_time:.0f}x faster")
    print(f"  pixels agreeing with numpy (within 1 iteration): {agree:.1%}")
    print(f"  wrote {out}")


if __name__ == "__main__":
    main()
