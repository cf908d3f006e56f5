# benchmarks/bench_compile.py: `import quadrants` time, cold first call and warm-cache first call, each in a new process.
"""Measures what a user waits for before a kernel's first result, every sample in a fresh subprocess.

- import: `import quadrants` alone.
- cold first call: a kernel never compiled before (a new, empty QD_CACHE_DIR): frontend, passes,
  code generation, the C++ compiler and dlopen. Target: at most 300 ms.
- warm first call: the same kernel in a new process over the cache the cold run filled: frontend,
  passes, code generation, cache hit and dlopen, no compiler. Target: at most 20 ms.
The first-call times exclude import and qd.init. The child is a script file, not `python -c`, since the
frontend reads kernel source through inspect. A warm run that wrote any new file into the cache (a
compiled library) is counted in the table, so a warm run that compiled is caught rather than hidden.

Usage: python benchmarks/bench_compile.py [--reps N]
       python benchmarks/bench_compile.py --translation-cache N   # warm first call, frontend vs translation cache

--translation-cache N: one cold run fills a cache, then N warm runs with QD_TRANSLATION_CACHE=0 (the Python frontend
translates the kernel, as before issue 31's translation cache) and N with the cache on, alternating which goes first.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# The probe: a 4-argument clamped saxpy and its inputs (bench_first_call_ab.py times the same kernel).
PROBE = r"""
@qd.kernel
def saxpy_clamped(out: qd.types.ndarray(), x: qd.types.ndarray(), y: qd.types.ndarray(), a: qd.f32):
    for i in out:
        v = a * x[i] + y[i]
        out[i] = qd.max(v, 0.0)

x = np.arange(64, dtype=np.float32)
y = np.ones(64, dtype=np.float32)
out = np.empty(64, dtype=np.float32)
"""

# Runs in the child process; prints one JSON line of seconds.
CHILD = r"""
import json, time
start = time.perf_counter()
import quadrants as qd
imported = time.perf_counter()
import numpy as np
qd.init(arch=qd.cpu)
""" + PROBE + r"""
called = time.perf_counter()
saxpy_clamped(out, x, y, 2.0)
done = time.perf_counter()
assert out[3] == 7.0, out[3]
print(json.dumps({"import": imported - start, "first_call": done - called}))
"""


def run_child(script, cache_dir):
    """The child's JSON result and the number of files it added to cache_dir."""
    before = set(os.listdir(cache_dir))
    env = dict(os.environ, QD_CACHE_DIR=cache_dir)
    result = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"bench_compile: the child process failed:\n{result.stderr}")
    added = len(set(os.listdir(cache_dir)) - before)
    return json.loads(result.stdout.strip().splitlines()[-1]), added


def measure(reps):
    """Lists of samples: import seconds, cold and warm first-call seconds, and cache files each added."""
    imports, cold, warm, cold_added, warm_added = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="qd_bench_compile_") as work:
        script = os.path.join(work, "first_call.py")
        with open(script, "w") as out:
            out.write(CHILD)
        for rep in range(reps):
            cache_dir = os.path.join(work, f"cache{rep}")
            os.mkdir(cache_dir)
            first, added_cold = run_child(script, cache_dir)
            second, added_warm = run_child(script, cache_dir)
            imports += [first["import"], second["import"]]
            cold.append(first["first_call"])
            warm.append(second["first_call"])
            cold_added.append(added_cold)
            warm_added.append(added_warm)
    return imports, cold, warm, cold_added, warm_added


def markdown_table(imports, cold, warm, cold_added, warm_added):
    def row(label, samples, target, runs):
        median = statistics.median(samples) * 1e3
        verdict = "-" if target is None else ("met" if median <= target else "missed")
        target_text = "-" if target is None else f"<= {target} ms"
        return (f"| {label} | {median:.1f} | {min(samples) * 1e3:.1f} | {max(samples) * 1e3:.1f} | {runs} | "
                f"{target_text} | {verdict} |")

    return "\n".join([
        f"| phase ({len(cold)} cold/warm pairs of fresh processes) | median ms | min ms | max ms | cache files added | target | |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
        row("import quadrants", imports, None, "-"),
        row("cold first call (empty QD_CACHE_DIR)", cold, 300, sum(cold_added)),
        row("warm-cache first call (new process)", warm, 20, sum(warm_added)),
    ])


def compare_translation_cache(reps):
    """Warm first-call samples (ms) with the translation cache off and on, alternating, over one filled cache."""
    samples = {"0": [], "1": []}
    added = 0
    with tempfile.TemporaryDirectory(prefix="qd_bench_compile_") as work:
        script = os.path.join(work, "first_call.py")
        with open(script, "w") as out:
            out.write(CHILD)
        cache_dir = os.path.join(work, "cache")
        os.mkdir(cache_dir)
        run_child(script, cache_dir)
        for rep in range(reps):
            for mode in ("0", "1") if rep % 2 == 0 else ("1", "0"):
                os.environ["QD_TRANSLATION_CACHE"] = mode
                result, files = run_child(script, cache_dir)
                samples[mode].append(result["first_call"] * 1e3)
                added += files
    lines = [f"| warm-cache first call ({reps} new processes each) | median ms | min ms | max ms |",
             "| --- | ---: | ---: | ---: |"]
    for mode, label in (("0", "frontend (`QD_TRANSLATION_CACHE=0`)"), ("1", "translation cache")):
        values = samples[mode]
        lines.append(f"| {label} | {statistics.median(values):.2f} | {min(values):.2f} | {max(values):.2f} |")
    lines.append(f"\nFiles the warm runs added to the cache: {added}; load average {os.getloadavg()[0]:.1f}.")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="cold/warm process pairs (medians reported)")
    parser.add_argument("--translation-cache", type=int, metavar="N",
                        help="instead: N warm first calls with the translation cache off and N with it on")
    args = parser.parse_args()
    if args.translation_cache:
        print(compare_translation_cache(args.translation_cache))
        return
    print(markdown_table(*measure(args.reps)))


if __name__ == "__main__":
    main()
