# tests/programs/taichi/taichi_bitmasked.py: a bitmasked 256x256 field, a 25x25 block painted by struct-for.
# Adapted from Taichi's python/taichi/examples/features/sparse/taichi_bitmasked.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 20 frames; x saved.
import math
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.cuda)

n = 256
x = qd.field(qd.f32)
# `bitmasked` is a field that supports sparsity, in that each element can be
# activated individually. (It can be viewed as `dense`, with an extra bit for each
# element to mark its activation). Assigning to an element will activate it
# automatically. Use struct-for syntax to loop over the active elements only.
qd.root.bitmasked(qd.ij, (n, n)).place(x)


@qd.kernel
def activate():
    # All elements in bitmasked is initially deactivated
    # Let's activate elements in the rectangle now!
    for i, j in qd.ndrange((100, 125), (100, 125)):
        x[i, j] = 233  # assign any value to activate the element at (i, j)


@qd.kernel
def paint_active_pixels(color: qd.f32):
    # struct-for syntax: loop over active pixels, inactive pixels are skipped
    for i, j in x:
        x[i, j] = color


@qd.kernel
def paint_all_pixels(color: qd.f32):
    # range-for syntax: loop over all pixels, no matter active or not
    for i, j in qd.ndrange(n, n):
        x[i, j] = color


def main():
    qd.deactivate_all_snodes()
    activate()

    for frame in range(20):
        color = math.sin(frame * 0.05) * 0.5 + 0.5
        paint_active_pixels(color)
        # paint_all_pixels(color)  # try this and compare the difference!


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "taichi_bitmasked.npz"), x=x.to_numpy())
