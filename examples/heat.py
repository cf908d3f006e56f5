# examples/heat.py: 2D heat diffusion through a plate with insulating walls; total heat is conserved.
#
# The update is in flux form: each face between two cells carries k_face * (T_neighbour - T_cell), and
# both cells see the same flux with opposite signs, so no heat is created or lost (the outer boundary is
# insulated). The example checks that the total stays the same to float32 rounding.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import inferno, parse_args  # noqa: E402
from png import write_png  # noqa: E402


@qd.func
def face_conductivity(k: qd.template(), y0, x0, y1, x1):
    """The harmonic mean of two cells' conductivities (0 across an outer edge)."""
    height, width = k.shape
    result = 0.0
    if 0 <= y1 < height and 0 <= x1 < width:
        a, b = k[y0, x0], k[y1, x1]
        result = 2.0 * a * b / (a + b + 1e-12)
    return result


@qd.kernel
def step(k: qd.template(), t_in: qd.template(), t_out: qd.template(), dt: qd.f32):
    height, width = t_in.shape
    for y, x in t_in:
        flux = 0.0
        for offset in qd.static([(0, 1), (0, -1), (1, 0), (-1, 0)]):
            ny, nx = y + offset[0], x + offset[1]
            kf = face_conductivity(k, y, x, ny, nx)
            if kf > 0.0:
                flux += kf * (t_in[ny, nx] - t_in[y, x])
        t_out[y, x] = t_in[y, x] + dt * flux


@qd.kernel
def total(t: qd.template()) -> qd.f64:
    result = qd.f64(0.0)  # a plain 0.0 would be a default_fp (f32) local
    for y, x in t:
        result += qd.cast(t[y, x], qd.f64)
    return result


def initial_state(height, width):
    """Conductivity (walls with gaps, a slow disk) and temperature (three hot spots)."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / height
    k = np.ones((height, width), dtype=np.float32)
    for wall_x, gap_y in ((0.45, 0.2), (0.9, 0.75)):
        wall = (np.abs(xx - wall_x) < 0.015) & (np.abs(yy - gap_y) > 0.08)
        k[wall] = 0.02
    k[(xx - 1.05) ** 2 + (yy - 0.3) ** 2 < 0.02] = 0.2
    temperature = np.zeros((height, width), dtype=np.float32)
    for cx, cy in ((0.15, 0.5), (0.7, 0.8), (1.2, 0.15)):
        temperature[(xx - cx) ** 2 + (yy - cy) ** 2 < 0.004] = 1.0
    return k, temperature


def main():
    args = parse_args("2D heat diffusion with walls.", "heat.png")
    qd.init(arch=getattr(qd, args.arch))
    height, width, steps = (64, 96, 400) if args.small else (300, 450, 2500)
    k_np, t_np = initial_state(height, width)
    k = qd.field(qd.f32, shape=(height, width))
    fields = [qd.field(qd.f32, shape=(height, width)) for _ in range(2)]
    k.from_numpy(k_np)
    fields[0].from_numpy(t_np)
    dt = 0.2  # stable: dt * (sum of face conductivities) <= 4 * 0.2 < 1
    before = total(fields[0])
    for n in range(steps):
        step(k, fields[n % 2], fields[(n + 1) % 2], dt)
    after = total(fields[steps % 2])

    temperature = fields[steps % 2].to_numpy()
    rgb = inferno(np.sqrt(temperature / temperature.max()))
    rgb[k_np < 0.05] = (90, 160, 220)  # the walls
    write_png(args.out, rgb)
    drift = abs(after - before) / before
    print(f"heat {width}x{height}, {steps} steps: total heat {before:.3f} -> {after:.3f} (relative change {drift:.1e})")
    print(f"wrote {args.out}")
    if drift > 1e-4:
        sys.exit("heat: total heat was not conserved")


if __name__ == "__main__":
    main()
