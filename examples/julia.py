# examples/julia.py: a Julia set, colored by its smooth escape time, computed into a field.
#
# Julia sets of z -> z^2 + c are symmetric under z -> -z; the example checks that the picture is too.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import inferno, parse_args  # noqa: E402
from png import write_png  # noqa: E402


@qd.func
def complex_square(z):
    return qd.Vector([z[0] * z[0] - z[1] * z[1], 2.0 * z[0] * z[1]])


@qd.func
def smooth_escape(z0, c, max_iter):
    """The escape iteration count, continuous across bands (0 for points that never escape)."""
    z = z0
    n = 0
    while n < max_iter and z.dot(z) < 256.0:
        z = complex_square(z) + c
        n += 1
    result = 0.0
    if n < max_iter:
        result = n + 1.0 - qd.log(qd.log(z.norm())) / qd.log(2.0)
    return result


@qd.kernel
def julia(escape: qd.template(), c: qd.types.vector(2, qd.f32), zoom: qd.f32, max_iter: qd.i32):
    height, width = escape.shape
    for y, x in escape:  # parallel over every pixel
        z = qd.Vector([(x + 0.5 - width / 2) / height, (y + 0.5 - height / 2) / height]) * zoom
        escape[y, x] = smooth_escape(z, c, max_iter)


def main():
    args = parse_args("A Julia set fractal.", "julia.png")
    qd.init(arch=getattr(qd, args.arch))
    height, width, max_iter = (120, 160, 64) if args.small else (540, 720, 256)
    escape = qd.field(qd.f32, shape=(height, width))
    julia(escape, qd.Vector([-0.7269, 0.1889]), 2.8, max_iter)

    values = escape.to_numpy()
    inside = values == 0.0
    shade = np.sqrt(values / values.max())
    rgb = inferno(shade)
    rgb[inside] = (10, 10, 30)
    write_png(args.out, rgb[::-1])  # row 0 is the bottom of the plane
    asymmetric = np.mean(np.abs(values - values[::-1, ::-1]) > 1e-2 * values.max())
    print(f"julia {width}x{height}: {inside.mean():.1%} of pixels inside the set, {asymmetric:.2%} asymmetric; "
          f"wrote {args.out}")
    if not 0.0 < inside.mean() < 0.9 or asymmetric > 0.01:
        sys.exit("julia: the picture is flat or not symmetric under z -> -z; the kernel is wrong")


if __name__ == "__main__":
    main()
