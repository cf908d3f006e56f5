# tests/programs/taichi/waterwave.py: shallow-water waves from three 'clicks' with fresnel-like shading,
# 128x128.
# Adapted from Taichi's python/taichi/examples/simulation/waterwave.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; 512 -> 128; the mouse replaced by three create_wave calls, 120
# frames; state saved.
# Water wave effect partially based on shallow water equations
# https://en.wikipedia.org/wiki/Shallow_water_equations#Non-conservative_form

import os

import numpy as np

import quadrants as qd

qd.init(arch=qd.gpu)

light_color = 1
gravity = 2.0  # larger gravity makes wave propagates faster
damping = 0.2  # larger damping makes wave vanishes faster when propagating
dx = 0.02
dt = 0.01
shape = 128, 128
pixels = qd.field(dtype=float, shape=shape)
background = qd.field(dtype=float, shape=shape)
height = qd.field(dtype=float, shape=shape)
velocity = qd.field(dtype=float, shape=shape)


@qd.kernel
def reset():
    for i, j in height:
        t = i // 16 + j // 16
        if t % 2 == 0:
            background[i, j] = 0.0
        else:
            background[i, j] = 0.25
        height[i, j] = 0
        velocity[i, j] = 0


@qd.func
def laplacian(i, j):
    return (-4 * height[i, j] + height[i, j - 1] + height[i, j + 1] + height[i + 1, j] + height[i - 1, j]) / (4 * dx**2)


@qd.func
def gradient(i, j):
    return qd.Vector(
        [
            (height[i + 1, j] if i < shape[0] - 1 else 0) - (height[i - 1, j] if i > 1 else 0),
            (height[i, j + 1] if j < shape[1] - 1 else 0) - (height[i, j - 1] if j > 1 else 0),
        ]
    ) * (0.5 / dx)


@qd.kernel
def create_wave(amplitude: qd.f32, x: qd.f32, y: qd.f32):
    for i, j in qd.ndrange((1, shape[0] - 1), (1, shape[1] - 1)):
        r2 = (i - x) ** 2 + (j - y) ** 2
        height[i, j] = height[i, j] + amplitude * qd.exp(-0.02 * r2)


@qd.kernel
def update():
    for i, j in qd.ndrange((1, shape[0] - 1), (1, shape[1] - 1)):
        acceleration = gravity * laplacian(i, j) - damping * velocity[i, j]
        velocity[i, j] = velocity[i, j] + acceleration * dt

    for i, j in qd.ndrange((1, shape[0] - 1), (1, shape[1] - 1)):
        height[i, j] = height[i, j] + velocity[i, j] * dt


@qd.kernel
def visualize_wave():
    # visualizes the wave using a fresnel-like shading
    # a brighter color indicates a steeper wave
    # (closer to grazing angle when looked from above)
    for i, j in pixels:
        g = gradient(i, j)
        cos_i = 1 / qd.sqrt(1 + g.norm_sqr())
        brightness = pow(1 - cos_i, 2)
        color = background[i, j]
        pixels[i, j] = (1 - brightness) * color + brightness * light_color


def main():
    reset()
    # Clicks a user might make at three places and times.
    clicks = {0: (0.5, 0.5), 40: (0.25, 0.7), 80: (0.8, 0.3)}
    for frame in range(120):
        if frame in clicks:
            x, y = clicks[frame]
            create_wave(3, x * shape[0], y * shape[1])
        update()
        visualize_wave()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "waterwave.npz"),
        height=height.to_numpy(),
        pixels=pixels.to_numpy(),
    )
