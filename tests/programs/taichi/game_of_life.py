# tests/programs/taichi/game_of_life.py: Conway's game of life on 64x64 from a random start.
# Adapted from Taichi's python/taichi/examples/simulation/game_of_life.py (Apache-2.0, the Taichi authors;
# see ../NOTICE). Changed: taichi -> quadrants; the GUI and its mouse editing replaced by 50 steps; alive
# and count saved.
# Game of Life written in 100 lines of Taichi
# In memory of John Horton Conway (1937 - 2020)

import os

import numpy as np

import quadrants as qd

qd.init()

n = 64
cell_size = 8
img_size = n * cell_size
alive = qd.field(int, shape=(n, n))  # alive = 1, dead = 0
count = qd.field(int, shape=(n, n))  # count of neighbours


@qd.func
def get_alive(i, j):
    return alive[i, j] if 0 <= i < n and 0 <= j < n else 0


@qd.func
def get_count(i, j):
    return (
        get_alive(i - 1, j)
        + get_alive(i + 1, j)
        + get_alive(i, j - 1)
        + get_alive(i, j + 1)
        + get_alive(i - 1, j - 1)
        + get_alive(i + 1, j - 1)
        + get_alive(i - 1, j + 1)
        + get_alive(i + 1, j + 1)
    )


# See https://www.conwaylife.com/wiki/Cellular_automaton#Rules for more rules
B, S = [3], [2, 3]
# B, S = [2], [0]


@qd.func
def calc_rule(a, c):
    if a == 0:
        for t in qd.static(B):
            if c == t:
                a = 1
    elif a == 1:
        a = 0
        for t in qd.static(S):
            if c == t:
                a = 1
    return a


@qd.kernel
def run():
    for i, j in alive:
        count[i, j] = get_count(i, j)

    for i, j in alive:
        alive[i, j] = calc_rule(alive[i, j], count[i, j])


@qd.kernel
def init():
    for i, j in alive:
        if qd.random() > 0.8:
            alive[i, j] = 1
        else:
            alive[i, j] = 0


def main():
    init()
    paused = False
    for frame in range(50):
        if not paused:
            run()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "game_of_life.npz"),
        alive=alive.to_numpy(),
        count=count.to_numpy(),
    )
