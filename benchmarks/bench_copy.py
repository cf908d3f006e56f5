# benchmarks/bench_copy.py: GB/s of from_numpy/to_numpy on 64 MiB float32 arrays against numpy's np.copyto.
"""Measures quadrants' copy interop beside numpy in the same run and prints a markdown table.

Every row moves the same 64 MiB; GB/s counts those bytes once (10**9 bytes per GB). The ratio is each
row's GB/s over np.copyto's, and the issue's target is at least 0.8x. to_numpy returns a new array, so
it also pays for allocating and first touching 64 MiB; the `numpy copy()` row, which does the same,
shows how much of the gap that accounts for.

Usage: python benchmarks/bench_copy.py [--reps N] [--mib M]
"""

import argparse
import statistics
import time

import numpy as np

import quadrants as qd
from tables import bandwidth_table


def median_seconds(fn, reps):
    fn()  # warm-up: first-touch page faults and lazy initialization stay out of the timing
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(nbytes, reps):
    """(label, seconds) for numpy's baselines and for quadrants' copies, all on the same data."""
    count = nbytes // 4
    src = np.random.default_rng(0).random(count, dtype=np.float32)
    dst = np.empty_like(src)
    field = qd.field(qd.f32, shape=count)
    array = qd.ndarray(qd.f32, shape=count)
    rows = [
        ("np.copyto (baseline)", median_seconds(lambda: np.copyto(dst, src), reps)),
        ("numpy copy() (allocates)", median_seconds(src.copy, reps)),
        ("ndarray.from_numpy", median_seconds(lambda: array.from_numpy(src), reps)),
        ("field.from_numpy", median_seconds(lambda: field.from_numpy(src), reps)),
        ("ndarray.to_numpy (allocates)", median_seconds(array.to_numpy, reps)),
        ("field.to_numpy (allocates)", median_seconds(field.to_numpy, reps)),
    ]
    if not np.array_equal(field.to_numpy(), src) or not np.array_equal(array.to_numpy(), src):
        raise RuntimeError("bench_copy: the copies did not reproduce the source; the timings are meaningless.")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="timed repetitions per row (median reported)")
    parser.add_argument("--mib", type=int, default=64, help="array size in MiB")
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    nbytes = args.mib << 20
    title = f"operation ({nbytes >> 20} MiB float32)"
    print(bandwidth_table(title, measure(nbytes, args.reps), nbytes, "np.copyto"))
    qd.reset()


if __name__ == "__main__":
    main()
