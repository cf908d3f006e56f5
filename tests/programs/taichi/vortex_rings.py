# tests/programs/taichi/vortex_rings.py: four point vortices (leapfrogging rings) advecting tracers (RK3).
# Adapted from Taichi's python/taichi/examples/simulation/vortex_rings.py (Apache-2.0, the Taichi authors;
# see ../NOTICE). Changed: taichi -> quadrants; 200000 -> 20000 tracers; the GUI loop replaced by 50 frames;
# state saved.
# C++ reference and tutorial (Chinese): https://zhuanlan.zhihu.com/p/26882619
import math
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

eps = 0.01
dt = 0.1

n_vortex = 4
n_tracer = 20000

pos = qd.Vector.field(2, qd.f32, shape=n_vortex)
new_pos = qd.Vector.field(2, qd.f32, shape=n_vortex)
vort = qd.field(qd.f32, shape=n_vortex)

tracer = qd.Vector.field(2, qd.f32, shape=n_tracer)


@qd.func
def compute_u_single(p, i):
    r2 = (p - pos[i]).norm() ** 2
    uv = qd.Vector([pos[i].y - p.y, p.x - pos[i].x])
    return vort[i] * uv / (r2 * math.pi) * 0.5 * (1.0 - qd.exp(-r2 / eps**2))


@qd.func
def compute_u_full(p):
    u = qd.Vector([0.0, 0.0])
    for i in range(n_vortex):
        u += compute_u_single(p, i)
    return u


@qd.kernel
def integrate_vortex():
    for i in range(n_vortex):
        v = qd.Vector([0.0, 0.0])
        for j in range(n_vortex):
            if i != j:
                v += compute_u_single(pos[i], j)
        new_pos[i] = pos[i] + dt * v

    for i in range(n_vortex):
        pos[i] = new_pos[i]


@qd.kernel
def advect():
    for i in range(n_tracer):
        # Ralston's third-order method
        p = tracer[i]
        v1 = compute_u_full(p)
        v2 = compute_u_full(p + v1 * dt * 0.5)
        v3 = compute_u_full(p + v2 * dt * 0.75)
        tracer[i] += (2 / 9 * v1 + 1 / 3 * v2 + 4 / 9 * v3) * dt


pos[0] = [0, 1]
pos[1] = [0, -1]
pos[2] = [0, 0.3]
pos[3] = [0, -0.3]
vort[0] = 1
vort[1] = -1
vort[2] = 1
vort[3] = -1


@qd.kernel
def init_tracers():
    for i in range(n_tracer):
        tracer[i] = [qd.random() - 0.5, qd.random() * 3 - 1.5]


def main():
    init_tracers()
    for frame in range(50):
        for i in range(4):  # substeps
            advect()
            integrate_vortex()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "vortex_rings.npz"),
        pos=pos.to_numpy(),
        tracer=tracer.to_numpy(),
    )
