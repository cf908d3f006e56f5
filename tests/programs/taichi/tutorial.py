# tests/programs/taichi/tutorial.py: the sparse tutorial: a pointer grid of 2x2 dense blocks, two writes.
# Adapted from Taichi's python/taichi/examples/features/sparse/tutorial.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; x saved.
import os

import numpy as np

import quadrants as qd

use_bitmask = False

qd.init()

x = qd.field(dtype=qd.i32)
block = qd.root.pointer(qd.ij, (4, 4))
if use_bitmask:
    pixel = block.bitmasked(qd.ij, (2, 2))
else:
    pixel = block.dense(qd.ij, (2, 2))
pixel.place(x)


@qd.kernel
def sparse_struct_for():
    x[2, 3] = 2
    x[5, 6] = 3

    for i, j in x:
        print(f"field x[i, j]={x[i, j]}")

    for i, j in block:
        print(f"Active block: [{i}, {j}]")


print(f"use_bitmask={use_bitmask}")
sparse_struct_for()

np.savez(os.environ.get("QD_PROGRAM_OUT", "tutorial.npz"), x=x.to_numpy())
