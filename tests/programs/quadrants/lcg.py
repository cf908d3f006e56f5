# tests/programs/quadrants/lcg.py: a linear congruential generator per element of an i32 ndarray (wrapping).
# Adapted from upstream Quadrants' python/quadrants/examples/lcg_taichi.py (Apache-2.0; see ../NOTICE).
# Changed: B 16000 -> 1600; the timing print kept; the array saved.
import os
import time

import numpy as np

import quadrants as qd


@qd.kernel
def lcg_ti(B: int, lcg_its: int, a: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(B):
        x = a[i]
        for j in range(lcg_its):
            x = (1664525 * x + 1013904223) % 2147483647
        a[i] = x


def main() -> None:
    qd.init(arch=qd.gpu)

    B = 1600
    a = qd.ndarray(qd.int32, (B,))

    qd.sync()
    start = time.time()
    lcg_ti(B, 1000, a)
    qd.sync()
    end = time.time()
    print("elapsed", end - start)
    np.savez(os.environ.get("QD_PROGRAM_OUT", "lcg.npz"), a=a.to_numpy())


main()
