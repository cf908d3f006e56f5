# tests/programs/taichi/explicit_activation.py: qd.activate/deactivate/is_active/rescale_index on nested
# pointers; prints.
# Adapted from Taichi's python/taichi/examples/features/sparse/explicit_activation.py (Apache-2.0, the
# Taichi authors; see ../NOTICE). Changed: taichi -> quadrants; x after the demo kernel saved (the prints
# are compared too).
import os

import numpy as np

import quadrants as qd

qd.init()

x = qd.field(dtype=qd.i32)
block1 = qd.root.pointer(qd.ij, (4, 4))
block2 = block1.pointer(qd.ij, (2, 2))
pixel = block2.dense(qd.ij, (2, 2))
pixel.place(x)


@qd.kernel
def sparse_api_demo():
    qd.activate(block1, [0, 1])
    qd.activate(block2, [1, 2])

    for i, j in x:
        print(f"field x[{i}, {j}] = {x[i, j]}")
    # outputs:
    # field x[2, 4] = 0
    # field x[2, 5] = 0
    # field x[3, 4] = 0
    # field x[3, 5] = 0

    for i, j in block2:
        print(f"Active block2: [{i}, {j}]")
    # output: Active block2: [1, 2]

    for i, j in block1:
        print(f"Active block1: [{i}, {j}]")
    # output: Active block1: [0, 1]

    for j in range(4):
        print(f"Activity of block2[2, {j}] = {qd.is_active(block2, [1, j])}")

    qd.deactivate(block2, [1, 2])

    for i, j in block2:
        print(f"Active block2: [{i}, {j}]")
    # output: nothing

    for i, j in block1:
        print(f"Active block1: [{i}, {j}]")
    # output: Active block1: [0, 1]

    print(qd.rescale_index(x, block1, qd.Vector([9, 17])))
    # output = [2, 4]

    # Note: qd.Vector is optional in qd.rescale_index.
    print(qd.rescale_index(x, block1, [9, 17]))
    # output = [2, 4]

    qd.activate(block2, [1, 2])


sparse_api_demo()
x_after_demo = x.to_numpy()


@qd.kernel
def check_activity(snode: qd.template(), i: qd.i32, j: qd.i32):
    print(qd.is_active(snode, [i, j]))


check_activity(block2, 1, 2)  # output = 1
block2.deactivate_all()
check_activity(block2, 1, 2)  # output = 0
check_activity(block1, 0, 1)  # output = 1
qd.deactivate_all_snodes()
check_activity(block1, 0, 1)  # output = 0
np.savez(os.environ.get("QD_PROGRAM_OUT", "explicit_activation.npz"), x_after_demo=x_after_demo)
