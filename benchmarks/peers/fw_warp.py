# benchmarks/peers/fw_warp.py: the workloads written for NVIDIA Warp on its "cpu" device.
# Warp's idiom: typed wp.array parameters, one thread per element via wp.tid(), wp.launch with a dim.
# Launch-overhead calls pass torch CPU tensors (or numpy arrays), which wp.launch accepts; the others copy their
# inputs into wp.arrays once, outside the timed region.
import os

import numpy as np
import warp as wp

import common
from common import Case

ARGS = common.parse_args()
DEVICE = "cpu"
MANDEL_ITERS = wp.constant(common.MANDEL_ITERS)
HIST_BINS = wp.constant(float(common.HIST_BINS))


@wp.kernel
def square(inp: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = inp[i] * inp[i]


@wp.kernel
def triad(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), c: wp.array(dtype=wp.float32), s: wp.float32):
    i = wp.tid()
    a[i] = b[i] + s * c[i]


@wp.kernel
def mandelbrot(image: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    cx = -2.0 + 2.5 * float(j) / float(image.shape[1])
    cy = -1.25 + 2.5 * float(i) / float(image.shape[0])
    x = float(0.0)
    y = float(0.0)
    n = int(0)
    while n < MANDEL_ITERS and x * x + y * y <= 4.0:
        next_x = x * x - y * y + cx
        y = 2.0 * x * y + cy
        x = next_x
        n = n + 1
    image[i, j] = n


@wp.kernel
def diffuse(src: wp.array2d(dtype=wp.float32), dst: wp.array2d(dtype=wp.float32), k: wp.float32):
    # launched over the interior only; tid (0, 0) is cell (1, 1)
    ti, tj = wp.tid()
    i = ti + 1
    j = tj + 1
    c = src[i, j]
    dst[i, j] = c + k * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * c)


@wp.kernel
def histogram(values: wp.array(dtype=wp.float32), bins: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(bins, int(values[i] * HIST_BINS), 1)


@wp.kernel
def weighted_square_sum(x: wp.array(dtype=wp.float32), a: wp.array(dtype=wp.float32), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * x[i] * x[i])


# its own module, so its first launch compiles this kernel alone and not the ones above
@wp.kernel(module="unique")
def compile_probe(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    v = x[i]
    acc = float(0.0)
    for k in range(8):
        acc += wp.sin(v * float(k)) * wp.cos(v + float(k))
    y[i] = wp.sqrt(wp.abs(acc)) + wp.exp(-v * v)


def case_launch(data) -> Case:
    import torch

    x = torch.from_numpy(data["launch_x"].copy())
    y = torch.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            wp.launch(square, dim=common.LAUNCH_N, inputs=[x, y], device=DEVICE)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"y": y.numpy()}, calls=common.LAUNCH_CALLS)


def case_launch_numpy(data) -> Case:
    x = data["launch_x"].copy()
    y = np.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            wp.launch(square, dim=common.LAUNCH_N, inputs=[x, y], device=DEVICE)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"y": y}, calls=common.LAUNCH_CALLS)


def case_triad(data) -> Case:
    b = wp.array(data["triad_b"], dtype=wp.float32, device=DEVICE)
    c = wp.array(data["triad_c"], dtype=wp.float32, device=DEVICE)
    a = wp.zeros(common.TRIAD_N, dtype=wp.float32, device=DEVICE)

    def run():
        wp.launch(triad, dim=common.TRIAD_N, inputs=[a, b, c, common.TRIAD_SCALE], device=DEVICE)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"a": a.numpy()})


def case_mandelbrot(data) -> Case:
    image = wp.zeros((common.MANDEL_H, common.MANDEL_W), dtype=wp.int32, device=DEVICE)

    def run():
        wp.launch(mandelbrot, dim=image.shape, inputs=[image], device=DEVICE)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"image": image.numpy()})


def case_diffusion(data) -> Case:
    buffers = [wp.array(data["diffusion_u"], dtype=wp.float32, device=DEVICE) for _ in range(2)]
    interior = (common.DIFFUSION_N - 2, common.DIFFUSION_N - 2)

    def run():
        for step in range(common.DIFFUSION_STEPS):
            src, dst = buffers[step % 2], buffers[(step + 1) % 2]
            wp.launch(diffuse, dim=interior, inputs=[src, dst, common.DIFFUSION_K], device=DEVICE)
        wp.synchronize_device(DEVICE)

    # an even step count leaves the answer in buffers[0] after every run
    return Case(run, lambda: {"u": buffers[common.DIFFUSION_STEPS % 2].numpy()})


def case_histogram(data) -> Case:
    values = wp.array(data["hist_values"], dtype=wp.float32, device=DEVICE)
    bins = wp.zeros(common.HIST_BINS, dtype=wp.int32, device=DEVICE)

    def run():
        bins.zero_()
        wp.launch(histogram, dim=common.HIST_N, inputs=[values, bins], device=DEVICE)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"bins": bins.numpy()})


def case_from_numpy(data) -> Case:
    source = data["copy_src"]
    array = wp.zeros(source.shape[0], dtype=wp.float32, device=DEVICE)

    def run():
        array.assign(source)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"copy": array.numpy()})


def case_to_numpy(data) -> Case:
    array = wp.array(data["copy_src"], dtype=wp.float32, device=DEVICE)
    out = {}

    def run():
        # .numpy() on the CPU device is a view of Warp's memory; the copy makes it an independent
        # array like the other frameworks' to_numpy()
        out["copy"] = array.numpy().copy()

    return Case(run, lambda: out)


def case_grad(data) -> Case:
    n = data["grad_x"].shape[0]
    x = wp.array(data["grad_x"], dtype=wp.float32, device=DEVICE, requires_grad=True)
    a = wp.array(data["grad_a"], dtype=wp.float32, device=DEVICE)
    loss = wp.zeros(1, dtype=wp.float32, device=DEVICE, requires_grad=True)
    tape = wp.Tape()

    def run():
        # as the Taichi family's Tape: gradients and the loss zeroed, the launch recorded, then run backward
        tape.reset()
        loss.zero_()
        with tape:
            wp.launch(weighted_square_sum, dim=n, inputs=[x, a, loss], device=DEVICE)
        tape.backward(loss=loss)
        wp.synchronize_device(DEVICE)

    return Case(run, lambda: {"grad": x.grad.numpy(), "loss": loss.numpy()})


def warm_up_runtime() -> None:
    x = wp.ones(common.LAUNCH_N, dtype=wp.float32, device=DEVICE)
    wp.launch(square, dim=common.LAUNCH_N, inputs=[x, wp.zeros_like(x)], device=DEVICE)
    wp.synchronize_device(DEVICE)


def run_probe() -> dict:
    x = wp.array(common.probe_input(), dtype=wp.float32, device=DEVICE)
    y = wp.zeros_like(x)
    wp.launch(compile_probe, dim=x.shape[0], inputs=[x, y], device=DEVICE)
    wp.synchronize_device(DEVICE)
    return {"y": y.numpy()}


def main() -> None:
    wp.config.quiet = True
    wp.config.kernel_cache_dir = ARGS.cache_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".envs", "cache", "warp")
    wp.init()
    notes = {"backend": "cpu device"}
    if ARGS.compile:
        results = {ARGS.compile: common.measure_compile(ARGS.compile, warm_up_runtime, run_probe)}
    else:
        cases = {name: globals()["case_" + name] for name in common.WORKLOADS}
        results = common.measure_all(ARGS, cases, {})
    common.write_results(ARGS, "warp", wp.__version__, results, notes)


if __name__ == "__main__":
    main()
