# benchmarks/bench_first_call_ab.py: the warm first call of bench_compile.py's probe kernel, two quadrants side by side.
"""A/B of the warm-cache first call: two installations of quadrants (each an interpreter, optionally with a
PYTHONPATH), each on a warm cache of its own, alternating in fresh processes. Reports the median, min and max of
the whole first call and of `_core.compile_kernel` inside it (timed by wrapping it).

    python benchmarks/bench_first_call_ab.py --a /tmp/bvenv/bin/python:/tmp/snap --b .venv/bin/python --reps 12

A side is PYTHON or PYTHON:PYTHONPATH (an older checkout's package beside its own built core, say).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from bench_compile import PROBE  # the same probe kernel as the compile-time table

CHILD = r"""
import json, time
import numpy as np
import quadrants as qd
from quadrants.runtime import _core
qd.init(arch=qd.cpu)
spent = []
compile_kernel = _core.compile_kernel


def timed(*args):
    start = time.perf_counter()
    try:
        return compile_kernel(*args)
    finally:
        spent.append(time.perf_counter() - start)


_core.compile_kernel = timed
""" + PROBE + r"""
start = time.perf_counter()
saxpy_clamped(out, x, y, 2.0)
done = time.perf_counter()
assert out[3] == 7.0
print(json.dumps({"first_call": done - start, "compile_kernel": sum(spent)}))
"""


def run(side, script, cache):
    python, _, path = side.partition(":")
    env = dict(os.environ, QD_CACHE_DIR=cache)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    result = subprocess.run([python, script], env=env, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="PYTHON[:PYTHONPATH] of the first installation")
    parser.add_argument("--b", required=True, help="PYTHON[:PYTHONPATH] of the second")
    parser.add_argument("--reps", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qd_first_call_ab_") as work:
        script = os.path.join(work, "first_call.py")
        with open(script, "w") as f:
            f.write(CHILD)
        sides = {"a": args.a, "b": args.b}
        caches = {name: os.path.join(work, name) for name in sides}
        for name, side in sides.items():
            for _ in range(2):  # the first run compiles; the second records what a warm process writes
                run(side, script, caches[name])
        samples = {name: [] for name in sides}
        for _ in range(args.reps):
            for name, side in sides.items():
                samples[name].append(run(side, script, caches[name]))
    for name, side in sides.items():
        for field in ("first_call", "compile_kernel"):
            ms = [s[field] * 1e3 for s in samples[name]]
            print(f"{name} ({side}) {field}: median {statistics.median(ms):.3f} ms, min {min(ms):.3f}, "
                  f"max {max(ms):.3f} ({len(ms)} processes)")


if __name__ == "__main__":
    main()
