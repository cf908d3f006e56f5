# benchmarks/peers/run.py: runs every workload on every framework and writes RESULTS.md, results.json and ratios.png.
# Each framework runs in its own subprocess with its own venv (setup_envs.sh builds them); the order of
# frameworks rotates every round so slow drift on a shared machine does not favour one of them.
# Only the standard library is used here: numpy work happens in the workers and in reference.py.
# Usage: python benchmarks/peers/run.py [--quick] [--frameworks a,b] [--workloads x,y] [--rounds N]
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

import report
from workloads import COMPILE_MODES, WORKLOADS

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ENVS = os.path.join(HERE, ".envs")
BASE_PYTHON = os.path.join(ENVS, "base", "bin", "python")
WORKER_TIMEOUT_S = 420
# the 1-minute load average as each worker starts: how busy the shared machine was, for the report
LOAD_SEEN = []


@dataclass
class Framework:
    name: str
    python: str
    script: str
    env: str  # the setup_envs.sh environment it needs, or "" for ours
    compiles: bool = True

    def missing(self) -> Optional[str]:
        """Why this framework cannot run at all, or None."""
        failed = os.path.join(ENVS, self.env + ".failed")
        if self.env and os.path.exists(failed):
            return f"its environment failed to install (see benchmarks/peers/.envs/{self.env}.failed)"
        if not os.path.exists(self.python):
            hint = "bash scripts/build.sh" if not self.env else f"bash benchmarks/peers/setup_envs.sh {self.env}"
            return f"{self.python} does not exist; run {hint}"
        return None


FRAMEWORKS = [
    Framework("quadrants", os.path.join(REPO, ".venv", "bin", "python"), "fw_taichi_family.py", ""),
    Framework("quadrants_real", os.path.join(ENVS, "quadrants_real", "bin", "python"), "fw_taichi_family.py", "quadrants_real"),
    Framework("taichi", os.path.join(ENVS, "taichi", "bin", "python"), "fw_taichi_family.py", "taichi"),
    Framework("warp", os.path.join(ENVS, "warp", "bin", "python"), "fw_warp.py", "warp"),
    Framework("numba", os.path.join(ENVS, "numba", "bin", "python"), "fw_numba.py", "numba"),
    Framework("numpy", BASE_PYTHON, "fw_numpy.py", "base", compiles=False),
    Framework("torch", BASE_PYTHON, "fw_torch.py", "base", compiles=False),
]

# rounds, timed repetitions per workload and process, discarded warm-up runs, seconds of timing per workload
SETTINGS = {
    "full": {"rounds": 3, "reps": 5, "warmup": 2, "budget": 3.0},
    # quick: the checked run is the only warm-up, one timed run after it
    "quick": {"rounds": 1, "reps": 1, "warmup": 0, "budget": 0.0},
}


def run_worker(framework: Framework, extra: list, data_dir: str, log_name: str) -> dict:
    """Runs one worker subprocess and returns its results, or a whole-process failure for each
    workload it was asked for."""
    out = os.path.join(ENVS, "logs", log_name + ".json")
    log = os.path.join(ENVS, "logs", log_name + ".log")
    command = [framework.python, os.path.join(HERE, framework.script), "--label", framework.name,
               "--data", data_dir, "--out", out] + extra
    if os.path.exists(out):
        os.remove(out)
    LOAD_SEEN.append(os.getloadavg()[0])
    started = time.perf_counter()
    with open(log, "w") as handle:
        try:
            code = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, cwd=HERE,
                                  timeout=WORKER_TIMEOUT_S).returncode
        except subprocess.TimeoutExpired:
            code = f"timed out after {WORKER_TIMEOUT_S} s"
    print(f"  {log_name:<36} {time.perf_counter() - started:6.1f} s", flush=True)
    if os.path.exists(out):
        with open(out) as handle:
            return json.load(handle)
    return {"process_error": f"worker exited with {code}: {last_line(log)}"}


def last_line(path: str) -> str:
    with open(path, errors="replace") as handle:
        lines = [line.strip() for line in handle if line.strip()]
    return lines[-1][:300] if lines else "no output"


def merge(store: dict, framework: str, answer: dict, workloads: list) -> None:
    """Adds one worker's answer to the store: samples are pooled over rounds; a wrong answer in any
    round is kept, since a framework that computes a wrong answer gets no figure."""
    entry = store.setdefault(framework, {"version": None, "notes": {}, "results": {}})
    if "process_error" in answer:
        answer = {"results": {name: {"status": "error", "note": answer["process_error"]} for name in workloads}}
    else:
        entry["version"] = answer["version"]
        entry["notes"] = answer["notes"]
    for name, result in answer["results"].items():
        pooled = entry["results"].setdefault(name, {"status": None, "samples": [], "notes": [], "rounds": 0})
        pooled["rounds"] += 1
        pooled["samples"] += result.get("samples", [])
        if result.get("note") and result["note"] not in pooled["notes"]:
            pooled["notes"].append(result["note"])
        if result["status"] == "wrong" or pooled["status"] == "wrong":
            pooled["status"] = "wrong"
        elif result["status"] == "ok" or pooled["status"] == "ok":
            pooled["status"] = "ok"
        else:
            pooled["status"] = result["status"]


