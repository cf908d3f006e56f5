# tests/programs/taichi/stable_fluid_sparse.py: stable_fluid.py with -S: the pressure from
# SparseMatrixBuilder and an LLT SparseSolver.
# Adapted from Taichi's python/taichi/examples/simulation/stable_fluid.py (Apache-2.0, the Taichi authors;
# see ../NOTICE). Changed: taichi -> quadrants; -S made the default; res 512 -> 48; the mouse replaced by a
# scripted 12-frame drag, 30 frames; the GUI removed; state saved.
# References:
# http://developer.download.nvidia.com/books/HTML/gpugems/gpugems_ch38.html
# https://github.com/PavelDoGreat/WebGL-Fluid-Simulation
# https://www.bilibili.com/video/BV1ZK411H7Hc?p=4
# https://github.com/ShaneFX/GAMES201/tree/master/HW01

import argparse
import os

import numpy as np

import quadrants as qd

# How to run:
#   `python stable_fluid.py`: use the jacobi iteration to solve the linear system.
#   `python stable_fluid.py -S`: use a sparse matrix to do so.
parser = argparse.ArgumentParser()
parser.add_argument(
    "-S",
    "--use-sp-mat",
    action="store_true",
    default=True,
    help="Solve Poisson's equation by using a sparse matrix",
)
parser.add_argument(
    "-a",
    "--arch",
    required=False,
    default="cpu",
    dest="arch",
    type=str,
    help="The arch (backend) to run this example on",
)
args, unknowns = parser.parse_known_args()

res = 48
dt = 0.03
p_jacobi_iters = 500  # 40 for a quicker but less accurate result
f_strength = 10000.0
curl_strength = 0
time_c = 2
maxfps = 60
dye_decay = 1 - 1 / (maxfps * time_c)
force_radius = res / 2.0
debug = False

use_sparse_matrix = args.use_sp_mat
arch = args.arch
if arch in ["x64", "cpu", "arm64"]:
    qd.init(arch=qd.cpu)
elif arch in ["cuda", "gpu"]:
    qd.init(arch=qd.cuda)
else:
    raise ValueError("Only CPU and CUDA backends are supported for now.")

if use_sparse_matrix:
    print("Using sparse matrix")
else:
    print("Using jacobi iteration")

_velocities = qd.Vector.field(2, float, shape=(res, res))
_new_velocities = qd.Vector.field(2, float, shape=(res, res))
velocity_divs = qd.field(float, shape=(res, res))
velocity_curls = qd.field(float, shape=(res, res))
_pressures = qd.field(float, shape=(res, res))
_new_pressures = qd.field(float, shape=(res, res))
_dye_buffer = qd.Vector.field(3, float, shape=(res, res))
_new_dye_buffer = qd.Vector.field(3, float, shape=(res, res))


class TexPair:
    def __init__(self, cur, nxt):
        self.cur = cur
        self.nxt = nxt

    def swap(self):
        self.cur, self.nxt = self.nxt, self.cur


velocities_pair = TexPair(_velocities, _new_velocities)
pressures_pair = TexPair(_pressures, _new_pressures)
dyes_pair = TexPair(_dye_buffer, _new_dye_buffer)

if use_sparse_matrix:
    # use a sparse matrix to solve Poisson's pressure equation.
    @qd.kernel
    def fill_laplacian_matrix(A: qd.types.sparse_matrix_builder()):
        for i, j in qd.ndrange(res, res):
            row = i * res + j
            center = 0.0
            if j != 0:
                A[row, row - 1] += -1.0
                center += 1.0
            if j != res - 1:
                A[row, row + 1] += -1.0
                center += 1.0
            if i != 0:
                A[row, row - res] += -1.0
                center += 1.0
            if i != res - 1:
                A[row, row + res] += -1.0
                center += 1.0
            A[row, row] += center

    N = res * res
    K = qd.linalg.SparseMatrixBuilder(N, N, max_num_triplets=N * 6)
    F_b = qd.ndarray(qd.f32, shape=N)

    fill_laplacian_matrix(K)
    L = K.build()
    solver = qd.linalg.SparseSolver(solver_type="LLT")
    solver.analyze_pattern(L)
    solver.factorize(L)


