# benchmarks/bench_grad.py: time of a kernel's adjoint (kernel.grad()) over the kernel's own time, memory- and compute-bound.
"""Two float32 kernels over fields with gradients, each timed forward and backward in one process:

- axpy (memory-bound): y[i] = a[i] * x[i] + b over 2^24 elements. Its adjoint reads y.grad, a, x,
  a.grad and x.grad and writes a.grad, x.grad and y.grad (zeroed, upstream's store rule): 8 streams
  to the forward's 3, so about 2.7x its bytes is the floor.
- carried loop (compute-bound): per element, a serial loop of T iterations with a loop-carried local,
  s = sin(s) * c + 0.5 * s; out[i] = s. Its adjoint replays the loop once pushing s onto the AD stack,
  then runs it backwards, popping s, recomputing each iteration's values and sweeping them.

Repetitions of forward and adjoint take turns, so load hits both alike; the medians are reported with
their ratio (target from issue 14: adjoint at most 2.5x forward). Times include the launch. The output
gradients are seeded once: the adjoint's work does not depend on their values (a store's adjoint zeroes
its output gradient, so later repetitions propagate zeros through the same loads and stores).

Usage: python benchmarks/bench_grad.py [--reps N] [--arch cpu|cuda]
"""

import argparse
import statistics
import time

import numpy as np

import quadrants as qd

AXPY_N = 1 << 24  # 3 x 64 MiB: beyond the caches
LOOP_N = 1 << 14
LOOP_T = 200


def timed(fn, reps):
    """Median milliseconds of fn() over reps runs (after one warm-up), synchronized."""
    fn()
    qd.sync()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        qd.sync()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def axpy_case():
    a = qd.field(qd.f32, shape=AXPY_N, needs_grad=True)
    x = qd.field(qd.f32, shape=AXPY_N, needs_grad=True)
    y = qd.field(qd.f32, shape=AXPY_N, needs_grad=True)
    rng = np.random.default_rng(0)
    a.from_numpy(rng.random(AXPY_N, dtype=np.float32))
    x.from_numpy(rng.random(AXPY_N, dtype=np.float32))

    @qd.kernel
    def axpy(b: qd.f32):
        for i in y:
            y[i] = a[i] * x[i] + b

    y.grad.fill(1.0)
    return "axpy y = a*x + b (2^24 f32, memory-bound)", lambda: axpy(0.5), lambda: axpy.grad(0.5)


def carried_loop_case():
    x = qd.field(qd.f32, shape=LOOP_N, needs_grad=True)
    c = qd.field(qd.f32, shape=LOOP_N, needs_grad=True)
    out = qd.field(qd.f32, shape=LOOP_N, needs_grad=True)
    rng = np.random.default_rng(1)
    x.from_numpy(rng.random(LOOP_N, dtype=np.float32))
    c.from_numpy(rng.uniform(-1, 1, LOOP_N).astype(np.float32))

    @qd.kernel
    def loop():
        for i in x:
            s = x[i]
            for _ in range(LOOP_T):
                s = qd.sin(s) * c[i] + 0.5 * s
            out[i] = s

    out.grad.fill(1.0)
    return f"carried loop, {LOOP_T} iterations per element (2^14 f32, compute-bound)", loop, loop.grad


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--arch", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    qd.init(arch=qd.cuda if args.arch == "cuda" else qd.cpu, ad_stack_experimental_enabled=True)  # the carried loop
    print("| kernel | forward ms | adjoint ms | adjoint / forward |")
    print("| --- | ---: | ---: | ---: |")
    for case in (axpy_case, carried_loop_case):
        name, forward, backward = case()
        times = {"forward": [], "backward": []}
        for _ in range(3):  # interleave blocks of repetitions
            times["forward"].append(timed(forward, args.reps))
            times["backward"].append(timed(backward, args.reps))
        f, b = statistics.median(times["forward"]), statistics.median(times["backward"])
        print(f"| {name} | {f:.2f} | {b:.2f} | {b / f:.2f}x |")


if __name__ == "__main__":
    main()
