# examples/life.py: Conway's Game of Life on a torus, colored by how long each cell has been alive or dead.
#
# The first generations are checked against a numpy implementation of the same rule.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import inferno, parse_args  # noqa: E402
from png import write_png  # noqa: E402


@qd.kernel
def generation(alive: qd.template(), next_alive: qd.template(), age: qd.template()) -> qd.i32:
    """One step of the rule (born with 3 neighbours, survives with 2 or 3); returns the population."""
    height, width = alive.shape
    population = 0
    for y, x in alive:
        neighbours = 0
        for dy, dx in qd.static(qd.ndrange((-1, 2), (-1, 2))):
            if qd.static(dy != 0 or dx != 0):
                neighbours += alive[(y + dy + height) % height, (x + dx + width) % width]
        live = 1 if neighbours == 3 or (neighbours == 2 and alive[y, x] == 1) else 0
        next_alive[y, x] = live
        # age counts up while the cell keeps its state, and restarts when it flips
        age[y, x] = age[y, x] + 1 if live == alive[y, x] else 0
        population += live
    return population


def numpy_generation(alive):
    neighbours = sum(np.roll(np.roll(alive, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)) - alive
    return ((neighbours == 3) | ((neighbours == 2) & (alive == 1))).astype(np.int32)


def main():
    args = parse_args("Conway's Game of Life.", "life.png")
    qd.init(arch=getattr(qd, args.arch))
    size, steps, checked = (96, 120, 20) if args.small else (400, 600, 20)
    start = (np.random.default_rng(7).random((size, size)) < 0.3).astype(np.int32)
    boards = [qd.field(qd.i32, shape=(size, size)) for _ in range(2)]
    age = qd.field(qd.i32, shape=(size, size))
    boards[0].from_numpy(start)

    reference = start
    for n in range(steps):
        population = generation(boards[n % 2], boards[(n + 1) % 2], age)
        if n < checked:
            reference = numpy_generation(reference)
            if not np.array_equal(boards[(n + 1) % 2].to_numpy(), reference) or population != reference.sum():
                sys.exit(f"life: generation {n + 1} differs from the numpy reference")

    alive, ages = boards[steps % 2].to_numpy(), age.to_numpy()
    rgb = inferno(np.where(alive == 1, 0.55 + 0.45 * np.exp(-ages / 20.0), 0.45 * np.exp(-ages / 60.0)))
    write_png(args.out, np.repeat(np.repeat(rgb, 2, axis=0), 2, axis=1))
    print(f"life {size}x{size}: {steps} generations, population {start.sum()} -> {population}; "
          f"first {checked} match numpy; wrote {args.out}")


if __name__ == "__main__":
    main()
