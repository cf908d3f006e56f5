#!/usr/bin/env python3
# benchmarks/genesis/bench_tiered.py: cold Genesis builds with tiered compile on and off (ours) against 1.3.3 (issue 31).
"""Tiered compile on Genesis: per scene, cold runs of ours with QD_TIERED_COMPILE=0 and =all (Genesis turns
fast_math on, so the default, exact, tiers none of its kernels) and of quadrants 1.3.3, alternating the order by
repetition, each in a fresh cache root after one untimed run has filled Genesis' own caches (numba, meshes).

    python benchmarks/genesis/bench_tiered.py --scenes pbd,fem --reps 1 --json out.json

Each run is benchmarks/genesis/run_scene.py through bench_genesis.run_child: the build's wall and CPU seconds, the
first step, then (ours) the wait for the background builds and the steady steps after the swap.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_genesis import REPO, run_child, venv_python  # noqa: E402

VARIANTS = (("ours-untiered", "ours", "0"), ("ours-tiered", "ours", "all"), ("1.3.3", "ref", None))


def one_run(python, scene, args, tiered):
    os.environ.pop("QD_TIERED_COMPILE", None)
    if tiered is not None:
        os.environ["QD_TIERED_COMPILE"] = tiered
    root = tempfile.mkdtemp(prefix="genesis-tiered-")
    try:
        return run_child(python, scene, root, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def summary(name, r):
    if r["status"] != "PASS":
        return f"{name}: {r['status']} {r.get('output_tail', '')[-800:]}"
    return (f"{name}: build {r['setup_s'] + r['build_s']:.1f} s wall, {r['setup_cpu_s'] + r['build_cpu_s']:.1f} s CPU; "
            f"first step {r['after_build_s'] + r['first_step_s']:.2f} s; optimized wait {r.get('optimized_wait_s', 0):.1f} s; "
            f"step {r['step_median_s'] * 1e3:.2f} ms median ({r['steps']}), {r['step_cpu_s'] * 1e3:.2f} ms CPU; "
            f"total CPU {r['cpu_s']:.1f} s; load {r['load_before']:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default="pbd,fem")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--step-seconds", type=float, default=5.0)
    parser.add_argument("--reverse", action="store_true", help="start with 1.3.3 (then every other repetition)")
    parser.add_argument("--json")
    args = parser.parse_args()
    pythons = {"ours": venv_python("GENESIS_VENV", os.path.join(REPO, "build", "genesis-venv")),
               "ref": venv_python("GENESIS_REF_VENV", os.path.join(REPO, "build", "genesis-ref-venv"))}
    args.genesis_cache_dir = tempfile.mkdtemp(prefix="genesis-tiered-own-cache-")
    results = {"command": " ".join(sys.argv), "started": time.ctime(), "runs": {}}
    for scene in args.scenes.split(","):
        print(f"{scene}: filling Genesis' own caches (untimed)", flush=True)
        one_run(pythons["ours"], scene, args, "0")  # ours: 1.3.3's run left Genesis work for ours' first run
        one_run(pythons["ref"], scene, args, None)
        results["runs"][scene] = {name: [] for name, _, _ in VARIANTS}
        for rep in range(args.reps):
            order = VARIANTS if (rep + args.reverse) % 2 == 0 else VARIANTS[::-1]
            for name, venv, tiered in order:
                record = one_run(pythons[venv], scene, args, tiered)
                results["runs"][scene][name].append(record)
                print(f"  {scene} {summary(name, record)}", flush=True)
                if args.json:
                    with open(args.json, "w") as f:
                        json.dump(results, f, indent=1)
    shutil.rmtree(args.genesis_cache_dir, ignore_errors=True)
    results["finished"] = time.ctime()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
