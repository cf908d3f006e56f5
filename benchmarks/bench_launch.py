# benchmarks/bench_launch.py: per-call overhead of a 2-argument kernel on 32 floats, beside torch.mul and numpy.
"""Times `y[i] = x[i] * x[i]` over 32 float32 elements, called back to back from Python.

Each row is the median over --reps repetitions of the mean time per call of a loop of --calls calls,
so it includes the Python loop and call cost the caller pays too (the last row shows that floor).
Repetitions of all rows take turns, so load from other processes slows them alike. The kernel is
timed on torch CPU tensors, numpy arrays and qd.ndarrays; `torch.mul(x, x, out=y)` and `np.multiply(x, x,
out=y)` run in the same process on the same data. The ratio is torch.mul's time over each row's
(above 1x: faster than torch.mul). The issue's target is at most 1 us per call on torch tensors.

Usage: python benchmarks/bench_launch.py [--reps N] [--calls N]
"""

import argparse
import functools
import statistics
import time

import numpy as np
import torch

import quadrants as qd

COUNT = 32


@qd.kernel
def square(x: qd.types.ndarray(), y: qd.types.ndarray()):
    for i in range(32):
        y[i] = x[i] * x[i]


def loop_seconds_per_call(call, calls):
    """Mean seconds per call of `calls` back-to-back calls of the argument-less call."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def interleaved_medians(cases, calls, reps):
    """Median seconds per call of each case; repetitions take turns, so other load hits all alike."""
    for _, call in cases:
        loop_seconds_per_call(call, calls)  # warm-up: specialization, caches, branch predictors
    samples = [[] for _ in cases]
    for _ in range(reps):
        for (_, call), times in zip(cases, samples):
            times.append(loop_seconds_per_call(call, calls))
    return [(label, statistics.median(times)) for (label, _), times in zip(cases, samples)]


def empty_call():
    pass


def check_square(y, expected):
    if not np.array_equal(np.asarray(y), expected):
        raise RuntimeError("bench_launch: the kernel did not compute x * x; the timings are meaningless.")


def measure(calls, reps):
    """(label, seconds per call) for the baselines and for the kernel on each kind of array."""
    source = np.linspace(0.0, 3.0, COUNT, dtype=np.float32)
    expected = source * source
    t_x, t_y = torch.from_numpy(source.copy()), torch.zeros(COUNT, dtype=torch.float32)
    n_x, n_y = source.copy(), np.zeros(COUNT, dtype=np.float32)
    q_x, q_y = qd.ndarray(qd.f32, shape=COUNT), qd.ndarray(qd.f32, shape=COUNT)
    q_x.from_numpy(source)
    # functools.partial binds the arguments in C, so every row pays the same small calling cost.
    cases = [
        ("torch.mul(x, x, out=y) (baseline)", functools.partial(torch.mul, t_x, t_x, out=t_y)),
        ("np.multiply(x, x, out=y)", functools.partial(np.multiply, n_x, n_x, out=n_y)),
        ("kernel on torch tensors", functools.partial(square, t_x, t_y)),
        ("kernel on numpy arrays", functools.partial(square, n_x, n_y)),
        ("kernel on qd.ndarrays", functools.partial(square, q_x, q_y)),
        ("empty Python function (loop floor)", empty_call),
    ]
    rows = interleaved_medians(cases, calls, reps)
    check_square(t_y.numpy(), expected)
    check_square(n_y, expected)
    check_square(q_y.to_numpy(), expected)
    return rows


def markdown_table(rows):
    baseline = rows[0][1]
    lines = [
        f"| call ({COUNT} float32, 2 arguments) | median us/call | ratio vs torch.mul |",
        "| --- | ---: | ---: |",
    ]
    for label, seconds in rows:
        lines.append(f"| {label} | {seconds * 1e6:.3f} | {baseline / seconds:.2f}x |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=11, help="timed repetitions per row (median reported)")
    parser.add_argument("--calls", type=int, default=20000, help="calls per repetition")
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    torch.set_num_threads(qd.runtime._core.num_threads())
    print(markdown_table(measure(args.calls, args.reps)))
    qd.reset()


if __name__ == "__main__":
    main()
