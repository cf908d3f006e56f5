# examples/throw.py: differentiable simulation: qd.ad.Tape finds the launch velocities that land balls on targets.
#
# Eight balls fly through air with quadratic drag and a side wind. Each has a target; the loss is the
# summed squared distance between where the balls are after the flight time and their targets. The
# gradient of the loss with respect to the launch velocities comes from reverse-mode autodiff over all
# the simulation steps (qd.ad.Tape); plain gradient descent with momentum then moves the velocities.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import parse_args  # noqa: E402
from png import write_png  # noqa: E402

BALLS, DT, DRAG = 8, 0.01, 0.08
START = (0.5, 0.5)
WORLD = (10.0, 6.0)  # width and height of the picture, in metres


@qd.kernel
def launch(x: qd.template(), v: qd.template(), launch_velocity: qd.template()):
    for b in range(x.shape[1]):
        x[0, b] = qd.Vector([START[0], START[1]])
        v[0, b] = launch_velocity[b]


@qd.kernel
def step(x: qd.template(), v: qd.template(), t: qd.i32, wind: qd.f32):
    """Semi-implicit Euler: gravity, the wind and drag against the velocity, then the move."""
    for b in range(x.shape[1]):
        velocity = v[t, b]
        force = qd.Vector([wind, -9.8]) - DRAG * velocity.norm() * velocity
        v[t + 1, b] = velocity + DT * force
        x[t + 1, b] = x[t, b] + DT * v[t + 1, b]


@qd.kernel
def distance_to_targets(x: qd.template(), targets: qd.template(), t: qd.i32, loss: qd.template()):
    for b in range(x.shape[1]):
        miss = x[t, b] - targets[b]
        loss[None] += miss.dot(miss)


def simulate(fields, steps, wind):
    x, v, launch_velocity, targets, loss = fields
    launch(x, v, launch_velocity)
    for t in range(steps):
        step(x, v, t, wind)
    distance_to_targets(x, targets, steps, loss)


def draw_disk(image, point, radius, color):
    height, width, _ = image.shape
    cx, cy = point[0] / WORLD[0] * width, (1 - point[1] / WORLD[1]) * height
    yy, xx = np.ogrid[0:height, 0:width]
    image[(xx - cx) ** 2 + (yy - cy) ** 2 <= radius * radius] = color


def main():
    args = parse_args("Differentiable simulation: aiming thrown balls with qd.ad.Tape.", "throw.png")
    qd.init(arch=getattr(qd, args.arch))
    steps, iterations, (height, width) = (120, 40, (120, 200)) if args.small else (150, 200, (360, 600))
    wind = -1.5
    x = qd.Vector.field(2, qd.f32, shape=(steps + 1, BALLS), needs_grad=True)
    v = qd.Vector.field(2, qd.f32, shape=(steps + 1, BALLS), needs_grad=True)
    launch_velocity = qd.Vector.field(2, qd.f32, shape=BALLS, needs_grad=True)
    targets = qd.Vector.field(2, qd.f32, shape=BALLS)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    angles = np.linspace(0.15, 1.2, BALLS)
    target_points = np.stack([START[0] + 5.5 * np.cos(angles) + 2.5, 0.5 + 4.0 * np.sin(angles)], axis=1)
    targets.from_numpy(target_points.astype(np.float32))
    launch_velocity.from_numpy(np.tile([4.0, 4.0], (BALLS, 1)).astype(np.float32))
    fields = (x, v, launch_velocity, targets, loss)

    image = np.full((height, width, 3), 250, dtype=np.uint8)
    radius = max(1.0, width / 300)
    losses, momentum = [], np.zeros((BALLS, 2), dtype=np.float32)
    for iteration in range(iterations):
        with qd.ad.Tape(loss=loss):
            simulate(fields, steps, wind)
        losses.append(loss[None])
        if iteration in (0, 1, 2, 4, 8) or iteration == iterations - 1:  # early flights light, the last one dark
            shade = 0 if iteration == iterations - 1 else 200 - 20 * iteration
            for point in x.to_numpy()[::2].reshape(-1, 2):
                draw_disk(image, point, radius, (shade, shade, 255 - shade // 4))
        momentum = 0.8 * momentum - 0.05 * launch_velocity.grad.to_numpy()
        launch_velocity.from_numpy(launch_velocity.to_numpy() + momentum)
    for point in target_points:
        draw_disk(image, point, 3 * radius, (220, 40, 40))
    write_png(args.out, image)
    print(f"throw: {BALLS} balls, {steps} steps, {iterations} descent steps: loss {losses[0]:.3f} -> {losses[-1]:.5f}")
    print(f"wrote {args.out}")
    if not losses[-1] < 0.01 * losses[0]:
        sys.exit("throw: the gradient descent did not converge; the gradients are wrong")


if __name__ == "__main__":
    main()
