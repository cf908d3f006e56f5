# tests/programs/taichi/mpm128.py: MLS-MPM with gravity and an attractor field, 9000 particles.
# Adapted from Taichi's python/taichi/examples/simulation/mpm128.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 5 frames with gravity down and no
# attractor; state saved.
import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)  # Try to run on GPU

quality = 1  # Use a larger value for higher-res simulations
n_particles, n_grid = 9000 * quality**2, 128 * quality
dx, inv_dx = 1 / n_grid, float(n_grid)
dt = 1e-4 / quality
p_vol, p_rho = (dx * 0.5) ** 2, 1
p_mass = p_vol * p_rho
E, nu = 5e3, 0.2  # Young's modulus and Poisson's ratio
mu_0, lambda_0 = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))  # Lame parameters

x = qd.Vector.field(2, dtype=float, shape=n_particles)  # position
v = qd.Vector.field(2, dtype=float, shape=n_particles)  # velocity
C = qd.Matrix.field(2, 2, dtype=float, shape=n_particles)  # affine velocity field
F = qd.Matrix.field(2, 2, dtype=float, shape=n_particles)  # deformation gradient
material = qd.field(dtype=int, shape=n_particles)  # material id
Jp = qd.field(dtype=float, shape=n_particles)  # plastic deformation
grid_v = qd.Vector.field(2, dtype=float, shape=(n_grid, n_grid))  # grid node momentum/velocity
grid_m = qd.field(dtype=float, shape=(n_grid, n_grid))  # grid node mass
gravity = qd.Vector.field(2, dtype=float, shape=())
attractor_strength = qd.field(dtype=float, shape=())
attractor_pos = qd.Vector.field(2, dtype=float, shape=())


@qd.kernel
def substep():
    for i, j in grid_m:
        grid_v[i, j] = [0, 0]
        grid_m[i, j] = 0
    for p in x:  # Particle state update and scatter to grid (P2G)
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - base.cast(float)
        # Quadratic kernels  [http://mpm.graphics   Eqn. 123, with x=fx, fx-1,fx-2]
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        # deformation gradient update
        F[p] = (qd.Matrix.identity(float, 2) + dt * C[p]) @ F[p]
        # Hardening coefficient: snow gets harder when compressed
        h = qd.max(0.1, qd.min(5, qd.exp(10 * (1.0 - Jp[p]))))
        if material[p] == 1:  # jelly, make it softer
            h = 0.3
        mu, la = mu_0 * h, lambda_0 * h
        if material[p] == 0:  # liquid
            mu = 0.0
        U, sig, V = qd.svd(F[p])
        J = 1.0
        for d in qd.static(range(2)):
            new_sig = sig[d, d]
            if material[p] == 2:  # Snow
                new_sig = min(max(sig[d, d], 1 - 2.5e-2), 1 + 4.5e-3)  # Plasticity
            Jp[p] *= sig[d, d] / new_sig
            sig[d, d] = new_sig
            J *= new_sig
        if material[p] == 0:
            # Reset deformation gradient to avoid numerical instability
            F[p] = qd.Matrix.identity(float, 2) * qd.sqrt(J)
        elif material[p] == 2:
            # Reconstruct elastic deformation gradient after plasticity
            F[p] = U @ sig @ V.transpose()
        stress = 2 * mu * (F[p] - U @ V.transpose()) @ F[p].transpose() + qd.Matrix.identity(float, 2) * la * J * (
            J - 1
        )
        stress = (-dt * p_vol * 4 * inv_dx * inv_dx) * stress
        affine = stress + p_mass * C[p]
        for i, j in qd.static(qd.ndrange(3, 3)):
            # Loop over 3x3 grid node neighborhood
            offset = qd.Vector([i, j])
            dpos = (offset.cast(float) - fx) * dx
            weight = w[i][0] * w[j][1]
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:
        if grid_m[i, j] > 0:  # No need for epsilon here
            # Momentum to velocity
            grid_v[i, j] = (1 / grid_m[i, j]) * grid_v[i, j]
            grid_v[i, j] += dt * gravity[None] * 30  # gravity
            dist = attractor_pos[None] - dx * qd.Vector([i, j])
            grid_v[i, j] += dist / (0.01 + dist.norm()) * attractor_strength[None] * dt * 100
            if i < 3 and grid_v[i, j][0] < 0:
                grid_v[i, j][0] = 0  # Boundary conditions
            if i > n_grid - 3 and grid_v[i, j][0] > 0:
                grid_v[i, j][0] = 0
            if j < 3 and grid_v[i, j][1] < 0:
                grid_v[i, j][1] = 0
            if j > n_grid - 3 and grid_v[i, j][1] > 0:
                grid_v[i, j][1] = 0
    for p in x:  # grid to particle (G2P)
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - base.cast(float)
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.Vector.zero(float, 2)
        new_C = qd.Matrix.zero(float, 2, 2)
        for i, j in qd.static(qd.ndrange(3, 3)):
            # loop over 3x3 grid node neighborhood
            dpos = qd.Vector([i, j]).cast(float) - fx
            g_v = grid_v[base + qd.Vector([i, j])]
            weight = w[i][0] * w[j][1]
            new_v += weight * g_v
            new_C += 4 * inv_dx * weight * g_v.outer_product(dpos)
        v[p], C[p] = new_v, new_C
        x[p] += dt * v[p]  # advection


@qd.kernel
def reset():
    group_size = n_particles // 3
    for i in range(n_particles):
        x[i] = [
            qd.random() * 0.2 + 0.3 + 0.10 * (i // group_size),
            qd.random() * 0.2 + 0.05 + 0.32 * (i // group_size),
        ]
        material[i] = i // group_size  # 0: fluid 1: jelly 2: snow
        v[i] = [0, 0]
        F[i] = qd.Matrix([[1, 0], [0, 1]])
        Jp[i] = 1
        C[i] = qd.Matrix.zero(float, 2, 2)


reset()
gravity[None] = [0, -1]

for frame in range(5):
    attractor_pos[None] = [0.5, 0.5]
    attractor_strength[None] = 0
    for s in range(int(2e-3 // dt)):
        substep()
np.savez(
    os.environ.get("QD_PROGRAM_OUT", "mpm128.npz"),
    x=x.to_numpy(),
    v=v.to_numpy(),
    Jp=Jp.to_numpy(),
    material=material.to_numpy(),
)
