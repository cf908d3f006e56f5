# tests/programs/taichi/two_stream_instability.py: 1-D particle-in-cell two-stream instability, 16384
# particles.
# Adapted from Taichi's python/taichi/examples/simulation/two_stream_instability.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 30 frames; x, v, rho and e
# saved.
# Authored by Luhuai Jiao
# This is a 1D simulation of "two-stream instability" in Plasma Physicis.
# Some settings of the grids and particles are taken from "Introduction to Computational Plasma Physics"(ISBN: 9787030563675)

import os

import numpy

import quadrants as qd

qd.init(arch=qd.gpu)  # Try to run on GPU
PI = 3.141592653589793
L = 8 * PI  # simulation domain size
dt = 0.1  # time step
substepping = 8
ng = 32  # number of grids
np = 16384  # numer of particles
vb = 1.0  # beam-velocity, one is vb, the other is -vb
vt = 0.3  # thermal velocity
wp = 1  # Plasma frequence
qm = -1  # charge-mass ratio
q = wp * wp / (qm * np / L)  # charge of a particle
rho_back = -q * np / L  # background charge density
dx = L / ng  # grid spacing
inv_dx = 1.0 / dx
x = qd.Vector.field(1, qd.f32, np)  # position
v = qd.Vector.field(1, qd.f32, np)  # velocity
rho = qd.Vector.field(1, qd.f32, ng)  # charge density
e = qd.Vector.field(1, qd.f32, ng)  # electric fields
# to show x-vx on the screen
v_x_pos1 = qd.Vector.field(2, qd.f32, int(np / 2))
v_x_pos2 = qd.Vector.field(2, qd.f32, int(np / 2))


@qd.kernel
def initialize():
    for p in x:
        x[p].x = (p + 1) * L / np
        v[p].x = vt * qd.randn() + (-1) ** p * vb  # two streams


@qd.kernel
def substep():
    for p in x:
        x[p] += v[p] * dt
        if x[p].x >= L:  # periodic boundary condition
            x[p] += -L
        if x[p].x < 0:
            x[p] += L
    rho.fill(rho_back)  # fill rho with background charge density
    for p in x:  # Particle state update and scatter to grid (P2G)
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - 0.5 - base.cast(float)
        rho[base] += (1.0 - fx) * q * inv_dx
        if base[0] < ng - 1:
            rho[base + 1] += fx * q * inv_dx
    e.fill(0.0)
    qd.loop_config(serialize=True)
    for i in range(ng):  # compute electric fields
        if i == 0:
            e[i] = rho[i] * dx * 0.5
        else:
            e[i] = e[i - 1] + (rho[i - 1] + rho[i]) * dx * 0.5
    s = 0.0
    for i in e:
        s += e[i].x
    for i in e:
        e[i] += -s / ng
    for p in v:  # G2P
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - 0.5 - base.cast(float)
        a = e[base] * (1.0 - fx) * qm
        if base[0] < ng - 1:
            a += e[base + 1] * fx * qm  # compute electric force
        v[p] += a * dt


@qd.kernel
def vx_pos():  # to show x-vx on the screen
    for p in x:
        if p % 2:
            v_x_pos1[int((p - 1) / 2)].x = x[p].x / L
            v_x_pos1[int((p - 1) / 2)].y = (v[p].x) / 10 + 0.5
        else:
            v_x_pos2[int(p / 2)].x = x[p].x / L
            v_x_pos2[int(p / 2)].y = (v[p].x) / 10 + 0.5


def main():
    initialize()
    for frame in range(30):
        for s in range(substepping):
            substep()
        vx_pos()


if __name__ == "__main__":
    main()
    numpy.savez(
        os.environ.get("QD_PROGRAM_OUT", "two_stream_instability.npz"),
        x=x.to_numpy(),
        v=v.to_numpy(),
        rho=rho.to_numpy(),
        e=e.to_numpy(),
    )
