# tests/programs/taichi/nbody.py: a 2-D galaxy of N bodies, all pairs, symplectic Euler.
# Adapted from Taichi's python/taichi/examples/simulation/nbody.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; N 3000 -> 500; the GUI loop replaced by 20 frames; pos and vel
# saved.
# Authored by Tiantian Liu, Taichi Graphics.
import math
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

# global control
paused = qd.field(qd.i32, ())

# gravitational constant 6.67408e-11, using 1 for simplicity
G = 1

# number of planets
N = 500
# unit mass
m = 1
# galaxy size
galaxy_size = 0.4
# planet radius (for rendering)
planet_radius = 2
# init vel
init_vel = 120

# time-step size
h = 1e-4
# substepping
substepping = 10

# center of the screen
center = qd.Vector.field(2, qd.f32, ())

# pos, vel and force of the planets
# Nx2 vectors
pos = qd.Vector.field(2, qd.f32, N)
vel = qd.Vector.field(2, qd.f32, N)
force = qd.Vector.field(2, qd.f32, N)


@qd.kernel
def initialize():
    center[None] = [0.5, 0.5]
    for i in range(N):
        theta = qd.random() * 2 * math.pi
        r = (qd.sqrt(qd.random()) * 0.6 + 0.4) * galaxy_size
        offset = r * qd.Vector([qd.cos(theta), qd.sin(theta)])
        pos[i] = center[None] + offset
        vel[i] = [-offset.y, offset.x]
        vel[i] *= init_vel


@qd.kernel
def compute_force():
    # clear force
    for i in range(N):
        force[i] = [0.0, 0.0]

    # compute gravitational force
    for i in range(N):
        p = pos[i]
        for j in range(N):
            if i != j:  # double the computation for a better memory footprint and load balance
                diff = p - pos[j]
                r = diff.norm(1e-5)

                # gravitational force -(GMm / r^2) * (diff/r) for i
                f = -G * m * m * (1.0 / r) ** 3 * diff

                # assign to each particle
                force[i] += f


@qd.kernel
def update():
    dt = h / substepping
    for i in range(N):
        # symplectic euler
        vel[i] += dt * force[i] / m
        pos[i] += dt * vel[i]


def main():
    initialize()
    for frame in range(20):
        if not paused[None]:
            for i in range(substepping):
                compute_force()
                update()


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "nbody.npz"), pos=pos.to_numpy(), vel=vel.to_numpy())
