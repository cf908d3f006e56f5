# benchmarks/peers/reference.py: writes every workload's inputs and its numpy reference answer, one .npy each.
# All frameworks read the same inputs from here, and every answer is checked against these references
# before it is timed. Written plainly and in the kernels' own float32 order; speed does not matter here.
# Usage: python reference.py DATA_DIR   (skips the work when DATA_DIR already holds this version's data)
import os
import sys

import numpy as np

from common import (COPY_N, DIFFUSION_K, GRAD_N, DIFFUSION_N, DIFFUSION_STEPS, HIST_BINS, HIST_N, LAUNCH_N,
                    MANDEL_H, MANDEL_ITERS, MANDEL_W, TRIAD_N, TRIAD_SCALE)

# Bump when an input or a reference changes, so stale data is regenerated.
DATA_VERSION = "2"


def mandelbrot_reference() -> np.ndarray:
    """Iteration counts of z <- z^2 + c from z = 0 until |z|^2 > 4 or MANDEL_ITERS, in float32."""
    f32 = np.float32
    rows = np.arange(MANDEL_H, dtype=f32)[:, None]
    cols = np.arange(MANDEL_W, dtype=f32)[None, :]
    cx = np.broadcast_to(f32(-2.0) + f32(2.5) * cols / f32(MANDEL_W), (MANDEL_H, MANDEL_W))
    cy = np.broadcast_to(f32(-1.25) + f32(2.5) * rows / f32(MANDEL_H), (MANDEL_H, MANDEL_W))
    x = np.zeros((MANDEL_H, MANDEL_W), f32)
    y = np.zeros_like(x)
    count = np.zeros((MANDEL_H, MANDEL_W), np.int32)
    for _ in range(MANDEL_ITERS):
        inside = x * x + y * y <= f32(4.0)
        if not inside.any():
            break
        next_x = x * x - y * y + cx
        y = np.where(inside, f32(2.0) * x * y + cy, y)
        x = np.where(inside, next_x, x)
        count += inside
    return count


def diffusion_reference(u: np.ndarray) -> np.ndarray:
    """DIFFUSION_STEPS explicit 5-point steps on the interior; the boundary stays fixed."""
    k = np.float32(DIFFUSION_K)
    src, dst = u.copy(), u.copy()
    for _ in range(DIFFUSION_STEPS):
        c = src[1:-1, 1:-1]
        dst[1:-1, 1:-1] = c + k * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] - np.float32(4.0) * c)
        src, dst = dst, src
    return src


def main(data_dir: str) -> None:
    stamp = os.path.join(data_dir, "VERSION")
    if os.path.exists(stamp) and open(stamp).read() == DATA_VERSION:
        return
    os.makedirs(data_dir, exist_ok=True)
    rng = np.random.default_rng(2024)
    arrays = {
        "launch_x": rng.random(LAUNCH_N, dtype=np.float32),
        "triad_b": rng.random(TRIAD_N, dtype=np.float32),
        "triad_c": rng.random(TRIAD_N, dtype=np.float32),
        "diffusion_u": rng.random((DIFFUSION_N, DIFFUSION_N), dtype=np.float32),
        "hist_values": rng.random(HIST_N, dtype=np.float32),
        "copy_src": rng.random(COPY_N, dtype=np.float32),
        "grad_x": rng.random(GRAD_N, dtype=np.float32) * 2 - 1,
        "grad_a": rng.random(GRAD_N, dtype=np.float32),
    }
    arrays["triad_ref"] = arrays["triad_b"] + np.float32(TRIAD_SCALE) * arrays["triad_c"]
    arrays["mandel_ref"] = mandelbrot_reference()
    arrays["diffusion_ref"] = diffusion_reference(arrays["diffusion_u"])
    arrays["hist_ref"] = np.bincount((arrays["hist_values"] * HIST_BINS).astype(np.int64), minlength=HIST_BINS)
    x, a = arrays["grad_x"], arrays["grad_a"]
    arrays["grad_loss"] = np.array([np.sum(a.astype(np.float64) * x * x)])
    arrays["grad_ref"] = np.float32(2.0) * a * x  # d loss / d x, in the kernels' f32 order
    for name, array in arrays.items():
        np.save(os.path.join(data_dir, name + ".npy"), array)
    with open(stamp, "w") as handle:
        handle.write(DATA_VERSION)


if __name__ == "__main__":
    main(sys.argv[1])
