# tests/programs/taichi/print_offset.py: each cell's address offset (qd.get_addr) in a nested dense layout.
# Adapted from Taichi's python/taichi/examples/algorithm/print_offset.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the GUI drawing of the offsets removed; a saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, print_ir=True)

n = 4
m = 8

a = qd.field(dtype=qd.i32)
qd.root.dense(qd.ij, (1, 2)).dense(qd.ij, 2).dense(qd.ij, 2).place(a)


@qd.kernel
def fill():
    for i, j in a:
        base = qd.get_addr(a.snode, [0, 0])
        a[i, j] = int(qd.get_addr(a.snode, [i, j]) - base) // 4


def main():
    fill()
    print(a.to_numpy())

    np.savez(os.environ.get("QD_PROGRAM_OUT", "print_offset.npz"), a=a.to_numpy())


if __name__ == "__main__":
    main()
