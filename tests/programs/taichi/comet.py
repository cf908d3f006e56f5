# tests/programs/taichi/comet.py: a comet's tail: a bitmasked particle pool, qd.no_activate and deactivate.
# Adapted from Taichi's python/taichi/examples/simulation/comet.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; res 640 -> 128; the GUI loop replaced by 100 frames; state
# saved.
import math
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cuda)

dim = 3
N = 1024 * 8
dt = 2e-4
steps = 7
sun = qd.Vector([0.5, 0.5] if dim == 2 else [0.5, 0.5, 0.0])
gravity = 0.5
pressure = 0.3
tail_paticle_scale = 0.4
color_init = 0.3
color_decay = 1.6
vel_init = 0.07
res = 128

inv_m = qd.field(qd.f32)
color = qd.field(qd.f32)
x = qd.Vector.field(dim, qd.f32)
v = qd.Vector.field(dim, qd.f32)
qd.root.bitmasked(qd.i, N).place(x, v, inv_m, color)
count = qd.field(qd.i32, ())
img = qd.field(qd.f32, (res, res))


@qd.func
def rand_unit_2d():
    a = qd.random() * 2 * math.pi
    return qd.Vector([qd.cos(a), qd.sin(a)])


@qd.func
def rand_unit_3d():
    u = rand_unit_2d()
    s = qd.random() * 2 - 1
    c = qd.sqrt(1 - s**2)
    return qd.Vector([c * u[0], c * u[1], s])


@qd.kernel
def substep():
    qd.no_activate(x)
    for i in x:
        r = x[i] - sun
        r_sq_inverse = r / r.norm(1e-3) ** 3
        acceleration = (pressure * inv_m[i] - gravity) * r_sq_inverse
        v[i] += acceleration * dt
        x[i] += v[i] * dt
        color[i] *= qd.exp(-dt * color_decay)

        if not all(-0.1 <= x[i] <= 1.1):
            qd.deactivate(x.snode.parent(), [i])


@qd.kernel
def generate():
    r = x[0] - sun
    n_tail_paticles = int(tail_paticle_scale / r.norm(1e-3) ** 2)
    for _ in range(n_tail_paticles):
        r = x[0]
        if qd.static(dim == 3):
            r = rand_unit_3d()
        else:
            r = rand_unit_2d()
        xi = qd.atomic_add(count[None], 1) % (N - 1) + 1
        x[xi] = x[0]
        v[xi] = r * vel_init + v[0]
        inv_m[xi] = 0.5 + qd.random()
        color[xi] = color_init


@qd.kernel
def render():
    for p in qd.grouped(img):
        img[p] = 1e-6 / (p / res - qd.Vector([sun.x, sun.y])).norm(1e-4) ** 3
    for i in x:
        p = int(qd.Vector([x[i].x, x[i].y]) * res)
        if 0 <= p[0] < res and 0 <= p[1] < res:
            img[p] += color[i]


def main():
    inv_m[0] = 0
    x[0].x = +0.5
    x[0].y = -0.01
    v[0].x = +0.6
    v[0].y = +0.4
    color[0] = 1

    for frame in range(100):
        generate()
        for s in range(steps):
            substep()
        render()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "comet.npz"),
        x=x.to_numpy(),
        v=v.to_numpy(),
        color=color.to_numpy(),
        img=img.to_numpy(),
        count=count.to_numpy(),
    )
