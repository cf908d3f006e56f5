# benchmarks/bench_sparse_memory.py: memory and struct-for time of a sparse grid, pointer SNode vs dense field.
"""Issue 12's case: a 4096 x 4096 float32 grid in 8 x 8 blocks, 1% of the blocks (chosen at random)
written. Each layout runs in a fresh process, which reports after the writes and one struct-for over
the grid: the resident bytes of the layout's storage (the field's array and the pointer's slot words,
each its own mapping in /proc/self/smaps), how much the process's resident memory (VmRSS) grew since
just before the field was created (this also counts the compiled kernels' code), and the median time
of that struct-for (it sums the grid). Layouts:

- dense: qd.field(qd.f32, shape=(4096, 4096)); the storage is calloc'ed, so untouched pages cost
  nothing, but 1% of 8 x 8 blocks touch most pages (a block spans 8 rows of 16 KiB each);
- pointer: qd.root.pointer(qd.ij, 512).dense(qd.ij, 8): on the CPU the pointer hands each activated
  block a chunk of a pool in activation order, so pages fill with active blocks only.

Usage: python benchmarks/bench_sparse_memory.py [--reps N]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

N, BLOCK, FRACTION = 4096, 8, 0.01


def rss_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("bench_sparse_memory: /proc/self/status has no VmRSS (Linux only).")


def resident_bytes(addresses):
    """Resident bytes of the /proc/self/smaps mappings that hold these addresses, each mapping once (large
    callocs get mappings of their own, but the kernel merges adjacent ones)."""
    total, found, inside = 0, set(), False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and all(c in "0123456789abcdef-" for c in head[0]):
                start, end = (int(x, 16) for x in head[0].split("-"))
                held = {a for a in addresses if start <= a < end}
                inside = bool(held)
                found |= held
            elif inside and head[0] == "Rss:":
                total += int(head[1]) * 1024
    if found != set(addresses):
        raise RuntimeError("bench_sparse_memory: some storage is in no mapping of /proc/self/smaps.")
    return total


def run_case(layout, reps):
    """One layout in this process: {rss growth, struct-for ms, allocated blocks}."""
    import numpy as np

    import quadrants as qd

    qd.init(arch=qd.cpu)
    blocks_per_side = N // BLOCK
    rng = np.random.default_rng(0)
    chosen = rng.choice(blocks_per_side**2, size=int(blocks_per_side**2 * FRACTION), replace=False)
    rows, cols = qd.ndarray(qd.i32, shape=len(chosen)), qd.ndarray(qd.i32, shape=len(chosen))
    rows.from_numpy((chosen // blocks_per_side).astype(np.int32))
    cols.from_numpy((chosen % blocks_per_side).astype(np.int32))
    before = rss_bytes()
    if layout == "dense":
        x = qd.field(qd.f32, shape=(N, N))
        pointer = None
    else:
        x = qd.field(qd.f32)
        pointer = qd.root.pointer(qd.ij, blocks_per_side)
        pointer.dense(qd.ij, BLOCK).place(x)

    @qd.kernel
    def write_blocks(rows: qd.types.ndarray(), cols: qd.types.ndarray()):
        for k in rows:
            for u, v in qd.ndrange(BLOCK, BLOCK):
                x[rows[k] * BLOCK + u, cols[k] * BLOCK + v] = 1.0

    @qd.kernel
    def total() -> qd.f32:
        s = 0.0
        for i, j in x:
            s += x[i, j]
        return s

    write_blocks(rows, cols)
    expected = len(chosen) * BLOCK * BLOCK
    if total() != expected:
        raise RuntimeError("bench_sparse_memory: the struct-for sum is wrong; the figures are meaningless.")
    grown = rss_bytes() - before
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        total()
        times.append(time.perf_counter() - start)
    allocated = pointer._num_dynamically_allocated if pointer is not None else None
    addresses = [x._array.data_ptr] + ([pointer._slots._array.data_ptr] if pointer is not None else [])
    storage = resident_bytes(addresses)
    return {"rss": grown, "storage": storage, "ms": statistics.median(times) * 1e3, "active_bytes": expected * 4,
            "allocated": allocated}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="timed struct-for runs per layout (median reported)")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: run one layout and print JSON
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.reps)))
        return
    results = {}
    for layout in ("dense", "pointer"):
        out = subprocess.run([sys.executable, __file__, "--case", layout, "--reps", str(args.reps)],
                             check=True, capture_output=True, text=True).stdout
        results[layout] = json.loads(out.strip().splitlines()[-1])
    active = results["dense"]["active_bytes"]
    print(f"| layout ({N} x {N} f32, {FRACTION:.0%} of {BLOCK} x {BLOCK} blocks written) | storage resident MiB | "
          "x active cells | process RSS growth MiB | struct-for ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| active cells alone | {active / 2**20:.2f} | 1.00x | | |")
    for layout, f in results.items():
        print(f"| {layout} | {f['storage'] / 2**20:.2f} | {f['storage'] / active:.2f}x | {f['rss'] / 2**20:.2f} | "
              f"{f['ms']:.2f} |")
    print(f"\npointer blocks given memory: {results['pointer']['allocated']}")


if __name__ == "__main__":
    main()
