# benchmarks/bench_triad.py: GB/s of the triad a = b + s*c on 2^24 float32: quadrants vs numpy vs hand-written C++.
"""Runs the triad three ways in one process on the same arrays and prints a markdown table.
Repetitions of the three take turns, so a busy machine slows them alike.

The hand-written baseline is benchmarks/native/triad.cpp, compiled here with g++ -O3 -march=native
-fopenmp into a temporary directory and loaded with ctypes; it runs on as many OpenMP threads as
quadrants' pool has. Pages are touched before any timing. GB/s counts 3 arrays x 4 bytes x n
(10**9 bytes per GB; write-allocate traffic is not counted). The ratio is each row's GB/s over the
hand-written one's; the issue's target for quadrants is at least 0.9x.

OpenMP threads are made to sleep between regions (OMP_WAIT_POLICY=passive, as quadrants' pool does):
by default they spin for a while after each region, and on a 2-core machine that spinning takes the
cores from whichever row runs next in the interleaved order (measured: 0.77-0.84x for quadrants with
spinning OpenMP threads, 0.99-1.02x without, the hand-written row's own time unchanged).

Usage: python benchmarks/bench_triad.py [--reps N] [--log2n K]
"""

import argparse
import ctypes
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

import quadrants as qd
from tables import bandwidth_table

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when libgomp loads, below

NATIVE_SOURCE = pathlib.Path(__file__).resolve().parent / "native" / "triad.cpp"
SCALE = 3.0


@qd.kernel
def triad(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray(), s: qd.f32):
    for i in a:
        a[i] = b[i] + s * c[i]


def build_native(directory):
    """Compiles triad.cpp into directory and returns the loaded library with typed entry points."""
    compiler = os.environ.get("CXX") or shutil.which("g++") or "c++"
    library_path = pathlib.Path(directory) / "libtriad.so"
    command = [compiler, "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", str(NATIVE_SOURCE), "-o",
               str(library_path)]
    subprocess.run(command, check=True)
    library = ctypes.CDLL(str(library_path))
    pointer = ctypes.c_void_p
    library.triad.argtypes = [pointer, pointer, pointer, ctypes.c_float, ctypes.c_int64, ctypes.c_int]
    library.triad.restype = None
    library.warm_pages.argtypes = [pointer, ctypes.c_int64, ctypes.c_int]
    library.warm_pages.restype = None
    return library


def interleaved_medians(fns, reps):
    """Median seconds of each fn; repetitions take turns, so load from other processes hits all alike."""
    for fn in fns:
        fn()  # warm-up: lazy initialization (thread start-up, specialization lookup) stays out of the timing
    samples = [[] for _ in fns]
    for _ in range(reps):
        for fn, times in zip(fns, samples):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return [statistics.median(times) for times in samples]


def measure(native, count, reps, threads):
    """(label, seconds) for the hand-written triad, quadrants on numpy arrays, and numpy itself."""
    a, b, c = (np.empty(count, dtype=np.float32) for _ in range(3))
    for array in (a, b, c):
        native.warm_pages(array.ctypes.data, count, threads)
    rng = np.random.default_rng(0)
    b[:] = rng.random(count, dtype=np.float32)
    c[:] = rng.random(count, dtype=np.float32)
    expected = b + np.float32(SCALE) * c

    def hand_written():
        native.triad(a.ctypes.data, b.ctypes.data, c.ctypes.data, SCALE, count, threads)

    def numpy_triad():
        np.multiply(c, np.float32(SCALE), out=a)
        np.add(a, b, out=a)

    cases = [("hand-written C++ -O3 -fopenmp (baseline)", hand_written),
             ("quadrants kernel", lambda: triad(a, b, c, SCALE)),
             ("numpy multiply + add, out=", numpy_triad)]
    for label, fn in cases:
        a.fill(0.0)
        fn()
        if not np.allclose(a, expected, rtol=1e-6):
            raise RuntimeError(f"bench_triad: '{label}' did not compute b + s*c; the timings are meaningless.")
    seconds = interleaved_medians([fn for _, fn in cases], reps)
    return [(label, time_taken) for (label, _), time_taken in zip(cases, seconds)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=21, help="timed repetitions per row (median reported)")
    parser.add_argument("--log2n", type=int, default=24, help="log2 of the element count")
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    threads = qd.runtime._core.num_threads()
    count = 1 << args.log2n
    with tempfile.TemporaryDirectory(prefix="qd_bench_triad_") as directory:
        native = build_native(directory)
        title = f"triad a = b + s*c (n = {count}, float32, {threads} threads)"
        rows = measure(native, count, args.reps, threads)
        print(bandwidth_table(title, rows, 3 * 4 * count, "hand-written"))
    qd.reset()


if __name__ == "__main__":
    main()