@qd.func
def sample(qf, u, v):
    I = qd.Vector([int(u), int(v)])
    I = qd.max(0, qd.min(res - 1, I))
    return qf[I]


@qd.func
def lerp(vl, vr, frac):
    # frac: [0.0, 1.0]
    return vl + frac * (vr - vl)


@qd.func
def bilerp(vf, p):
    u, v = p
    s, t = u - 0.5, v - 0.5
    # floor
    iu, iv = qd.floor(s), qd.floor(t)
    # fract
    fu, fv = s - iu, t - iv
    a = sample(vf, iu, iv)
    b = sample(vf, iu + 1, iv)
    c = sample(vf, iu, iv + 1)
    d = sample(vf, iu + 1, iv + 1)
    return lerp(lerp(a, b, fu), lerp(c, d, fu), fv)


# 3rd order Runge-Kutta
@qd.func
def backtrace(vf: qd.template(), p, dt_: qd.template()):
    v1 = bilerp(vf, p)
    p1 = p - 0.5 * dt_ * v1
    v2 = bilerp(vf, p1)
    p2 = p - 0.75 * dt_ * v2
    v3 = bilerp(vf, p2)
    p -= dt_ * ((2 / 9) * v1 + (1 / 3) * v2 + (4 / 9) * v3)
    return p


@qd.kernel
def advect(vf: qd.template(), qf: qd.template(), new_qf: qd.template()):
    for i, j in vf:
        p = qd.Vector([i, j]) + 0.5
        p = backtrace(vf, p, dt)
        new_qf[i, j] = bilerp(qf, p) * dye_decay


@qd.kernel
def apply_impulse(vf: qd.template(), dyef: qd.template(), imp_data: qd.types.ndarray()):
    g_dir = -qd.Vector([0, 9.8]) * 300
    for i, j in vf:
        omx, omy = imp_data[2], imp_data[3]
        mdir = qd.Vector([imp_data[0], imp_data[1]])
        dx, dy = (i + 0.5 - omx), (j + 0.5 - omy)
        d2 = dx * dx + dy * dy
        # dv = F * dt
        factor = qd.exp(-d2 / force_radius)

        dc = dyef[i, j]
        a = dc.norm()

        momentum = (mdir * f_strength * factor + g_dir * a / (1 + a)) * dt

        v = vf[i, j]
        vf[i, j] = v + momentum
        # add dye
        if mdir.norm() > 0.5:
            dc += qd.exp(-d2 * (4 / (res / 15) ** 2)) * qd.Vector([imp_data[4], imp_data[5], imp_data[6]])

        dyef[i, j] = dc


@qd.kernel
def divergence(vf: qd.template()):
    for i, j in vf:
        vl = sample(vf, i - 1, j)
        vr = sample(vf, i + 1, j)
        vb = sample(vf, i, j - 1)
        vt = sample(vf, i, j + 1)
        vc = sample(vf, i, j)
        if i == 0:
            vl.x = -vc.x
        if i == res - 1:
            vr.x = -vc.x
        if j == 0:
            vb.y = -vc.y
        if j == res - 1:
            vt.y = -vc.y
        velocity_divs[i, j] = (vr.x - vl.x + vt.y - vb.y) * 0.5


@qd.kernel
def vorticity(vf: qd.template()):
    for i, j in vf:
        vl = sample(vf, i - 1, j)
        vr = sample(vf, i + 1, j)
        vb = sample(vf, i, j - 1)
        vt = sample(vf, i, j + 1)
        velocity_curls[i, j] = (vr.y - vl.y - vt.x + vb.x) * 0.5


@qd.kernel
def pressure_jacobi(pf: qd.template(), new_pf: qd.template()):
    for i, j in pf:
        pl = sample(pf, i - 1, j)
        pr = sample(pf, i + 1, j)
        pb = sample(pf, i, j - 1)
        pt = sample(pf, i, j + 1)
        div = velocity_divs[i, j]
        new_pf[i, j] = (pl + pr + pb + pt - div) * 0.25


@qd.kernel
def subtract_gradient(vf: qd.template(), pf: qd.template()):
    for i, j in vf:
        pl = sample(pf, i - 1, j)
        pr = sample(pf, i + 1, j)
        pb = sample(pf, i, j - 1)
        pt = sample(pf, i, j + 1)
        vf[i, j] -= 0.5 * qd.Vector([pr - pl, pt - pb])


