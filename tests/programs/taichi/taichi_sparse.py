# tests/programs/taichi/taichi_sparse.py: three levels of pointer SNodes over a rotating logo, activity
# painted.
# Adapted from Taichi's python/taichi/examples/features/sparse/taichi_sparse.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; n 512 -> 128; the GUI loop replaced by 5 frames;
# img and x saved.
import os

import numpy as np
from patterns import taichi_logo

import quadrants as qd

qd.init(arch=qd.cuda)

n = 128
x = qd.field(dtype=qd.i32)
res = n + n // 4 + n // 16 + n // 64
img = qd.field(dtype=qd.f32, shape=(res, res))

block1 = qd.root.pointer(qd.ij, n // 64)
block2 = block1.pointer(qd.ij, 4)
block3 = block2.pointer(qd.ij, 4)
block3.dense(qd.ij, 4).place(x)


@qd.kernel
def activate(t: qd.f32):
    for i, j in qd.ndrange(n, n):
        p = qd.Vector([i, j]) / n
        p = qd.math.rotation2d(qd.sin(t)) @ (p - 0.5) + 0.5

        if taichi_logo(p) == 0:
            x[i, j] = 1


@qd.func
def scatter(i):
    return i + i // 4 + i // 16 + i // 64 + 2


@qd.kernel
def paint():
    for i, j in qd.ndrange(n, n):
        t = x[i, j]
        block1_index = qd.rescale_index(x, block1, [i, j])
        block2_index = qd.rescale_index(x, block2, [i, j])
        block3_index = qd.rescale_index(x, block3, [i, j])
        t += qd.is_active(block1, block1_index)
        t += qd.is_active(block2, block2_index)
        t += qd.is_active(block3, block3_index)
        img[scatter(i), scatter(j)] = 1 - t / 4


def main():
    img.fill(0.05)

    for i in range(5):
        block1.deactivate_all()
        activate(i * 0.05)
        paint()


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "taichi_sparse.npz"), img=img.to_numpy(), x=x.to_numpy())
