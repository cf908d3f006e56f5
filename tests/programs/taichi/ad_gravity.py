# tests/programs/taichi/ad_gravity.py: gravity of 8 bodies, forces as the gradient of U through qd.ad.Tape.
# Adapted from Taichi's python/taichi/examples/simulation/ad_gravity.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 10 frames of 50 substeps; x and v
# saved.
import os

import numpy as np

import quadrants as qd

qd.init()

N = 8
dt = 1e-5

x = qd.Vector.field(2, dtype=qd.f32, shape=N, needs_grad=True)  # particle positions
v = qd.Vector.field(2, dtype=qd.f32, shape=N)  # particle velocities
U = qd.field(dtype=qd.f32, shape=(), needs_grad=True)  # potential energy


@qd.kernel
def compute_U():
    for i, j in qd.ndrange(N, N):
        r = x[i] - x[j]
        # r.norm(1e-3) is equivalent to qd.sqrt(r.norm()**2 + 1e-3)
        # This is to prevent 1/0 error which can cause wrong derivative
        U[None] += -1 / r.norm(1e-3)  # U += -1 / |r|


@qd.kernel
def advance():
    for i in x:
        v[i] += dt * -x.grad[i]  # dv/dt = -dU/dx
    for i in x:
        x[i] += dt * v[i]  # dx/dt = v


def substep():
    with qd.ad.Tape(loss=U):
        # Kernel invocations in this scope will later contribute to partial derivatives of
        # U with respect to input variables such as x.
        compute_U()  # The tape will automatically compute dU/dx and save the results in x.grad
    advance()


@qd.kernel
def init():
    for i in x:
        x[i] = [qd.random(), qd.random()]


def main():
    init()
    for frame in range(10):
        for i in range(50):
            substep()


if __name__ == "__main__":
    main()
    np.savez(os.environ.get("QD_PROGRAM_OUT", "ad_gravity.npz"), x=x.to_numpy(), v=v.to_numpy())
