#!/usr/bin/env python3
# benchmarks/genesis/bench_hasher_loops.py: the loops of Genesis' spatial hasher (utils/geom.py
# SpatialHasher.compute_reordered_idx, 92% of a pbd step's kernel time) on ours and on quadrants 1.3.3.
"""Genesis' spatial-hash loops alone, ours against quadrants 1.3.3, one CPU thread as gs.cpu runs them.

    python benchmarks/genesis/bench_hasher_loops.py [--ours PYTHON] [--ref PYTHON] [--reps 5]

A 150^3 grid (3,375,000 slots) of fields shaped (slots, 1), as Genesis makes them with one environment:
"prefix" is the loop of `slot_start[i, b] = qd.atomic_add(cur_cnt[b], slot_size[i, b])`, "fill" three
`field.fill(0)`, "shift" `slot_start[i, b] -= slot_size[i, b]` over `qd.ndrange(n_slots, B)`. Each side runs in
its own process, alternating, `--reps` times; each process times 20 launches of each loop after a warm-up and
reports the median milliseconds per launch. The table gives the medians over processes and 1.3.3 / ours.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r"""
import json, statistics, time
import quadrants as qd
qd.init(arch=qd.cpu, cpu_max_num_threads=1)
N, B = 150 ** 3, 1
slot_size = qd.field(qd.i32, shape=(N, B))
slot_start = qd.field(qd.i32, shape=(N, B))
cur_cnt = qd.field(qd.i32, shape=B)
other_a = qd.field(qd.i32, shape=(N, B))
other_b = qd.field(qd.i32, shape=(N, B))


@qd.kernel
def prefix():
    for i, b in qd.ndrange(N, B):
        slot_start[i, b] = qd.atomic_add(cur_cnt[b], slot_size[i, b])


@qd.kernel
def shift():
    for i, b in qd.ndrange(N, B):
        slot_start[i, b] -= slot_size[i, b]


def fill():
    slot_size.fill(0)
    other_a.fill(0)
    other_b.fill(0)


def timed(fn, n=20):
    fn()
    qd.sync()
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        qd.sync()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


print(json.dumps({"prefix": timed(prefix), "fill": timed(fill), "shift": timed(shift)}))
"""


def run(python, script):
    out = subprocess.run([python, script], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{python} {script} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", default=os.path.join(REPO, ".venv", "bin", "python"))
    parser.add_argument("--ref", default=os.path.join(REPO, "build", "genesis-ref-venv", "bin", "python"))
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    samples = {"ours": [], "1.3.3": []}
    with tempfile.TemporaryDirectory(prefix="qd_bench_hasher_") as work:
        script = os.path.join(work, "hasher_loops.py")  # kernels need a source file
        with open(script, "w") as out:
            out.write(CHILD)
        for rep in range(args.reps):
            order = [("ours", args.ours), ("1.3.3", args.ref)]
            for side, python in order if rep % 2 == 0 else reversed(order):
                samples[side].append(run(python, script))
    print("| loop | ours (ms) | 1.3.3 (ms) | 1.3.3 / ours |")
    print("| --- | ---: | ---: | ---: |")
    for loop in ("prefix", "fill", "shift"):
        ours = statistics.median(s[loop] for s in samples["ours"])
        ref = statistics.median(s[loop] for s in samples["1.3.3"])
        print(f"| {loop} | {ours:.2f} | {ref:.2f} | {ref / ours:.2f}x |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
