# benchmarks/peers/fw_torch.py: the workloads written for eager PyTorch on CPU tensors.
# Whole-tensor operations with out= where it saves a temporary, on torch's own CPU thread pool.
# Eager torch compiles nothing, so the compile workloads do not apply (torch.compile is a different
# product, with a C++ toolchain of its own, and is not measured here).
import numpy as np
import torch

import common
from common import Case

ARGS = common.parse_args()


def case_launch(data) -> Case:
    x = torch.from_numpy(data["launch_x"].copy())
    y = torch.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            torch.mul(x, x, out=y)

    return Case(run, lambda: {"y": y.numpy()}, calls=common.LAUNCH_CALLS)


def case_triad(data) -> Case:
    b, c = torch.from_numpy(data["triad_b"]), torch.from_numpy(data["triad_c"])
    a = torch.zeros_like(b)
    return Case(lambda: torch.add(b, c, alpha=common.TRIAD_SCALE, out=a), lambda: {"a": a.numpy()})


def mandelbrot() -> torch.Tensor:
    """The escape-time loop on whole tensors; escaped points keep their last z, so they stay out."""
    h, w = common.MANDEL_H, common.MANDEL_W
    cols = torch.arange(w, dtype=torch.float32)[None, :]
    rows = torch.arange(h, dtype=torch.float32)[:, None]
    cx = (-2.0 + 2.5 * cols / w).expand(h, w)
    cy = (-1.25 + 2.5 * rows / h).expand(h, w)
    x = torch.zeros(h, w)
    y = torch.zeros(h, w)
    count = torch.zeros(h, w, dtype=torch.int32)
    for _ in range(common.MANDEL_ITERS):
        inside = x * x + y * y <= 4.0
        if not bool(inside.any()):
            break
        next_x = x * x - y * y + cx
        y = torch.where(inside, 2.0 * x * y + cy, y)
        x = torch.where(inside, next_x, x)
        count += inside
    return count


def case_mandelbrot(data) -> Case:
    out = {}

    def run():
        out["image"] = mandelbrot().numpy()

    return Case(run, lambda: out)


def case_diffusion(data) -> Case:
    buffers = [torch.from_numpy(data["diffusion_u"].copy()) for _ in range(2)]
    k = common.DIFFUSION_K

    def run():
        for step in range(common.DIFFUSION_STEPS):
            src, dst = buffers[step % 2], buffers[(step + 1) % 2]
            c = src[1:-1, 1:-1]
            dst[1:-1, 1:-1] = c + k * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] - 4.0 * c)

    # an even step count leaves the answer in buffers[0] after every run
    return Case(run, lambda: {"u": buffers[common.DIFFUSION_STEPS % 2].numpy()})


def case_histogram(data) -> Case:
    values = torch.from_numpy(data["hist_values"])
    out = {}

    def run():
        out["bins"] = torch.bincount((values * common.HIST_BINS).long(), minlength=common.HIST_BINS)

    return Case(run, lambda: {"bins": out["bins"].numpy()})


def case_from_numpy(data) -> Case:
    source = data["copy_src"]
    target = torch.zeros(source.shape[0], dtype=torch.float32)
    return Case(lambda: target.copy_(torch.from_numpy(source)), lambda: {"copy": target.numpy()})


def case_to_numpy(data) -> Case:
    tensor = torch.from_numpy(data["copy_src"].copy())
    out = {}

    def run():
        # Tensor.numpy() is a view of the tensor's memory; the copy makes it an independent array
        # like the other frameworks' to_numpy()
        out["copy"] = tensor.numpy().copy()

    return Case(run, lambda: out)


def case_grad(data) -> Case:
    x = torch.from_numpy(data["grad_x"]).requires_grad_(True)
    a = torch.from_numpy(data["grad_a"])
    out = {}

    def run():
        x.grad = None
        loss = (a * x * x).sum()
        loss.backward()
        out["loss"] = loss.detach()

    return Case(run, lambda: {"grad": x.grad.numpy(), "loss": out["loss"].numpy()})


def main() -> None:
    not_applicable = {"launch_numpy": "torch operations take tensors, not numpy arrays"}
    cases = {name: globals()["case_" + name] for name in common.WORKLOADS if name not in not_applicable}
    results = common.measure_all(ARGS, cases, not_applicable)
    notes = {"threads": torch.get_num_threads(), "backend": "cpu, eager", "numpy": np.__version__}
    common.write_results(ARGS, "torch", torch.__version__, results, notes)


if __name__ == "__main__":
    main()
