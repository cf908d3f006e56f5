# tests/programs/taichi/mpm3d.py: 3-D MLS-MPM with qd.grouped static loops and qd.select, 8192 particles.
# Adapted from Taichi's python/taichi/examples/simulation/mpm3d.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 4 frames of 25 steps; the PLY export
# removed; state saved.
export_file = ""  # use '/tmp/mpm3d.ply' for exporting result to disk

import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

# dim, n_grid, steps, dt = 2, 128, 20, 2e-4
# dim, n_grid, steps, dt = 2, 256, 32, 1e-4
dim, n_grid, steps, dt = 3, 32, 25, 4e-4
# dim, n_grid, steps, dt = 3, 64, 25, 2e-4
# dim, n_grid, steps, dt = 3, 128, 25, 8e-5

n_particles = n_grid**dim // 2 ** (dim - 1)
dx = 1 / n_grid

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400

F_x = qd.Vector.field(dim, float, n_particles)
F_v = qd.Vector.field(dim, float, n_particles)
F_C = qd.Matrix.field(dim, dim, float, n_particles)
F_J = qd.field(float, n_particles)

F_grid_v = qd.Vector.field(dim, float, (n_grid,) * dim)
F_grid_m = qd.field(float, (n_grid,) * dim)

neighbour = (3,) * dim


@qd.kernel
def substep():
    for I in qd.grouped(F_grid_m):
        F_grid_v[I] = qd.zero(F_grid_v[I])
        F_grid_m[I] = 0
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        Xp = F_x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (F_J[p] - 1) / dx**2
        affine = qd.Matrix.identity(float, dim) * stress + p_mass * F_C[p]
        for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
            dpos = (offset - fx) * dx
            weight = 1.0
            for i in qd.static(range(dim)):
                weight *= w[offset[i]][i]
            F_grid_v[base + offset] += weight * (p_mass * F_v[p] + affine @ dpos)
            F_grid_m[base + offset] += weight * p_mass
    for I in qd.grouped(F_grid_m):
        if F_grid_m[I] > 0:
            F_grid_v[I] /= F_grid_m[I]
        F_grid_v[I][1] -= dt * gravity
        cond = (I < bound) & (F_grid_v[I] < 0) | (I > n_grid - bound) & (F_grid_v[I] > 0)
        F_grid_v[I] = qd.select(cond, 0, F_grid_v[I])
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        Xp = F_x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.zero(F_v[p])
        new_C = qd.zero(F_C[p])
        for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
            dpos = (offset - fx) * dx
            weight = 1.0
            for i in qd.static(range(dim)):
                weight *= w[offset[i]][i]
            g_v = F_grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        F_v[p] = new_v
        F_x[p] += dt * F_v[p]
        F_J[p] *= 1 + dt * new_C.trace()
        F_C[p] = new_C


@qd.kernel
def init():
    for i in range(n_particles):
        F_x[i] = qd.Vector([qd.random() for i in range(dim)]) * 0.4 + 0.15
        F_J[i] = 1


def T(a):
    if dim == 2:
        return a

    phi, theta = np.radians(28), np.radians(32)

    a = a - 0.5
    x, y, z = a[:, 0], a[:, 1], a[:, 2]
    cp, sp = np.cos(phi), np.sin(phi)
    ct, st = np.cos(theta), np.sin(theta)
    x, z = x * cp + z * sp, z * cp - x * sp
    u, v = x, y * ct + z * st
    return np.array([u, v]).swapaxes(0, 1) + 0.5


def main():
    init()
    for frame in range(4):
        for s in range(steps):
            substep()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "mpm3d.npz"),
        x=F_x.to_numpy(),
        v=F_v.to_numpy(),
        J=F_J.to_numpy(),
    )
