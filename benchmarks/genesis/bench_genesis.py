#!/usr/bin/env python3
# benchmarks/genesis/bench_genesis.py: Genesis scenes on our quadrants and on quadrants 1.3.3 in one invocation,
# alternating, cold caches then warm caches; a markdown table of ours / 1.3.3 per phase (issue 31).
"""Genesis benchmark: ours against quadrants 1.3.3, scene by scene.

    python benchmarks/genesis/bench_genesis.py                       # the 11 scenes, 3 repetitions
    python benchmarks/genesis/bench_genesis.py --scenes rigid,go2_64 --reps 1 --json out.json
    python benchmarks/genesis/bench_genesis.py --table out.json      # the table again from a saved run

Venvs: GENESIS_VENV (default build/genesis-venv: ours, editable from this checkout) and GENESIS_REF_VENV (default
build/genesis-ref-venv: quadrants==1.3.3), as scripts/genesis_check.sh --setup-only --reference makes them.

Per scene and repetition, each implementation runs twice in fresh processes (benchmarks/genesis/run_scene.py): first
with every cache empty (a new temporary XDG_CACHE_HOME, which holds our kernel cache, 1.3.3's offline cache and
fastcache, and Genesis' own caches; QD_CACHE_DIR, QD_OFFLINE_CACHE_FILE_PATH and GS_CACHE_FILE_PATH are unset so
nothing overrides it; NUMBA_CACHE_DIR points into it too), then again with the caches that run left ("warm"). The two
implementations alternate which goes first, by scene and by repetition. --genesis-cache warm keeps Genesis' own
caches (and numba's) filled for every run, so that the cold figures are the kernel caches' alone: on a cold rigid
build, numba compiling Genesis' mesh helpers took as long as our kernel compiles (docs/genesis_profile.md). The table shows medians over repetitions;
the JSON keeps every sample, the load average before each run and each run's CPU seconds (compilers included).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(REPO, "scripts")
sys.path.insert(0, SCRIPTS)
from genesis_scenes import ALL_SCENES  # noqa: E402  (a plain module; imports no Genesis)

CHILD_TIMEOUT_S = 2400
CACHE_VARIABLES = ("QD_CACHE_DIR", "QD_OFFLINE_CACHE_FILE_PATH", "GS_CACHE_FILE_PATH", "NUMBA_CACHE_DIR",
                   "XDG_CACHE_HOME", "PYTHONPATH", "PYTHONHOME")


def child_environment(cache_root, genesis_cache=None):
    """Every cache under cache_root; with genesis_cache, Genesis' own (its folder and numba's) there instead."""
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    env["XDG_CACHE_HOME"] = os.path.join(cache_root, "xdg")
    env["NUMBA_CACHE_DIR"] = os.path.join(genesis_cache or cache_root, "numba")
    if genesis_cache:
        env["GS_CACHE_FILE_PATH"] = os.path.join(genesis_cache, "genesis")
    return env


def cache_sizes(cache_root):
    """Bytes under each folder of the temporary cache root: shows that each cache landed where it was sent."""
    sizes = {}
    xdg = os.path.join(cache_root, "xdg")
    for name in sorted(os.listdir(xdg)) if os.path.isdir(xdg) else []:
        total = 0
        for folder, _, files in os.walk(os.path.join(xdg, name)):
            total += sum(os.path.getsize(os.path.join(folder, f)) for f in files
                         if os.path.isfile(os.path.join(folder, f)))
        sizes[name] = total
    return sizes


def run_child(python, scene, cache_root, args):
    """One run_scene.py process; its record plus wall time, load average before it and CPU seconds."""
    out = os.path.join(cache_root, "record.json")
    if os.path.exists(out):
        os.remove(out)
    command = [python, os.path.join(HERE, "run_scene.py"), "--scenes-dir", SCRIPTS, "--scene", scene,
               "--steps", str(args.steps), "--step-seconds", str(args.step_seconds), "--json", out]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cache_root, env=child_environment(cache_root, args.genesis_cache_dir),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = proc.communicate(timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
    wall = time.perf_counter() - started
    record = {"status": "FAIL", "returncode": proc.returncode, "output_tail": output[-3000:]}
    if proc.returncode == 0 and os.path.exists(out):
        with open(out) as f:
            record = json.load(f)
        record["status"] = "PASS"
    record.update(wall_s=wall, load_before=load, cache_bytes=cache_sizes(cache_root))
    return record


def run_pair(name, python, scene, args):
    """Cold then warm run of one implementation, in a fresh temporary cache root."""
    root = tempfile.mkdtemp(prefix=f"genesis-bench-{name}-")
    try:
        cold = run_child(python, scene, root, args)
        warm = run_child(python, scene, root, args) if cold["status"] == "PASS" else {"status": "SKIPPED"}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for label, record in (("cold", cold), ("warm", warm)):
        if record["status"] == "PASS":
            print(f"  {name:4} {scene} {label}: import+init {record['import_s'] + record['init_s']:.1f} s, build "
                  f"{record['setup_s'] + record['build_s']:.1f} s, first step {record['first_step_s']:.2f} s, step "
                  f"{record['step_median_s'] * 1e3:.1f} ms ({record['steps']} steps), load {record['load_before']:.1f}",
                  flush=True)
        elif record["status"] == "FAIL":
            print(f"  {name:4} {scene} {label}: FAILED (exit {record['returncode']})\n{record['output_tail']}", flush=True)
    return {"cold": cold, "warm": warm}


def venv_python(variable, default):
    path = os.path.join(os.environ.get(variable) or default, "bin", "python")
    if not os.access(path, os.X_OK):
        raise SystemExit(f"bench_genesis.py: no Python at {path}; set {variable} or run "
                         "`bash scripts/genesis_check.sh --reference --setup-only`.")
    return path


def run(args):
    pythons = {"ours": venv_python("GENESIS_VENV", os.path.join(REPO, "build", "genesis-venv")),
               "ref": venv_python("GENESIS_REF_VENV", os.path.join(REPO, "build", "genesis-ref-venv"))}
    results = {"command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]), "started": time.ctime(),
               "machine": machine_description(), "pythons": pythons, "genesis_cache": args.genesis_cache, "runs": {}}
    args.genesis_cache_dir = None
    if args.genesis_cache == "warm":
        args.genesis_cache_dir = tempfile.mkdtemp(prefix="genesis-bench-own-cache-")
    for index, scene in enumerate(args.scenes):
        results["runs"][scene] = {"ours": [], "ref": []}
        if args.genesis_cache_dir:  # an untimed run fills Genesis' own caches (meshes, SDFs, numba) for this scene
            print(f"{scene}: filling Genesis' own caches (untimed)", flush=True)
            root = tempfile.mkdtemp(prefix="genesis-bench-prime-")
            run_child(pythons["ours"], scene, root, args)
            shutil.rmtree(root, ignore_errors=True)
        for rep in range(args.reps):
            order = ("ours", "ref") if (index + rep) % 2 == 0 else ("ref", "ours")
            print(f"{scene}, repetition {rep + 1}/{args.reps}, {order[0]} first", flush=True)
            for name in order:
                results["runs"][scene][name].append(run_pair(name, pythons[name], scene, args))
            if args.json:  # after every repetition, so an interrupted run keeps what it measured
                save(results, args.json)
    if args.genesis_cache_dir:
        shutil.rmtree(args.genesis_cache_dir, ignore_errors=True)
    results["finished"] = time.ctime()
    results["load_after"] = os.getloadavg()
    return results


def machine_description():
    cores = os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cores": cores, "cpu": model, "load_at_start": os.getloadavg()}


def save(results, path):
    with open(path, "w") as f:
        json.dump(results, f, indent=1)


# (column title, cold or warm run, function of a record giving seconds, shown as ms?). "build" is the scene's
# creation, its add_entity calls and scene.build(); "first step" is what the scene does after the build (PD gains,
# pinned particles) and its first scene.step(), where kernels first called by a step compile.
WALL_METRICS = (
    ("import + gs.init (s)", "warm", lambda r: r["import_s"] + r["init_s"], False),
    ("build cold (s)", "cold", lambda r: r["setup_s"] + r["build_s"], False),
    ("build warm (s)", "warm", lambda r: r["setup_s"] + r["build_s"], False),
    ("first step cold (s)", "cold", lambda r: r["after_build_s"] + r["first_step_s"], False),
    ("step (ms)", "warm", lambda r: r["step_median_s"], True),
)
# The same in CPU seconds (the process and the compilers it waited for): less disturbed by other work on the
# machine, but blind to what overlaps (our spare compiler runs beside the frontend).
CPU_METRICS = (
    ("import + gs.init CPU (s)", "warm", lambda r: r["import_cpu_s"] + r["init_cpu_s"], False),
    ("build cold CPU (s)", "cold", lambda r: r["setup_cpu_s"] + r["build_cpu_s"], False),
    ("build warm CPU (s)", "warm", lambda r: r["setup_cpu_s"] + r["build_cpu_s"], False),
    ("first step cold CPU (s)", "cold", lambda r: r["after_build_cpu_s"] + r["first_step_cpu_s"], False),
    ("step CPU (ms)", "warm", lambda r: r["step_cpu_s"], True),
)


def median_metric(samples, which, fn):
    values = [fn(s[which]) for s in samples if s[which].get("status") == "PASS"]
    return statistics.median(values) if values else None


def cell(ours, ref, as_ms):
    if ours is None or ref is None:
        return "failed"
    scale = 1e3 if as_ms else 1.0
    digits = 1 if (as_ms or ours >= 1) else 2
    return f"{ours * scale:.{digits}f} / {ref * scale:.{digits}f} ({ref / ours:.2f}x)"


def table(results, metrics=WALL_METRICS):
    """Markdown: per scene, ours / 1.3.3 (speedup = 1.3.3 / ours) for each metric, then geometric means."""
    lines = ["| scene | " + " | ".join(m[0] for m in metrics) + " | env-steps/s |",
             "| --- |" + " --- |" * (len(metrics) + 1)]
    ratios = {m[0]: [] for m in metrics}
    for scene, runs in results["runs"].items():
        row = [scene]
        for title, which, fn, as_ms in metrics:
            ours, ref = median_metric(runs["ours"], which, fn), median_metric(runs["ref"], which, fn)
            row.append(cell(ours, ref, as_ms))
            if ours and ref:
                ratios[title].append(ref / ours)
        envs = next((s["warm"].get("n_envs") for s in runs["ours"] if s["warm"].get("status") == "PASS"), 0)
        step = metrics[-1][2]
        ours, ref = (median_metric(runs[k], "warm", step) for k in ("ours", "ref"))
        row.append(f"{envs / ours:.0f} / {envs / ref:.0f}" if envs and ours and ref else "")
        lines.append("| " + " | ".join(row) + " |")
    geo = ["geometric mean of speedups"]
    for title, *_ in metrics:
        values = ratios[title]
        geo.append(f"{math.exp(sum(map(math.log, values)) / len(values)):.2f}x" if values else "")
    lines.append("| " + " | ".join(geo + [""]) + " |")
    return "\n".join(lines)


def load_line(results):
    loads = [s[w]["load_before"] for runs in results["runs"].values() for k in ("ours", "ref") for s in runs[k]
             for w in ("cold", "warm") if "load_before" in s[w]]
    if not loads:
        return ""
    return (f"Load average (1 min) before each run: min {min(loads):.1f}, median {statistics.median(loads):.1f}, "
            f"max {max(loads):.1f}, on {results['machine']['cores']} cores ({results['machine']['cpu']}).")


def report(results):
    return "\n\n".join([f"Command: `{results['command']}`", "Wall time:", table(results), "CPU time:",
                        table(results, CPU_METRICS), load_line(results)])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default=",".join(ALL_SCENES), help="comma-separated, from " + ", ".join(ALL_SCENES))
    parser.add_argument("--reps", type=int, default=3, help="repetitions per scene and implementation (default 3)")
    parser.add_argument("--steps", type=int, default=50, help="timed steady steps, at most (default 50)")
    parser.add_argument("--step-seconds", type=float, default=10.0,
                        help="and at most about this many seconds of them (default 10)")
    parser.add_argument("--genesis-cache", choices=("cold", "warm"), default="cold",
                        help="Genesis' own caches (processed meshes, SDFs, numba's compiled helpers) empty in the cold "
                        "runs as the kernel caches (default), or filled by an untimed run first: the cold figures "
                        "then time the kernel caches alone")
    parser.add_argument("--json", help="write every sample here")
    parser.add_argument("--table", metavar="JSON", help="print the table of a saved run and stop")
    args = parser.parse_args()
    if args.table:
        with open(args.table) as f:
            print(report(json.load(f)))
        return 0
    args.scenes = [s for s in args.scenes.split(",") if s]
    unknown = [s for s in args.scenes if s not in ALL_SCENES]
    if unknown or args.reps < 1:
        parser.error(f"--scenes takes names from {', '.join(ALL_SCENES)} (got {unknown}); --reps must be >= 1")
    results = run(args)
    if args.json:
        save(results, args.json)
    print()
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
