# benchmarks/peers/common.py: what every framework worker shares: workload sizes, input loading, checks, timing.
# Imported by the per-framework scripts inside each peer's own venv, so it needs numpy and the stdlib only.
# A worker measures each workload as: one run, a check of its answer against the numpy reference, warm-up
# runs, then timed repetitions. A wrong answer stops that workload before any timing, so it gets no figure.
import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from workloads import COMPILE_MODES, WORKLOADS

# Sizes shared by every framework and by reference.py; changing one means regenerating the data.
LAUNCH_N = 32
LAUNCH_CALLS = 2000  # calls per timed sample, so the clock's resolution does not matter
TRIAD_N = 1 << 24
TRIAD_SCALE = 3.0
MANDEL_H = MANDEL_W = 1024
MANDEL_ITERS = 256
DIFFUSION_N = 2048
DIFFUSION_STEPS = 100
DIFFUSION_K = 0.2
HIST_N = 1 << 24
HIST_BINS = 256
COPY_N = (64 << 20) // 4  # 64 MiB of f32
PROBE_N = 1024
GRAD_N = 1 << 24  # loss = sum(a * x * x) and its gradient 2 * a * x over x


# Mandelbrot pixels on the set's boundary may take a different iteration count under another
# rounding or contraction order, so a small share of differing pixels is allowed; a wrong kernel
# differs almost everywhere.
MANDEL_MAX_DIFFERING = 0.005
# A warm-up run slower than this (seconds) ends the warm-up and is kept as a sample.
SLOW_RUN_S = 0.25


@dataclass
class Case:
    """One workload as a framework runs it: `run` executes it once (synchronised), `result` returns
    what it computed as numpy arrays for the check, `calls` is how many operations one run makes."""

    run: Callable[[], None]
    result: Callable[[], dict]
    calls: int = 1


class Inputs(dict):
    """The inputs and references that reference.py wrote, one .npy file per name, each loaded on
    first use so a worker reads only what its workloads need."""

    def __init__(self, data_dir: str):
        super().__init__()
        self.data_dir = data_dir

    def __missing__(self, name: str) -> np.ndarray:
        self[name] = np.load(os.path.join(self.data_dir, name + ".npy"))
        return self[name]


def load_inputs(data_dir: str) -> Inputs:
    return Inputs(data_dir)


def probe_reference(x: np.ndarray) -> np.ndarray:
    """What the compile probe kernel computes, in float64 (the check allows f32 rounding)."""
    v = x.astype(np.float64)
    acc = np.zeros_like(v)
    for k in range(8):
        acc += np.sin(v * k) * np.cos(v + k)
    return np.sqrt(np.abs(acc)) + np.exp(-v * v)


def probe_input() -> np.ndarray:
    return np.linspace(-2.0, 2.0, PROBE_N, dtype=np.float32)


def check(workload: str, got: dict, data: dict) -> Optional[str]:
    """Compares a workload's output with the numpy reference; returns why it is wrong, or None."""
    if workload in ("launch", "launch_numpy"):
        return _compare_close("y", got["y"], data["launch_x"] ** 2, 1e-6)
    if workload == "triad":
        return _compare_close("a", got["a"], data["triad_ref"], 1e-6)
    if workload == "mandelbrot":
        image = np.asarray(got["image"]).reshape(MANDEL_H, MANDEL_W)
        differing = float(np.mean(image != data["mandel_ref"]))
        if differing > MANDEL_MAX_DIFFERING:
            return f"{differing:.2%} of pixels differ from the numpy reference (at most {MANDEL_MAX_DIFFERING:.2%} allowed)"
        return None
    if workload == "diffusion":
        return _compare_close("u", got["u"], data["diffusion_ref"], 1e-4)
    if workload == "histogram":
        bins = np.asarray(got["bins"]).astype(np.int64)
        if not np.array_equal(bins, data["hist_ref"]):
            return f"histogram differs from numpy in {int(np.sum(bins != data['hist_ref']))} of {HIST_BINS} bins"
        return None
    if workload in ("from_numpy", "to_numpy"):
        if not np.array_equal(np.asarray(got["copy"]).ravel(), data["copy_src"]):
            return "the copied array differs from the source"
        return None
    if workload == "grad":
        # the loss is a sum of 2^24 f32 terms accumulated in f32 in an order each framework picks (Warp's CPU
        # adds them one by one: 3% off), so it gets a loose bound; the gradient is elementwise and strict
        return (_compare_close("loss", np.ravel(got["loss"])[:1], data["grad_loss"], 0.05)
                or _compare_close("x.grad", got["grad"], data["grad_ref"], 1e-5))
    if workload in COMPILE_MODES:
        return _compare_close("y", got["y"], probe_reference(probe_input()), 1e-4)
    raise ValueError(f"check(): unknown workload {workload!r}")


