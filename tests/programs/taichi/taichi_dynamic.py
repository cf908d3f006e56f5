# tests/programs/taichi/taichi_dynamic.py: lists of squares appended to a dynamic SNode, with lengths.
# Adapted from Taichi's python/taichi/examples/features/sparse/taichi_dynamic.py (Apache-2.0, the
# Taichi authors; see ../NOTICE). Changed: taichi -> quadrants; x and l saved.
import os

import numpy as np

import quadrants as qd

qd.init()

x = qd.field(qd.i32)
l = qd.field(qd.i32)
n = 16

qd.root.dense(qd.i, n).dynamic(qd.j, n).place(x)
qd.root.dense(qd.i, n).place(l)


@qd.kernel
def make_lists():
    for i in range(n):
        for j in range(i):
            qd.append(x.parent(), i, j * j)
        l[i] = qd.length(x.parent(), i)


def main():
    make_lists()

    for i in range(n):
        assert l[i] == i
        for j in range(n):
            assert x[i, j] == (j * j if j < i else 0)


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "taichi_dynamic.npz"), x=x.to_numpy(), l=l.to_numpy())
