# benchmarks/bench_grad.py: time of a kernel's adjoint (kernel.grad()) over the kernel's own time, memory- and compute-bound.
"""Two float32 kernels over fields with gradients, each timed forward and backward in one process:

- axpy (memory-bound): y[i] = a[i] * x[i] + b over 2^22 elements. Its adjoint reads y.grad, a and x
  and writes a.grad, x.grad and y.grad (zeroed, upstream's store rule), so it moves about twice the bytes.
- carried loop (compute-bound): per element, a serial loop of T iterations with a loop-carried local,
  s = sin(s) * c + 0.5 * s; out[i] = s. Its adjoint replays the loop once pushing s onto the AD stack,
  then runs it backwards, popping s, recomputing each iteration's values and sweeping them.

Repetitions of forward and adjoint take turns, so load hits both alike; the medians are reported with
their ratio (target from issue 14: adjoint at most 2.5x forward). Times include the launch.

Usage: python benchmarks/bench_grad.py [--reps N] [--arch cpu|cuda]
"""

import argparse
import statistics
import time

import numpy as np

import quadrants as qd

AXPY_N = 1 << 22
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

    def backward():
        y.grad.fill(1.0)  # the adjoint of a store zeroes it
        axpy.grad(0.5)

    return "axpy y = a*x + b (2^22 f32, memory-bound)", lambda: axpy(0.5), backward, lambda: y.grad.fill(1.0)


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

    def backward():
        out.grad.fill(1.0)
        loop.grad()

    return f"carried loop, {LOOP_T} iterations per element (2^14 f32, compute-bound)", loop, backward, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--arch", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    qd.init(arch=qd.cuda if args.arch == "cuda" else qd.cpu)
    print("| kernel | forward ms | adjoint ms (incl. seeding the output's grad) | seeding alone ms | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for case in (axpy_case, carried_loop_case):
        name, forward, backward, seed = case()
        times = {"forward": [], "backward": [], "seed": []}
        for _ in range(3):  # interleave blocks of repetitions
            times["forward"].append(timed(forward, args.reps))
            times["backward"].append(timed(backward, args.reps))
            if seed:
                times["seed"].append(timed(seed, args.reps))
        f, b = statistics.median(times["forward"]), statistics.median(times["backward"])
        s = statistics.median(times["seed"]) if seed else None
        seed_text = f"{s:.2f}" if s is not None else "-"
        # The ratio leaves the seeding fill out: it is the caller's, not the adjoint's work.
        print(f"| {name} | {f:.2f} | {b:.2f} | {seed_text} | {(b - (s or 0.0)) / f:.2f}x |")


if __name__ == "__main__":
    main()
