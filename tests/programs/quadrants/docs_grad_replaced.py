# tests/programs/quadrants/docs_grad_replaced.py: a hand-written gradient through
# qd.ad.grad_replaced/grad_for.
# Adapted from upstream Quadrants' docs/source/user_guide/autodiff.md, "Overriding the compiler-generated
# gradient" (Apache-2.0; see ../NOTICE). Changed: the imports, qd.init and x's values added; state saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

x = qd.field(qd.f32)
total = qd.field(qd.f32)
qd.root.dense(qd.i, 128).place(x)
qd.root.place(total)
qd.root.lazy_grad()

x.from_numpy(np.linspace(0, 1, 128, dtype=np.float32))

@qd.kernel
def accumulate(mul: qd.f32):
    for i in range(128):
        qd.atomic_add(total[None], x[i] * mul)

@qd.ad.grad_replaced
def forward(mul):
    accumulate(mul)
    accumulate(mul)   # called twice in the forward pass

@qd.ad.grad_for(forward)
def backward(mul):
    # Analytic gradient: d total / d x[i] == 2 * mul for every i.
    accumulate.grad(mul)

with qd.ad.Tape(loss=total):
    forward(4)
# x.grad[i] == 4 for every i
np.savez(
    os.environ.get("QD_PROGRAM_OUT", "docs_grad_replaced.npz"),
    total=total.to_numpy(),
    x_grad=x.grad.to_numpy(),
)
