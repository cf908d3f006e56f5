# benchmarks/peers/fw_taichi_family.py: the workloads for our quadrants, the real Quadrants and Taichi.
# The three share one kernel language (Quadrants is a fork of Taichi; ours re-implements Quadrants' API),
# so one kernel source serves all three: none of them gets a kernel written or tuned for it alone.
# --label picks the framework: quadrants (this repo), quadrants_real (PyPI 1.3.3) or taichi.
# Kernels carry no `-> None`: Taichi 1.7.4 rejects that annotation, and the others accept its absence.
# Arguments are numpy arrays, or torch CPU tensors for the launch workload, passed straight to
# qd.types.ndarray() parameters, which all three accept; copies go through qd.field.
import importlib
import os
import sys

import numpy as np

import common
from common import Case

ARGS = common.parse_args()
MODULES = {"quadrants": "quadrants", "quadrants_real": "quadrants", "taichi": "taichi"}
if ARGS.label not in MODULES:
    sys.exit(f"fw_taichi_family.py: --label must be one of {sorted(MODULES)}, not {ARGS.label!r}")
CACHE_DIR = ARGS.cache_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".envs", "cache", ARGS.label)
if ARGS.label == "quadrants":
    # ours reads its kernel cache folder from the environment, at import
    os.environ["QD_CACHE_DIR"] = CACHE_DIR
qd = importlib.import_module(MODULES[ARGS.label])

MANDEL_ITERS = common.MANDEL_ITERS
HIST_BINS = common.HIST_BINS


@qd.kernel
def square(inp: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in range(inp.shape[0]):
        out[i] = inp[i] * inp[i]


@qd.kernel
def triad(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray(), s: qd.f32):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@qd.kernel
def mandelbrot(image: qd.types.ndarray()):
    h, w = image.shape[0], image.shape[1]
    for i, j in qd.ndrange(h, w):
        cx = -2.0 + 2.5 * j / w
        cy = -1.25 + 2.5 * i / h
        x = 0.0
        y = 0.0
        n = 0
        while n < MANDEL_ITERS and x * x + y * y <= 4.0:
            next_x = x * x - y * y + cx
            y = 2.0 * x * y + cy
            x = next_x
            n += 1
        image[i, j] = n


@qd.kernel
def diffuse(src: qd.types.ndarray(), dst: qd.types.ndarray(), k: qd.f32):
    for i, j in qd.ndrange((1, src.shape[0] - 1), (1, src.shape[1] - 1)):
        c = src[i, j]
        dst[i, j] = c + k * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * c)


@qd.kernel
def histogram(values: qd.types.ndarray(), bins: qd.types.ndarray()):
    for i in range(values.shape[0]):
        qd.atomic_add(bins[qd.cast(values[i] * HIST_BINS, qd.i32)], 1)


@qd.kernel
def compile_probe(x: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in range(x.shape[0]):
        v = x[i]
        acc = 0.0
        for k in range(8):
            acc += qd.sin(v * k) * qd.cos(v + k)
        y[i] = qd.sqrt(abs(acc)) + qd.exp(-v * v)


@qd.kernel
def weighted_square_sum(x: qd.template(), a: qd.template(), loss: qd.template()):
    for i in x:
        loss[None] += a[i] * x[i] * x[i]


def init() -> None:
    if ARGS.label == "quadrants":
        qd.init(arch=qd.cpu)
    else:
        qd.init(arch=qd.cpu, offline_cache=True, offline_cache_file_path=CACHE_DIR)


def sync() -> None:
    qd.sync()


def case_launch(data) -> Case:
    import torch

    x = torch.from_numpy(data["launch_x"].copy())
    y = torch.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            square(x, y)
        sync()

    return Case(run, lambda: {"y": y.numpy()}, calls=common.LAUNCH_CALLS)


def case_launch_numpy(data) -> Case:
    x = data["launch_x"].copy()
    y = np.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            square(x, y)
        sync()

    return Case(run, lambda: {"y": y}, calls=common.LAUNCH_CALLS)


def case_triad(data) -> Case:
    b, c = data["triad_b"], data["triad_c"]
    a = np.zeros_like(b)

    def run():
        triad(a, b, c, common.TRIAD_SCALE)
        sync()

    return Case(run, lambda: {"a": a})


def case_mandelbrot(data) -> Case:
    image = np.zeros((common.MANDEL_H, common.MANDEL_W), np.int32)

    def run():
        mandelbrot(image)
        sync()

    return Case(run, lambda: {"image": image})


def case_diffusion(data) -> Case:
    buffers = [data["diffusion_u"].copy(), data["diffusion_u"].copy()]

    def run():
        for step in range(common.DIFFUSION_STEPS):
            diffuse(buffers[step % 2], buffers[(step + 1) % 2], common.DIFFUSION_K)
        sync()

    # DIFFUSION_STEPS is even, so every run starts from and ends in buffers[0]; the check sees the
    # first run, which started from the initial state
    return Case(run, lambda: {"u": buffers[common.DIFFUSION_STEPS % 2]})


def case_histogram(data) -> Case:
    values = data["hist_values"]
    bins = np.zeros(HIST_BINS, np.int32)

    def run():
        bins.fill(0)
        histogram(values, bins)
        sync()

    return Case(run, lambda: {"bins": bins})


def case_from_numpy(data) -> Case:
    source = data["copy_src"]
    field = qd.field(qd.f32, shape=source.shape[0])
    return Case(lambda: field.from_numpy(source), lambda: {"copy": field.to_numpy()})


def case_to_numpy(data) -> Case:
    field = qd.field(qd.f32, shape=data["copy_src"].shape[0])
    field.from_numpy(data["copy_src"])
    out = {}

    def run():
        out["copy"] = field.to_numpy()

    return Case(run, lambda: out)


def case_grad(data) -> Case:
    n = data["grad_x"].shape[0]
    x = qd.field(qd.f32, shape=n, needs_grad=True)
    a = qd.field(qd.f32, shape=n)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    x.from_numpy(data["grad_x"])
    a.from_numpy(data["grad_a"])

    def run():
        # the Tape zeroes every gradient and the loss on entry, and runs the adjoint on exit
        with qd.ad.Tape(loss=loss):
            weighted_square_sum(x, a, loss)
        sync()

    return Case(run, lambda: {"grad": x.grad.to_numpy(), "loss": loss.to_numpy()})


def warm_up_runtime() -> None:
    x = np.ones(common.LAUNCH_N, np.float32)
    square(x, np.zeros_like(x))
    sync()


def run_probe() -> dict:
    x = common.probe_input()
    y = np.zeros_like(x)
    compile_probe(x, y)
    sync()
    return {"y": y}


def version() -> str:
    from importlib.metadata import version as package_version

    return package_version(MODULES[ARGS.label])


def main() -> None:
    init()
    notes = {"threads": os.cpu_count(), "backend": "cpu"}
    if ARGS.compile:
        results = {ARGS.compile: common.measure_compile(ARGS.compile, warm_up_runtime, run_probe)}
    else:
        cases = {name: globals()["case_" + name] for name in common.WORKLOADS}
        results = common.measure_all(ARGS, cases, {})
    common.write_results(ARGS, ARGS.label, version(), results, notes)


if __name__ == "__main__":
    main()
