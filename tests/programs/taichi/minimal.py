# tests/programs/taichi/minimal.py: a kernel that prints and returns a value.
# Adapted from Taichi's python/taichi/examples/minimal.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the returned value is saved.
import os

import numpy as np

import quadrants as qd

qd.init()


@qd.kernel
def p() -> qd.f32:
    print(42)
    return 40 + 2


print(p())
np.savez(os.environ.get("QD_PROGRAM_OUT", "minimal.npz"), result=np.float32(p()))