@qd.kernel
def enhance_vorticity(vf: qd.template(), cf: qd.template()):
    # anti-physics visual enhancement...
    for i, j in vf:
        cl = sample(cf, i - 1, j)
        cr = sample(cf, i + 1, j)
        cb = sample(cf, i, j - 1)
        ct = sample(cf, i, j + 1)
        cc = sample(cf, i, j)
        force = qd.Vector([abs(ct) - abs(cb), abs(cl) - abs(cr)]).normalized(1e-3)
        force *= curl_strength * cc
        vf[i, j] = qd.min(qd.max(vf[i, j] + force * dt, -1e3), 1e3)


@qd.kernel
def copy_divergence(div_in: qd.template(), div_out: qd.types.ndarray()):
    for I in qd.grouped(div_in):
        div_out[I[0] * res + I[1]] = -div_in[I]


@qd.kernel
def apply_pressure(p_in: qd.types.ndarray(), p_out: qd.template()):
    for I in qd.grouped(p_out):
        p_out[I] = p_in[I[0] * res + I[1]]


def solve_pressure_sp_mat():
    copy_divergence(velocity_divs, F_b)
    x = solver.solve(F_b)
    apply_pressure(x, pressures_pair.cur)


def solve_pressure_jacobi():
    for _ in range(p_jacobi_iters):
        pressure_jacobi(pressures_pair.cur, pressures_pair.nxt)
        pressures_pair.swap()


def step(mouse_data):
    advect(velocities_pair.cur, velocities_pair.cur, velocities_pair.nxt)
    advect(velocities_pair.cur, dyes_pair.cur, dyes_pair.nxt)
    velocities_pair.swap()
    dyes_pair.swap()

    apply_impulse(velocities_pair.cur, dyes_pair.cur, mouse_data)

    divergence(velocities_pair.cur)

    if curl_strength:
        vorticity(velocities_pair.cur)
        enhance_vorticity(velocities_pair.cur, velocity_curls)

    if use_sparse_matrix:
        solve_pressure_sp_mat()
    else:
        solve_pressure_jacobi()

    subtract_gradient(velocities_pair.cur, pressures_pair.cur)

    if debug:
        divergence(velocities_pair.cur)
        div_s = np.sum(velocity_divs.to_numpy())
        print(f"divergence={div_s}")


class MouseDataGen:
    def __init__(self):
        self.prev_mouse = None
        self.prev_color = None

    def __call__(self, frame):
        # [0:2]: normalized delta direction
        # [2:4]: current mouse xy
        # [4:7]: color
        mouse_data = np.zeros(8, dtype=np.float32)
        if frame < 12:  # the left button held for a drag from (0.3, 0.3) to (0.74, 0.63)
            mxy = np.array([0.3 + 0.04 * frame, 0.3 + 0.03 * frame], dtype=np.float32) * res
            if self.prev_mouse is None:
                self.prev_mouse = mxy
                # Set lower bound to 0.3 to prevent too dark colors
                self.prev_color = (np.random.rand(3) * 0.7) + 0.3
            else:
                mdir = mxy - self.prev_mouse
                mdir = mdir / (np.linalg.norm(mdir) + 1e-5)
                mouse_data[0], mouse_data[1] = mdir[0], mdir[1]
                mouse_data[2], mouse_data[3] = mxy[0], mxy[1]
                mouse_data[4:7] = self.prev_color
                self.prev_mouse = mxy
        else:
            self.prev_mouse = None
            self.prev_color = None
        return mouse_data


def reset():
    velocities_pair.cur.fill(0)
    pressures_pair.cur.fill(0)
    dyes_pair.cur.fill(0)


def main():
    md_gen = MouseDataGen()
    for frame in range(30):
        mouse_data = md_gen(frame)
        step(mouse_data)
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "stable_fluid_sparse.npz"),
        velocities=velocities_pair.cur.to_numpy(),
        dyes=dyes_pair.cur.to_numpy(),
        pressures=pressures_pair.cur.to_numpy(),
    )

if __name__ == "__main__":
    main()
