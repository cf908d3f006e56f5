#!/usr/bin/env python3
# benchmarks/genesis/backward.py: the time of loss.backward() in Genesis' differentiable scenes, our quadrants
# against quadrants 1.3.3, with cold and warm kernel caches (issue 32).
"""Backward-pass timings of Genesis' differentiable scenes (scripts/genesis_grad_scenes.py) on two quadrants.

    python benchmarks/genesis/backward.py [--scenes mpm_push,rigid_box] [--json out.json]
    python benchmarks/genesis/backward.py --table out.json     # the table again from a saved run

Venvs: GENESIS_VENV and GENESIS_REF_VENV (default build/genesis-venv, build/genesis-ref-venv), or --ours and
--reference naming their python; scripts/genesis_check.sh --reference --setup-only makes them.
For each scene and each quadrants, three figures of loss.backward():
  cold: a new process whose caches are all empty (bench_genesis.child_environment: a new XDG_CACHE_HOME, which
        holds our kernel cache, 1.3.3's offline cache and Genesis' own, and NUMBA_CACHE_DIR beside it): the first
        loss.backward() compiles every adjoint kernel it runs;
  warm: a second new process with the disk caches the cold one filled: the first loss.backward() loads them;
  again: a second rollout and loss.backward() in that warm process, everything already loaded.
Each figure is one run (a cold run of the MPM scene takes minutes here), 1.3.3 and ours alternating which goes
first by scene. Prints a markdown table and the load average before each run, since the figures are only as quiet
as the machine.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")
sys.path.insert(0, HERE)
from bench_genesis import child_environment, venv_python  # noqa: E402  (a plain module; imports no Genesis)


def child(scene, repeat):
    """In the venv under test: build, roll out, time loss.backward(); `repeat` more rollouts in this process."""
    sys.path.insert(0, SCRIPTS)
    import genesis_grad_scenes as scenes

    gs = scenes.init_genesis()
    builder = {"mpm_push": scenes.build_mpm_push, "rigid_box": scenes.build_rigid_box}[scene]
    t0 = time.perf_counter()
    rollout = builder(gs, {"mpm_push": 6, "rigid_box": 5}[scene])
    build_s = time.perf_counter() - t0
    times = []
    for k in range(1 + repeat):
        t1 = time.perf_counter()
        loss, _, _ = rollout(again=k > 0)
        t2 = time.perf_counter()
        backward_s = scenes._timed_backward(loss)
        times.append({"forward_s": t2 - t1, "backward_s": backward_s, "loss": float(loss.detach().cpu())})
    print("RESULT " + json.dumps({"build_s": build_s, "runs": times}), flush=True)


def run_child(python, scene, cache_root, repeat):
    load = os.getloadavg()[0]
    proc = subprocess.run([python, os.path.abspath(__file__), "--child", scene, "--repeat", str(repeat)],
                          cwd=cache_root, env=child_environment(cache_root), capture_output=True, text=True,
                          timeout=7200)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise RuntimeError(f"{python} {scene} failed (exit {proc.returncode}):\n{tail}")
    return dict(json.loads(lines[-1][len("RESULT "):]), load_before=load)


def measure(python, scene):
    """cold, warm and again figures of one scene on one quadrants (the venv's python)."""
    cache_root = tempfile.mkdtemp(prefix="qd-backward-bench-")
    try:
        cold = run_child(python, scene, cache_root, 0)
        warm = run_child(python, scene, cache_root, 1)
    finally:
        shutil.rmtree(cache_root, ignore_errors=True)
    return {"cold": cold["runs"][0]["backward_s"], "warm": warm["runs"][0]["backward_s"],
            "again": warm["runs"][1]["backward_s"], "forward_warm": warm["runs"][0]["forward_s"],
            "build_cold": cold["build_s"], "build_warm": warm["build_s"], "loss": warm["runs"][0]["loss"],
            "load_cold": cold["load_before"], "load_warm": warm["load_before"]}


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


PHASES = (("backward cold", "cold"), ("backward warm", "warm"), ("backward again", "again"),
          ("forward warm", "forward_warm"), ("build cold", "build_cold"), ("build warm", "build_warm"))


def table(results):
    """Markdown: per scene and phase, 1.3.3's and our seconds and their ratio."""
    lines = ["| scene | phase | 1.3.3 (s) | ours (s) | ours / 1.3.3 |", "| --- | --- | ---: | ---: | ---: |"]
    for scene in dict.fromkeys(key.split(" ")[0] for key in results):
        ref, ours = results.get(f"{scene} 1.3.3"), results.get(f"{scene} ours")
        if not ref or not ours:
            continue
        for label, key in PHASES:
            lines.append(f"| {scene} | {label} | {ref[key]:.2f} | {ours[key]:.2f} | {ours[key] / ref[key]:.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", help="python of the venv with our quadrants (default: GENESIS_VENV's)")
    parser.add_argument("--reference", help="python of the venv with quadrants 1.3.3 (default: GENESIS_REF_VENV's)")
    parser.add_argument("--scenes", default="mpm_push,rigid_box")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--table", help="print the table of a saved --json and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.repeat)
    if args.table:
        with open(args.table) as f:
            print(table(json.load(f)))
        return 0
    repo = os.path.dirname(SCRIPTS)
    ours = args.ours or venv_python("GENESIS_VENV", os.path.join(repo, "build", "genesis-venv"))
    reference = args.reference or venv_python("GENESIS_REF_VENV", os.path.join(repo, "build", "genesis-ref-venv"))
    print(f"uptime before: {uptime()}", flush=True)
    results = {}
    for index, scene in enumerate(args.scenes.split(",")):
        pair = (("1.3.3", reference), ("ours", ours))
        for label, python in pair if index % 2 == 0 else pair[::-1]:
            results[f"{scene} {label}"] = figures = measure(python, scene)
            print(f"{scene} {label}: " + ", ".join(f"{k} {v:.4g}" for k, v in figures.items()), flush=True)
            if args.json:  # after every run, so an interrupted benchmark keeps what it measured
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=1)
    print(f"uptime after: {uptime()}\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
