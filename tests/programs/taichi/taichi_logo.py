# tests/programs/taichi/taichi_logo.py: the Taichi logo, 4x4 supersampled, at 128x128.
# Adapted from Taichi's python/taichi/examples/rendering/taichi_logo.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; n 512 -> 128; the GUI removed; x saved.
import os

import numpy as np
from patterns import taichi_logo

import quadrants as qd

qd.init()

n = 128
x = qd.field(dtype=qd.f32, shape=(n, n))


@qd.kernel
def paint():
    for i, j in qd.ndrange(n * 4, n * 4):
        # 4x4 super sampling:
        ret = taichi_logo(qd.Vector([i, j]) / (n * 4))
        x[i // 4, j // 4] += ret / 16


def main():
    paint()


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "taichi_logo.npz"), x=x.to_numpy())
