# examples/mpm.py: a 2D MLS-MPM fluid (two blocks falling into a box), particles splatted into an image.
#
# Moving Least Squares Material Point Method (Hu et al. 2018) with quadratic B-spline weights and a
# weakly compressible fluid (pressure from the volume ratio J). The B-spline weights of a particle sum
# to one, so the mass it spreads onto the grid is exactly its own: the example checks the grid's total
# mass against the particles' after every step, and that no particle left the box.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import parse_args  # noqa: E402
from png import write_png  # noqa: E402

vec2 = qd.math.vec2
STIFFNESS, GRAVITY, BOUND = 400.0, 9.8, 3


@qd.func
def stencil(xp, inv_dx):
    """The lower-left node of a particle's 3x3 stencil, its offset from it, and the B-spline weights."""
    base = qd.cast(xp * inv_dx - 0.5, qd.i32)
    fx = xp * inv_dx - qd.cast(base, qd.f32)
    weights = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
    return base, fx, weights


@qd.kernel
def particle_to_grid(x: qd.template(), v: qd.template(), affine_velocity: qd.template(), volume_ratio: qd.template(),
                     grid_v: qd.template(), grid_m: qd.template(), dt: qd.f32) -> qd.f32:
    """Clears the grid, spreads every particle's mass and momentum onto it; returns the grid's total mass."""
    n_grid = grid_m.shape[0]
    dx, inv_dx = 1.0 / n_grid, float(n_grid)
    particle_volume = (0.5 * dx) ** 2
    particle_mass = particle_volume  # density 1
    for i, j in grid_m:
        grid_v[i, j] = vec2(0.0, 0.0)
        grid_m[i, j] = 0.0
    for p in x:
        base, fx, w = stencil(x[p], inv_dx)
        stress = -dt * 4.0 * STIFFNESS * particle_volume * (volume_ratio[p] - 1.0) * inv_dx * inv_dx
        affine = qd.Matrix([[stress, 0.0], [0.0, stress]]) + particle_mass * affine_velocity[p]
        for i, j in qd.static(qd.ndrange(3, 3)):
            offset = qd.Vector([i, j])
            dpos = (qd.cast(offset, qd.f32) - fx) * dx
            weight = w[i][0] * w[j][1]
            grid_v[base + offset] += weight * (particle_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * particle_mass
    total = 0.0
    for i, j in grid_m:
        total += grid_m[i, j]
    return total


@qd.kernel
def update_grid(grid_v: qd.template(), grid_m: qd.template(), dt: qd.f32):
    """Momentum to velocity, gravity, and walls that stop motion into them."""
    n_grid = grid_m.shape[0]
    for i, j in grid_m:
        if grid_m[i, j] > 0.0:
            velocity = grid_v[i, j] / grid_m[i, j] + dt * vec2(0.0, -GRAVITY)
            if (i < BOUND and velocity[0] < 0) or (i > n_grid - BOUND and velocity[0] > 0):
                velocity[0] = 0.0
            if (j < BOUND and velocity[1] < 0) or (j > n_grid - BOUND and velocity[1] > 0):
                velocity[1] = 0.0
            grid_v[i, j] = velocity


@qd.kernel
def grid_to_particle(x: qd.template(), v: qd.template(), affine_velocity: qd.template(), volume_ratio: qd.template(),
                     grid_v: qd.template(), dt: qd.f32):
    n_grid = grid_v.shape[0]
    dx, inv_dx = 1.0 / n_grid, float(n_grid)
    for p in x:
        base, fx, w = stencil(x[p], inv_dx)
        new_v = vec2(0.0, 0.0)
        new_c = qd.Matrix([[0.0, 0.0], [0.0, 0.0]])
        for i, j in qd.static(qd.ndrange(3, 3)):
            offset = qd.Vector([i, j])
            dpos = qd.cast(offset, qd.f32) - fx
            weight = w[i][0] * w[j][1]
            node_v = grid_v[base + offset]
            new_v += weight * node_v
            new_c += 4.0 * inv_dx * weight * node_v.outer_product(dpos)
        v[p] = new_v
        x[p] += dt * new_v
        volume_ratio[p] *= 1.0 + dt * new_c.trace()
        affine_velocity[p] = new_c


@qd.kernel
def splat(x: qd.template(), color: qd.template(), image: qd.template(), hits: qd.template()):
    """Adds each particle's color to the pixel under it (an atomic add: particles share pixels)."""
    height, width = hits.shape
    for p in x:
        px = qd.math.clamp(qd.cast(x[p][0] * width, qd.i32), 0, width - 1)
        py = qd.math.clamp(qd.cast(x[p][1] * height, qd.i32), 0, height - 1)
        image[py, px] += color[p]
        hits[py, px] += 1


def initial_particles(count):
    """Two blocks of fluid: a tall one on the left and a wide one dropped from higher on the right."""
    rng = np.random.default_rng(1)
    half = count // 2
    left = rng.random((half, 2)) * [0.25, 0.45] + [0.08, 0.08]
    right = rng.random((count - half, 2)) * [0.4, 0.2] + [0.5, 0.6]
    colors = np.concatenate([np.tile([0.2, 0.55, 1.0], (half, 1)), np.tile([1.0, 0.45, 0.15], (count - half, 1))])
    return np.concatenate([left, right]).astype(np.float32), colors.astype(np.float32)


def main():
    args = parse_args("A 2D MLS-MPM fluid simulation.", "mpm.png")
    qd.init(arch=getattr(qd, args.arch))
    n_grid, count, steps, size = (48, 1500, 600, 144) if args.small else (128, 20000, 2500, 384)
    dt = 1.5e-4 * 128 / n_grid
    positions, colors = initial_particles(count)
    x, v = qd.Vector.field(2, qd.f32, shape=count), qd.Vector.field(2, qd.f32, shape=count)
    affine_velocity = qd.Matrix.field(2, 2, qd.f32, shape=count)
    volume_ratio, color = qd.field(qd.f32, shape=count), qd.Vector.field(3, qd.f32, shape=count)
    grid_v, grid_m = qd.Vector.field(2, qd.f32, shape=(n_grid, n_grid)), qd.field(qd.f32, shape=(n_grid, n_grid))
    x.from_numpy(positions)
    color.from_numpy(colors)
    volume_ratio.fill(1.0)

    expected_mass = count * (0.5 / n_grid) ** 2
    worst = 0.0
    for _ in range(steps):
        mass = particle_to_grid(x, v, affine_velocity, volume_ratio, grid_v, grid_m, dt)
        worst = max(worst, abs(mass - expected_mass) / expected_mass)
        update_grid(grid_v, grid_m, dt)
        grid_to_particle(x, v, affine_velocity, volume_ratio, grid_v, dt)

    image, hits = qd.Vector.field(3, qd.f32, shape=(size, size)), qd.field(qd.i32, shape=(size, size))
    splat(x, color, image, hits)
    counts = hits.to_numpy()[..., None]
    rgb = np.where(counts > 0, image.to_numpy() / np.maximum(counts, 1), 0.08)
    write_png(args.out, (np.clip(rgb[::-1], 0, 1) * 255).astype(np.uint8))
    final = x.to_numpy()
    print(f"mpm {count} particles, grid {n_grid}^2, {steps} steps: worst grid mass error {worst:.1e}, "
          f"particle height {positions[:, 1].mean():.3f} -> {final[:, 1].mean():.3f}; wrote {args.out}")
    if worst > 1e-3 or not np.all((final > 0) & (final < 1)):
        sys.exit("mpm: mass was not conserved or particles left the box")
    if final[:, 1].mean() > 0.9 * positions[:, 1].mean():
        sys.exit("mpm: the fluid did not fall")


if __name__ == "__main__":
    main()