def run_round(index: int, frameworks: list, workloads: list, with_compile: bool, settings: dict, data_dir: str,
              store: dict) -> None:
    shift = index % len(frameworks)
    order = frameworks[shift:] + frameworks[:shift]
    extra = ["--workloads", ",".join(workloads), "--reps", str(settings["reps"]),
             "--warmup", str(settings["warmup"]), "--budget", str(settings["budget"])]
    for framework in order if workloads else []:
        merge(store, framework.name, run_worker(framework, extra, data_dir, f"round{index}-{framework.name}"), workloads)
    compilers = [framework for framework in order if framework.compiles]
    caches = {framework.name: tempfile.mkdtemp(prefix=f"qd-peers-{framework.name}-") for framework in compilers}
    try:
        # all cold runs first, then all warm ones, so each warm process finds a cache another process wrote
        for mode in COMPILE_MODES if with_compile else []:
            for framework in compilers:
                extra = ["--compile", mode, "--cache-dir", caches[framework.name]]
                answer = run_worker(framework, extra, data_dir, f"round{index}-{framework.name}-{mode}")
                merge(store, framework.name, answer, [mode])
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)


def machine() -> dict:
    model = "unknown CPU"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cores": os.cpu_count(), "cpu": model, "python": sys.version.split()[0]}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Side-by-side benchmarks of quadrants against its peers.")
    parser.add_argument("--quick", action="store_true", help="one short round (about 2 minutes)")
    parser.add_argument("--frameworks", default=",".join(f.name for f in FRAMEWORKS))
    parser.add_argument("--workloads", default=",".join(WORKLOADS + ["compile"]))
    parser.add_argument("--rounds", type=int, help="override the number of rounds")
    parser.add_argument("--output", default=HERE, help="folder for RESULTS.md, results.json and ratios.png")
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: rewrite RESULTS.md and ratios.png from the folder's results.json")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.render_only:
        render(args.output)
        return
    settings = dict(SETTINGS["quick" if args.quick else "full"])
    if args.rounds:
        settings["rounds"] = args.rounds
    known = {framework.name: framework for framework in FRAMEWORKS}
    unknown = [name for name in args.frameworks.split(",") if name not in known]
    if unknown:
        sys.exit(f"run.py: --frameworks names {unknown}, but the frameworks are {sorted(known)}")
    chosen = [known[name] for name in args.frameworks.split(",")]
    requested = args.workloads.split(",")
    unknown = [name for name in requested if name not in WORKLOADS + ["compile"]]
    if unknown:
        sys.exit(f"run.py: --workloads names {unknown}, but the workloads are {WORKLOADS + ['compile']}")
    workloads = [name for name in requested if name != "compile"]
    with_compile = "compile" in requested
    all_workloads = workloads + (COMPILE_MODES if with_compile else [])
    if not os.path.exists(BASE_PYTHON):
        sys.exit("run.py: the base environment is missing; run bash benchmarks/peers/setup_envs.sh first")
    os.makedirs(os.path.join(ENVS, "logs"), exist_ok=True)
    os.makedirs(args.output, exist_ok=True)
    started = time.perf_counter()
    data_dir = os.path.join(ENVS, "data")
    print("preparing inputs and numpy references", flush=True)
    subprocess.run([BASE_PYTHON, os.path.join(HERE, "reference.py"), data_dir], check=True, cwd=HERE)
    store = {}
    runnable = []
    for framework in chosen:
        reason = framework.missing()
        if reason:
            store[framework.name] = {"version": None, "notes": {}, "not_run": reason, "results": {}}
        else:
            runnable.append(framework)
    for index in range(settings["rounds"]):
        print(f"round {index + 1} of {settings['rounds']}", flush=True)
        run_round(index, runnable, workloads, with_compile, settings, data_dir, store)
    for framework in runnable if with_compile else []:
        if not framework.compiles:
            for mode in COMPILE_MODES:
                framework_results = store.setdefault(framework.name, {"version": None, "notes": {}, "results": {}})["results"]
                framework_results[mode] = {"status": "n/a", "samples": [], "rounds": 0,
                                           "notes": [f"{framework.name} compiles nothing"]}
    command = "python benchmarks/peers/run.py" + (" --quick" if args.quick else "")
    meta = {"command": command, "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "machine": machine(), "settings": settings, "wall_s": round(time.perf_counter() - started, 1),
            "frameworks": [framework.name for framework in chosen], "workloads": all_workloads,
            "load_average": [min(LOAD_SEEN, default=0.0), max(LOAD_SEEN, default=0.0)]}
    with open(os.path.join(args.output, "results.json"), "w") as handle:
        json.dump({"meta": meta, "frameworks": store}, handle, indent=1)
    render(args.output)
    print(f"done in {time.perf_counter() - started:.0f} s")


def render(output: str) -> None:
    """Writes RESULTS.md and ratios.png from output/results.json."""
    results_path = os.path.join(output, "results.json")
    with open(results_path) as handle:
        results = json.load(handle)
    report.write_markdown(os.path.join(output, "RESULTS.md"), results["meta"], results["frameworks"])
    if os.path.abspath(output) == HERE:
        # only the checked-in results speak for the README
        report.update_readme(os.path.join(REPO, "README.md"), results["meta"], results["frameworks"])
    plotted = subprocess.run([BASE_PYTHON, os.path.join(HERE, "plot.py"), results_path, os.path.join(output, "ratios.png")],
                             cwd=HERE).returncode
    print("wrote RESULTS.md" + (" and ratios.png" if plotted == 0 else "; the chart failed"))


if __name__ == "__main__":
    main()
