# tests/programs/taichi/mgpcg.py: multigrid-preconditioned CG for a 3-D Poisson problem on pointer SNodes.
# Adapted from Taichi's python/taichi/examples/algorithm/mgpcg.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; N 128 -> 64; the GUI removed; parts of x, the image and the
# residuals saved.
# Solve Poisson's equation on an NxN grid using MGPCG
import os

import numpy as np

import quadrants as qd

real = qd.f32
qd.init(default_fp=real, arch=qd.x64, kernel_profiler=True)

# grid parameters
N = 64
N_gui = 64  # gui resolution

n_mg_levels = 4
pre_and_post_smoothing = 2
bottom_smoothing = 50

use_multigrid = True

N_ext = N // 2  # number of ext cells set so that that total grid size is still power of 2
N_tot = 2 * N

# setup sparse simulation data arrays
r = [qd.field(dtype=real) for _ in range(n_mg_levels)]  # residual
z = [qd.field(dtype=real) for _ in range(n_mg_levels)]  # M^-1 r
x = qd.field(dtype=real)  # solution
p = qd.field(dtype=real)  # conjugate gradient
Ap = qd.field(dtype=real)  # matrix-vector product
alpha = qd.field(dtype=real)  # step size
beta = qd.field(dtype=real)  # step size
sum_ = qd.field(dtype=real)  # storage for reductions
pixels = qd.field(dtype=real, shape=(N_gui, N_gui))  # image buffer

qd.root.pointer(qd.ijk, [N_tot // 4]).dense(qd.ijk, 4).place(x, p, Ap)

for lvl in range(n_mg_levels):
    qd.root.pointer(qd.ijk, [N_tot // (4 * 2**lvl)]).dense(qd.ijk, 4).place(r[lvl], z[lvl])

qd.root.place(alpha, beta, sum_)


@qd.kernel
def init():
    for i, j, k in qd.ndrange((N_ext, N_tot - N_ext), (N_ext, N_tot - N_ext), (N_ext, N_tot - N_ext)):
        xl = (i - N_ext) * 2.0 / N_tot
        yl = (j - N_ext) * 2.0 / N_tot
        zl = (k - N_ext) * 2.0 / N_tot
        # r[0] = b - Ax, where x = 0; therefore r[0] = b
        r[0][i, j, k] = qd.sin(2.0 * np.pi * xl) * qd.sin(2.0 * np.pi * yl) * qd.sin(2.0 * np.pi * zl)
        z[0][i, j, k] = 0.0
        Ap[i, j, k] = 0.0
        p[i, j, k] = 0.0
        x[i, j, k] = 0.0


@qd.kernel
def compute_Ap():
    for i, j, k in Ap:
        # A is implicitly expressed as a 3-D laplace operator
        Ap[i, j, k] = (
            6.0 * p[i, j, k]
            - p[i + 1, j, k]
            - p[i - 1, j, k]
            - p[i, j + 1, k]
            - p[i, j - 1, k]
            - p[i, j, k + 1]
            - p[i, j, k - 1]
        )


@qd.kernel
def reduce(p_: qd.template(), q_: qd.template()):
    for I in qd.grouped(p_):
        sum_[None] += p_[I] * q_[I]


@qd.kernel
def update_x():
    for I in qd.grouped(p):
        x[I] += alpha[None] * p[I]


@qd.kernel
def update_r():
    for I in qd.grouped(p):
        r[0][I] -= alpha[None] * Ap[I]


@qd.kernel
def update_p():
    for I in qd.grouped(p):
        p[I] = z[0][I] + beta[None] * p[I]


@qd.kernel
def restrict(l: qd.template()):
    for i, j, k in r[l]:
        res = r[l][i, j, k] - (
            6.0 * z[l][i, j, k]
            - z[l][i + 1, j, k]
            - z[l][i - 1, j, k]
            - z[l][i, j + 1, k]
            - z[l][i, j - 1, k]
            - z[l][i, j, k + 1]
            - z[l][i, j, k - 1]
        )
        r[l + 1][i // 2, j // 2, k // 2] += res * 0.5


@qd.kernel
def prolongate(l: qd.template()):
    for I in qd.grouped(z[l]):
        z[l][I] = z[l + 1][I // 2]


@qd.kernel
def smooth(l: qd.template(), phase: qd.template()):
    # phase = red/black Gauss-Seidel phase
    for i, j, k in r[l]:
        if (i + j + k) & 1 == phase:
            z[l][i, j, k] = (
                r[l][i, j, k]
                + z[l][i + 1, j, k]
                + z[l][i - 1, j, k]
                + z[l][i, j + 1, k]
                + z[l][i, j - 1, k]
                + z[l][i, j, k + 1]
                + z[l][i, j, k - 1]
            ) / 6.0


def apply_preconditioner():
    z[0].fill(0)
    for l in range(n_mg_levels - 1):
        for i in range(pre_and_post_smoothing << l):
            smooth(l, 0)
            smooth(l, 1)
        z[l + 1].fill(0)
        r[l + 1].fill(0)
        restrict(l)

    for i in range(bottom_smoothing):
        smooth(n_mg_levels - 1, 0)
        smooth(n_mg_levels - 1, 1)

    for l in reversed(range(n_mg_levels - 1)):
        prolongate(l)
        for i in range(pre_and_post_smoothing << l):
            smooth(l, 1)
            smooth(l, 0)


@qd.kernel
def paint():
    kk = N_tot * 3 // 8
    for i, j in pixels:
        ii = int(i * N / N_gui) + N_ext
        jj = int(j * N / N_gui) + N_ext
        pixels[i, j] = x[ii, jj, kk] / N_tot


def main():
    init()

    sum_[None] = 0.0
    reduce(r[0], r[0])
    initial_rTr = sum_[None]

    # r = b - Ax = b    since x = 0
    # p = r = r + 0 p
    if use_multigrid:
        apply_preconditioner()
    else:
        z[0].copy_from(r[0])

    update_p()

    sum_[None] = 0.0
    reduce(z[0], r[0])
    old_zTr = sum_[None]

    # CG
    for i in range(400):
        # alpha = rTr / pTAp
        compute_Ap()
        sum_[None] = 0.0
        reduce(p, Ap)
        pAp = sum_[None]
        alpha[None] = old_zTr / pAp

        # x = x + alpha p
        update_x()

        # r = r - alpha Ap
        update_r()

        # check for convergence
        sum_[None] = 0.0
        reduce(r[0], r[0])
        rTr = sum_[None]
        if rTr < initial_rTr * 1.0e-12:
            break

        # z = M^-1 r
        if use_multigrid:
            apply_preconditioner()
        else:
            z[0].copy_from(r[0])

        # beta = new_rTr / old_rTr
        sum_[None] = 0.0
        reduce(z[0], r[0])
        new_zTr = sum_[None]
        beta[None] = new_zTr / old_zTr

        # p = z + beta p
        update_p()
        old_zTr = new_zTr

        print(" ")
        print(f"Iter = {i:4}, Residual = {rTr:e}")
        paint()
        residuals.append(rTr)

    qd.profiler.print_kernel_profiler_info()


if __name__ == "__main__":
    residuals = []
    main()
    x_np = x.to_numpy()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "mgpcg.npz"),
        x_projected=x_np.sum(axis=2),  # the whole solution, summed along k (saving all of it is 1 MB)
        x_slices=x_np[N_ext:-N_ext, N_ext:-N_ext, [N_ext + 8, N_tot // 2, N_tot - N_ext - 8]],
        pixels=pixels.to_numpy(),
        residuals=np.array(residuals),
    )