def _compare_close(name: str, got, want: np.ndarray, tolerance: float) -> Optional[str]:
    got = np.asarray(got, dtype=np.float64).reshape(want.shape)
    error = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    worst = float(np.max(error)) if error.size else 0.0
    if not np.isfinite(worst) or worst > tolerance:
        return f"{name} differs from numpy by up to {worst:.3g} (relative), more than the {tolerance:g} allowed"
    return None


def time_case(case: Case, reps: int, warmup: int, budget_s: float) -> list:
    """Times up to `reps` runs after up to `warmup` discarded ones and returns seconds per operation
    for each. A warm-up run slower than SLOW_RUN_S ends the warm-up and counts as a sample, since
    such work dwarfs any warm-up effect (the checked run before it already compiled and touched
    memory). Stops early, after at least one sample, once `budget_s` is spent."""
    samples = []
    warming = warmup
    started = time.perf_counter()
    while len(samples) < reps:
        t0 = time.perf_counter()
        case.run()
        elapsed = time.perf_counter() - t0
        if warming > 0 and elapsed < SLOW_RUN_S:
            warming -= 1
            continue
        warming = 0
        samples.append(elapsed / case.calls)
        if time.perf_counter() - started > budget_s:
            break
    return samples


def measure(workload: str, make_case: Callable[[dict], Case], data: dict, args) -> dict:
    """Builds, checks and times one workload, turning any failure into a recorded status."""
    try:
        case = make_case(data)
        case.run()
        wrong = check(workload, case.result(), data)
        if wrong:
            return {"status": "wrong", "note": wrong}
        samples = time_case(case, args.reps, args.warmup, args.budget)
        return {"status": "ok", "samples": samples}
    except Exception as error:  # a peer's failure is a result to report, not a reason to stop
        traceback.print_exc()
        return {"status": "error", "note": describe(error)}


def measure_compile(mode: str, warm_up: Callable[[], None], probe: Callable[[], dict]) -> dict:
    """Times the first call of the probe kernel in this process, after `warm_up` has paid the
    framework's one-time start-up with another kernel, and checks what the probe computed."""
    try:
        warm_up()
        t0 = time.perf_counter()
        got = probe()
        elapsed = time.perf_counter() - t0
        wrong = check(mode, got, {})
        if wrong:
            return {"status": "wrong", "note": wrong}
        return {"status": "ok", "samples": [elapsed]}
    except Exception as error:
        traceback.print_exc()
        return {"status": "error", "note": describe(error)}


def describe(error: Exception) -> str:
    """One line for the results table: the error's type and the last line of its message, which is
    where Taichi-style compilers put the cause after the source excerpt."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1] if lines else ''}"[:300]


def measure_all(args, cases: dict, not_applicable: dict) -> dict:
    """Measures each workload named by --workloads: `cases` maps names to Case builders, and
    `not_applicable` maps the names this framework has no counterpart for to the reason."""
    data = load_inputs(args.data)
    results = {}
    for name in args.workloads.split(","):
        if name in not_applicable:
            results[name] = {"status": "n/a", "note": not_applicable[name]}
        else:
            results[name] = measure(name, cases[name], data, args)
    return results


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="One framework's benchmark worker (started by run.py).")
    parser.add_argument("--data", required=True, help="folder of inputs and references from reference.py")
    parser.add_argument("--out", required=True, help="JSON file to write the results to")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--compile", choices=COMPILE_MODES, help="time the compile probe instead")
    parser.add_argument("--cache-dir", help="kernel cache folder for --compile")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--budget", type=float, default=4.0, help="seconds of timed runs per workload")
    parser.add_argument("--label", help="name to report (for one script serving several frameworks)")
    return parser.parse_args()


def write_results(args, framework: str, version: str, results: dict, notes: dict) -> None:
    """Writes the worker's answer; notes record how the framework ran (threads, backend)."""
    payload = {"framework": framework, "version": version, "results": results, "notes": notes,
               "python": sys.version.split()[0]}
    with open(args.out, "w") as handle:
        json.dump(payload, handle)
