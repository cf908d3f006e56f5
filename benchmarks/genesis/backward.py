#!/usr/bin/env python3
# benchmarks/genesis/backward.py: the time of loss.backward() in Genesis' differentiable scenes, our quadrants
# against quadrants 1.3.3, with cold and warm kernel caches (issue 32).
"""Backward-pass timings of Genesis' differentiable scenes (scripts/genesis_grad_scenes.py) on two quadrants.

    python benchmarks/genesis/backward.py --ours build/genesis-venv/bin/python \\
        --reference build/genesis-ref-venv/bin/python [--scenes mpm_push,rigid_box]

The venvs are those scripts/genesis_check.sh makes. For each scene and each quadrants, three figures:
  cold: a new process whose kernel disk caches are empty (XDG_CACHE_HOME, which both quadrants and Genesis
        use, points at a new folder): the first loss.backward() compiles every adjoint kernel it runs;
  warm: a second new process with the disk caches the cold one filled: the first loss.backward() loads them;
  again: a second rollout and loss.backward() in that warm process, everything already loaded.
Each figure is one run (a cold run of the MPM scene takes minutes here); the table says so. Prints a markdown
table and `uptime` before and after, since the figures are only as quiet as the machine.
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


def run_child(python, scene, cache_home, repeat):
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    env.pop("QD_CACHE_DIR", None)  # ours would use it before XDG_CACHE_HOME
    proc = subprocess.run([python, os.path.abspath(__file__), "--child", scene, "--repeat", str(repeat)],
                          env=env, capture_output=True, text=True, timeout=7200)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise RuntimeError(f"{python} {scene} failed (exit {proc.returncode}):\n{tail}")
    return json.loads(lines[-1][len("RESULT "):])


def measure(python, scene):
    """cold, warm and again figures of one scene on one quadrants (the venv's python)."""
    cache_home = tempfile.mkdtemp(prefix="qd-backward-bench-")
    try:
        cold = run_child(python, scene, cache_home, 0)
        warm = run_child(python, scene, cache_home, 1)
    finally:
        shutil.rmtree(cache_home, ignore_errors=True)
    return {"cold": cold["runs"][0]["backward_s"], "warm": warm["runs"][0]["backward_s"],
            "again": warm["runs"][1]["backward_s"], "forward_warm": warm["runs"][0]["forward_s"],
            "build_cold": cold["build_s"], "build_warm": warm["build_s"], "loss": warm["runs"][0]["loss"]}


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", help="python of the venv with our quadrants")
    parser.add_argument("--reference", help="python of the venv with quadrants 1.3.3")
    parser.add_argument("--scenes", default="mpm_push,rigid_box")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.repeat)
    if not args.ours or not args.reference:
        parser.error("give --ours and --reference (the venvs' python)")
    print(f"uptime before: {uptime()}", flush=True)
    results = {}
    for scene in args.scenes.split(","):
        for label, python in (("1.3.3", args.reference), ("ours", args.ours)):
            results[f"{scene} {label}"] = figures = measure(python, scene)
            print(f"{scene} {label}: " + ", ".join(f"{k} {v:.4g}" for k, v in figures.items()), flush=True)
    print(f"uptime after: {uptime()}")
    print("\n| scene | quadrants | backward cold (s) | backward warm (s) | backward again (s) | forward warm (s) |"
          " build cold / warm (s) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for key, f in results.items():
        scene, label = key.split(" ")
        print(f"| {scene} | {label} | {f['cold']:.1f} | {f['warm']:.1f} | {f['again']:.2f} | {f['forward_warm']:.2f} "
              f"| {f['build_cold']:.0f} / {f['build_warm']:.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
