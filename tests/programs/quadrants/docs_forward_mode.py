# tests/programs/quadrants/docs_forward_mode.py: a Jacobian-vector product with qd.ad.FwdMode and lazy_dual.
# Adapted from upstream Quadrants' docs/source/user_guide/autodiff.md, "forward mode" (Apache-2.0; see
# ../NOTICE). Changed: the imports added; loss.dual saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

x = qd.field(qd.f32, shape=5)
loss = qd.field(qd.f32, shape=5)
qd.root.lazy_dual()   # place x.dual and loss.dual next to the primals

for i in range(5):
    x[i] = float(i)

@qd.kernel
def compute():
    loss[1] += x[3] * x[4]

# Directional derivative at (0, 0, 0, 1, 1): d loss[1] / d x[3] + d loss[1] / d x[4].
with qd.ad.FwdMode(loss=loss, param=x, seed=[0, 0, 0, 1, 1]):
    compute()

# loss.dual[1] == x[3] + x[4] == 7
np.savez(
    os.environ.get("QD_PROGRAM_OUT", "docs_forward_mode.npz"),
    loss=loss.to_numpy(),
    loss_dual=loss.dual.to_numpy(),
)
