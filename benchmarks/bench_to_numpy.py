# benchmarks/bench_to_numpy.py: to_numpy() against numpy's own copy(), timed in interleaved pairs (robust to load).
"""to_numpy() of a 64 MiB float32 ndarray and field, over numpy's ndarray.copy() of the same bytes.

Both allocate a new array and copy into it, so on an idle machine they should take about the same time.
bench_copy.py times its rows one after another, so on a machine shared with other work the load can change
between the rows; here each round times copy(), ndarray.to_numpy() and field.to_numpy() back to back, in an
order that alternates between rounds (ABC, CBA), and the ratio is taken per round before the median, so
drift in the load cancels. Prints the median ratio and its quartiles.

    python benchmarks/bench_to_numpy.py [--rounds 41] [--mib 64] [--cpu-time] [--variants]

--cpu-time times with time.thread_time (CPU of the copying thread, which load on the machine does not
inflate) instead of wall time. --variants adds the same copy from storage made with huge_pages=True
(_core.Array.create) and into a destination at the source's offset within its page (RESULTS.md).
"""
import argparse
import statistics
import time

import numpy as np

import quadrants as qd


CLOCK = [time.perf_counter]


def timed(fn):
    start = CLOCK[0]()
    out = fn()
    seconds = CLOCK[0]() - start
    del out  # freed before the next timing, as in a loop that drops each result
    return seconds


def variants(src, count):
    """to_numpy's copy from storage with and without huge pages, into np.empty or a page-offset-matched array."""
    from quadrants.runtime import _core
    from quadrants.interop import import_dlpack

    def storage(huge_pages):
        array = _core.Array.create("f32", [count], [], huge_pages=huge_pages)
        array.copy_from(import_dlpack(src), "bench", parallel=True)
        return array

    def copy_out(array, matched):
        if matched:  # the destination at the source's offset within its 4 KiB page
            buffer = np.empty(count * 4 + 4096, np.uint8)
            start = (array.data_ptr - buffer.ctypes.data) % 4096
            out = buffer[start:start + count * 4].view(np.float32)
        else:
            out = np.empty(count, np.float32)
        import_dlpack(out).copy_from(array, "to_numpy")
        return out

    plain, huge = storage(False), storage(True)
    for array in (plain, huge):
        for matched in (False, True):
            if not np.array_equal(copy_out(array, matched), src):
                raise RuntimeError("bench_to_numpy: a variant did not reproduce the source")
    return {"default, np.empty": lambda: copy_out(plain, False), "default, matched": lambda: copy_out(plain, True),
            "huge_pages, np.empty": lambda: copy_out(huge, False), "huge_pages, matched": lambda: copy_out(huge, True)}


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    if args.cpu_time:
        CLOCK[0] = time.thread_time
    qd.init(arch=qd.cpu)
    count = (args.mib << 20) // 4
    src = np.random.default_rng(0).random(count, dtype=np.float32)
    array = qd.ndarray(qd.f32, shape=count)
    field = qd.field(qd.f32, shape=count)
    array.from_numpy(src)
    field.from_numpy(src)
    if not (np.array_equal(array.to_numpy(), src) and np.array_equal(field.to_numpy(), src)):
        raise RuntimeError("bench_to_numpy: the copies did not reproduce the source")
    rows = {"numpy copy()": src.copy, "ndarray.to_numpy()": array.to_numpy, "field.to_numpy()": field.to_numpy}
    if args.variants:
        rows.update(variants(src, count))
    times = {name: [] for name in rows}
    for name, fn in rows.items():  # warm-up
        timed(fn)
    for k in range(args.rounds):
        for name in (list(rows) if k % 2 == 0 else list(reversed(rows))):
            times[name].append(timed(rows[name]))
    base = times["numpy copy()"]
    clock = "CPU ms of this thread" if args.cpu_time else "median ms"
    print(f"{args.mib} MiB float32, {args.rounds} interleaved rounds ({clock}; ratio = copy() time / its time, "
          "per round, then quartiles)")
    for name in rows:
        ratios = [b / t for b, t in zip(base, times[name])]
        low, mid, high = quartiles(ratios)
        print(f"  {name:20s} {statistics.median(times[name]) * 1e3:8.2f} ms   ratio {mid:.2f}x "
              f"(quartiles {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
