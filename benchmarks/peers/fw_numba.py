# benchmarks/peers/fw_numba.py: the workloads written for Numba: @njit functions over numpy arrays.
# Data-parallel loops use parallel=True with prange; the trivial launch-overhead kernel uses a plain @njit,
# as a Numba user would for 32 elements. Numba has no atomics on the CPU, so the histogram takes Numba's
# usual route: one private histogram per chunk, summed at the end. Numba works on numpy arrays in place
# and has no containers of its own, so the copy workloads do not apply to it.
import os

import common
from common import Case

ARGS = common.parse_args()
# Numba reads its cache folder from the environment at import
os.environ["NUMBA_CACHE_DIR"] = ARGS.cache_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".envs", "cache", "numba")

import numba  # noqa: E402  (after NUMBA_CACHE_DIR is set)
import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

MANDEL_ITERS = common.MANDEL_ITERS
HIST_BINS = common.HIST_BINS


@njit(cache=True)
def square(inp, out):
    for i in range(inp.shape[0]):
        out[i] = inp[i] * inp[i]


@njit(parallel=True, cache=True)
def triad(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(parallel=True, cache=True)
def mandelbrot(image):
    h, w = image.shape
    for i in prange(h):
        cy = np.float32(-1.25) + np.float32(2.5) * np.float32(i) / np.float32(h)
        for j in range(w):
            cx = np.float32(-2.0) + np.float32(2.5) * np.float32(j) / np.float32(w)
            x = np.float32(0.0)
            y = np.float32(0.0)
            n = 0
            while n < MANDEL_ITERS and x * x + y * y <= np.float32(4.0):
                next_x = x * x - y * y + cx
                y = np.float32(2.0) * x * y + cy
                x = next_x
                n += 1
            image[i, j] = n


@njit(parallel=True, cache=True)
def diffuse(src, dst, k):
    n, m = src.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            c = src[i, j]
            dst[i, j] = c + k * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - np.float32(4.0) * c)


# not cached: Numba refuses to cache a function that asks for the thread count at run time
@njit(parallel=True)
def histogram(values, bins):
    chunks = numba.get_num_threads()
    private = np.zeros((chunks, HIST_BINS), np.int64)
    size = (values.shape[0] + chunks - 1) // chunks
    for chunk in prange(chunks):
        for i in range(chunk * size, min((chunk + 1) * size, values.shape[0])):
            private[chunk, int(values[i] * HIST_BINS)] += 1
    bins[:] = private.sum(axis=0)


@njit(cache=True)
def compile_probe(x, y):
    for i in range(x.shape[0]):
        v = x[i]
        acc = np.float32(0.0)
        for k in range(8):
            acc += np.sin(v * np.float32(k)) * np.cos(v + np.float32(k))
        y[i] = np.sqrt(np.abs(acc)) + np.exp(-v * v)


def case_launch(data) -> Case:
    x = data["launch_x"].copy()
    y = np.zeros_like(x)

    def run():
        for _ in range(common.LAUNCH_CALLS):
            square(x, y)

    return Case(run, lambda: {"y": y}, calls=common.LAUNCH_CALLS)


# Numba takes numpy arrays only, so its launch overhead is the same measurement under both names
case_launch_numpy = case_launch


def case_triad(data) -> Case:
    b, c = data["triad_b"], data["triad_c"]
    a = np.zeros_like(b)
    scale = np.float32(common.TRIAD_SCALE)
    return Case(lambda: triad(a, b, c, scale), lambda: {"a": a})


def case_mandelbrot(data) -> Case:
    image = np.zeros((common.MANDEL_H, common.MANDEL_W), np.int32)
    return Case(lambda: mandelbrot(image), lambda: {"image": image})


def case_diffusion(data) -> Case:
    buffers = [data["diffusion_u"].copy(), data["diffusion_u"].copy()]
    k = np.float32(common.DIFFUSION_K)

    def run():
        for step in range(common.DIFFUSION_STEPS):
            diffuse(buffers[step % 2], buffers[(step + 1) % 2], k)

    # an even step count leaves the answer in buffers[0] after every run
    return Case(run, lambda: {"u": buffers[common.DIFFUSION_STEPS % 2]})


def case_histogram(data) -> Case:
    values = data["hist_values"]
    bins = np.zeros(HIST_BINS, np.int64)
    return Case(lambda: histogram(values, bins), lambda: {"bins": bins})


def warm_up_runtime() -> None:
    x = np.ones(common.LAUNCH_N, np.float32)
    square(x, np.zeros_like(x))


def run_probe() -> dict:
    x = common.probe_input()
    y = np.zeros_like(x)
    compile_probe(x, y)
    return {"y": y}


def main() -> None:
    notes = {"threads": numba.get_num_threads(), "backend": "cpu, threading layer chosen by numba"}
    if ARGS.compile:
        results = {ARGS.compile: common.measure_compile(ARGS.compile, warm_up_runtime, run_probe)}
    else:
        no_containers = "numba works on numpy arrays in place; it has no containers to copy into"
        not_applicable = {"from_numpy": no_containers, "to_numpy": no_containers,
                          "grad": "numba has no automatic differentiation"}
        cases = {name: globals()["case_" + name] for name in common.WORKLOADS if name not in not_applicable}
        results = common.measure_all(ARGS, cases, not_applicable)
    common.write_results(ARGS, "numba", numba.__version__, results, notes)


if __name__ == "__main__":
    main()
