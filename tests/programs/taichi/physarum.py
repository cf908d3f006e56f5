# tests/programs/taichi/physarum.py: physarum agents that sense, turn at random and deposit on a 2-phase
# grid.
# Adapted from Taichi's python/taichi/examples/simulation/physarum.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; GRID_SIZE 512 -> 128; the GUI and slider replaced by 100 steps;
# state saved.
"""Physarum simulation example.

See https://sagejenson.com/physarum for the details."""

import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

PARTICLE_N = 1024
GRID_SIZE = 128
SENSE_ANGLE = 0.20 * np.pi
SENSE_DIST = 4.0
EVAPORATION = 0.95
MOVE_ANGLE = 0.1 * np.pi
MOVE_STEP = 2.0

grid = qd.field(dtype=qd.f32, shape=[2, GRID_SIZE, GRID_SIZE])
position = qd.Vector.field(2, dtype=qd.f32, shape=[PARTICLE_N])
heading = qd.field(dtype=qd.f32, shape=[PARTICLE_N])


@qd.kernel
def init():
    for p in qd.grouped(grid):
        grid[p] = 0.0
    for i in position:
        position[i] = qd.Vector([qd.random(), qd.random()]) * GRID_SIZE
        heading[i] = qd.random() * np.pi * 2.0


@qd.func
def sense(phase, pos, ang):
    p = pos + qd.Vector([qd.cos(ang), qd.sin(ang)]) * SENSE_DIST
    return grid[phase, p.cast(int) % GRID_SIZE]


@qd.kernel
def step(phase: qd.i32):
    # move
    for i in position:
        pos, ang = position[i], heading[i]
        l = sense(phase, pos, ang - SENSE_ANGLE)
        c = sense(phase, pos, ang)
        r = sense(phase, pos, ang + SENSE_ANGLE)
        if l < c < r:
            ang += MOVE_ANGLE
        elif l > c > r:
            ang -= MOVE_ANGLE
        elif c < l and c < r:
            ang += MOVE_ANGLE * (2 * (qd.random() < 0.5) - 1)
        pos += qd.Vector([qd.cos(ang), qd.sin(ang)]) * MOVE_STEP
        position[i], heading[i] = pos, ang

    # deposit
    for i in position:
        ipos = position[i].cast(int) % GRID_SIZE
        grid[phase, ipos] += 1.0

    # diffuse
    for i, j in qd.ndrange(GRID_SIZE, GRID_SIZE):
        a = 0.0
        for di in qd.static(range(-1, 2)):
            for dj in qd.static(range(-1, 2)):
                a += grid[phase, (i + di) % GRID_SIZE, (j + dj) % GRID_SIZE]
        a *= EVAPORATION / 9.0
        grid[1 - phase, i, j] = a


def main():
    init()
    i = 0
    step_per_frame = 1
    for frame in range(100):
        for _ in range(int(step_per_frame)):
            step(i % 2)
            i += 1


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "physarum.npz"),
        grid=grid.to_numpy(),
        position=position.to_numpy(),
        heading=heading.to_numpy(),
    )
