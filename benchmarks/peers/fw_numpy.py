# benchmarks/peers/fw_numpy.py: the workloads written for plain numpy, the baseline every user already has.
# Written as a careful numpy user would: whole-array operations with out= where it saves a temporary.
# numpy compiles nothing, so the compile workloads do not apply.
import numpy as np

import common
import reference
from common import Case

ARGS = common.parse_args()


def case_launch(data) -> Case:
    x = data["launch_x"].copy()
    y = np.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            np.multiply(x, x, out=y)

    return Case(run, lambda: {"y": y}, calls=common.LAUNCH_CALLS)


# the arrays are numpy arrays either way, so this is the same measurement under both names
case_launch_numpy = case_launch


def case_triad(data) -> Case:
    b, c = data["triad_b"], data["triad_c"]
    a = np.zeros_like(b)
    scale = np.float32(common.TRIAD_SCALE)

    def run():
        np.multiply(c, scale, out=a)
        np.add(a, b, out=a)

    return Case(run, lambda: {"a": a})


def case_mandelbrot(data) -> Case:
    out = {}

    def run():
        out["image"] = reference.mandelbrot_reference()

    return Case(run, lambda: out)


def case_diffusion(data) -> Case:
    buffers = [data["diffusion_u"].copy(), data["diffusion_u"].copy()]
    k = np.float32(common.DIFFUSION_K)

    def run():
        for step in range(common.DIFFUSION_STEPS):
            src, dst = buffers[step % 2], buffers[(step + 1) % 2]
            c = src[1:-1, 1:-1]
            dst[1:-1, 1:-1] = c + k * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] - np.float32(4.0) * c)

    # an even step count leaves the answer in buffers[0] after every run
    return Case(run, lambda: {"u": buffers[common.DIFFUSION_STEPS % 2]})


def case_histogram(data) -> Case:
    values = data["hist_values"]
    out = {}

    def run():
        out["bins"] = np.bincount((values * common.HIST_BINS).astype(np.intp), minlength=common.HIST_BINS)

    return Case(run, lambda: out)


def case_from_numpy(data) -> Case:
    source = data["copy_src"]
    target = np.zeros_like(source)
    return Case(lambda: np.copyto(target, source), lambda: {"copy": target})


def case_to_numpy(data) -> Case:
    source = data["copy_src"]
    out = {}

    def run():
        out["copy"] = source.copy()

    return Case(run, lambda: out)


def main() -> None:
    not_applicable = {"grad": "numpy has no automatic differentiation"}
    cases = {name: globals()["case_" + name] for name in common.WORKLOADS if name not in not_applicable}
    results = common.measure_all(ARGS, cases, not_applicable)
    common.write_results(ARGS, "numpy", np.__version__, results, {"backend": "cpu"})


if __name__ == "__main__":
    main()
