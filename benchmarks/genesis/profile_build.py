# benchmarks/genesis/profile_build.py: where a cold Genesis scene build spends its time on our quadrants: Genesis'
# Python, our frontend (AST -> IR text), and the C++ core (passes, code generation, compiler, link, load), per kernel.
"""Profiles one scene's cold build and first step on our quadrants (run it with the ours venv's Python).

    python profile_build.py --scene rigid --out DIR [--cprofile]
    python profile_build.py --replay DIR                     # split each kernel's C++ time (see below)

The first form runs the scene with every cache in a fresh temporary folder (as bench_genesis.py's cold run) and
wraps two functions, which costs microseconds a call: KernelDefinition.translate (our frontend: the kernel's Python
AST to IR text) and _core.compile_kernel (parse, passes, C++ generation, compiler, link, load; through the disk
cache). Per kernel it records the phase (build, after_build, first step), both times, and the IR and C++ sizes, and
saves each IR text in DIR/ir/. --cprofile also runs the build under cProfile and sums each function's own time by
package (Genesis, quadrants, torch, ...); the profiler slows Python down, so its shares are read beside the plain
run's wall times. Writes DIR/profile.json and prints a summary.

--replay DIR compiles the saved IR texts again, one by one in this process, into an empty cache: parse + passes
(_core.run_passes), the whole compile_kernel (cold), compile_kernel again (warm: parse, passes, C++ generation,
hashing, verified load), and the system compiler alone on the generated C++ (the same flags, -c, an object file),
beside the runtime header compiled alone. From these: passes, generation + load, compiler, link + store.
"""
import argparse
import collections
import cProfile
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")


def fresh_caches():
    root = tempfile.mkdtemp(prefix="genesis-profile-")
    for name in ("QD_CACHE_DIR", "QD_OFFLINE_CACHE_FILE_PATH", "GS_CACHE_FILE_PATH"):
        os.environ.pop(name, None)
    os.environ["XDG_CACHE_HOME"] = os.path.join(root, "xdg")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(root, "numba")
    return root


def cpu_seconds():
    """CPU time of this process and of the children it has waited for (compilers), user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Recorder:
    """Wraps the frontend's translate and _core.compile_kernel; one entry per compiled kernel."""

    def __init__(self, ir_dir):
        self.ir_dir = ir_dir
        self.phase = "import"
        self.kernels = []
        self.frontend = collections.defaultdict(float)  # phase -> seconds in translate
        self.frontend_cpu = collections.defaultdict(float)  # phase -> CPU seconds in translate
        self.translations = collections.Counter()
        self.last_translation_cpu = 0.0  # the translation that the next compile_kernel compiles

    def install(self):
        from quadrants.runtime import _core
        from quadrants.kernels import definition as kernels

        translate = kernels.KernelDefinition.translate
        compile_kernel = _core.compile_kernel
        recorder = self

        def timed_translate(definition, *args, **kwargs):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return translate(definition, *args, **kwargs)
            finally:
                recorder.frontend[recorder.phase] += time.perf_counter() - t0
                recorder.frontend_cpu[recorder.phase] += time.process_time() - c0
                recorder.last_translation_cpu = time.process_time() - c0
                recorder.translations[recorder.phase] += 1

        def timed_compile(text):
            t0, c0 = time.perf_counter(), cpu_seconds()
            compiled = compile_kernel(text)
            seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            index = len(recorder.kernels)
            with open(os.path.join(recorder.ir_dir, f"{index:04d}.ir"), "w") as f:
                f.write(text)
            recorder.kernels.append({"index": index, "name": compiled.name, "phase": recorder.phase,
                                     "compile_s": seconds, "compile_cpu_s": cpu,
                                     "frontend_cpu_s": recorder.last_translation_cpu, "ir_bytes": len(text), "cpp_bytes": len(compiled.source)})
            return compiled

        kernels.KernelDefinition.translate = timed_translate
        _core.compile_kernel = timed_compile


def package_of(filename):
    """The package a profiled function's file belongs to, by the last known package folder in its path (a
    checkout folder named genesis holds our quadrants too)."""
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins"
    if os.path.abspath(filename).startswith(HERE):
        return "this profiler"
    parts = filename.split(os.sep)
    for part in reversed(parts[:-1]):
        if part in ("genesis", "quadrants", "torch", "numpy", "trimesh", "scipy", "coacd", "numba"):
            return part
    return "other python" if filename.endswith(".py") else "other"


def own_time_by_package(profile):
    """Seconds of own time (cProfile's tottime) per package; C functions by name when they matter here."""
    totals = collections.Counter()
    for (filename, _, function), (_, _, tottime, _, _) in pstats.Stats(profile).stats.items():
        if filename == "~" and "compile_kernel" in function:
            totals["_core.compile_kernel (C++)"] += tottime
        elif filename == "~" and "quadrants.runtime._core" in function:
            totals["other _core calls (C++: launches, allocations)"] += tottime
        elif filename == "~" and "torch" in function:
            totals["torch (C)"] += tottime
        else:
            totals[package_of(filename)] += tottime
    return dict(totals.most_common())


def profile_scene(args):
    os.makedirs(os.path.join(args.out, "ir"), exist_ok=True)
    cache_root = fresh_caches()
    sys.path.insert(0, SCRIPTS)
    import genesis_scenes

    times = {}
    clock = [time.perf_counter(), cpu_seconds()]

    def lap(phase):  # the wall and CPU seconds since the last lap, as times[phase + "_s" / "_cpu_s"]
        now = [time.perf_counter(), cpu_seconds()]
        times[f"{phase}_s"], times[f"{phase}_cpu_s"] = now[0] - clock[0], now[1] - clock[1]
        clock[:] = now

    import genesis  # noqa: F401
    import quadrants

    recorder = Recorder(os.path.join(args.out, "ir"))
    recorder.install()
    lap("import")
    recorder.phase = "init"
    gs = genesis_scenes.init_genesis()
    lap("init")
    # CPU time, not wall time: other work on the machine then inflates nothing.
    profiler = cProfile.Profile(time.process_time) if args.cprofile else None
    recorder.phase = "setup"  # gs.Scene() and add_entity: Genesis loads and processes the meshes
    if profiler:
        profiler.enable()
    setup = genesis_scenes.make_scene(gs, args.scene)
    lap("setup")
    recorder.phase = "build"
    setup.scene.build(**setup.build_kwargs)
    if profiler:
        profiler.disable()
    lap("build")
    recorder.phase = "after_build"
    if setup.after_build:
        setup.after_build()
    lap("after_build")
    recorder.phase = "first_step"
    setup.scene.step()
    lap("first_step")
    result = {"scene": args.scene, "quadrants": quadrants.__version__, "cprofile": args.cprofile, "times": times,
              "frontend_s": dict(recorder.frontend),
              "frontend_cpu_s": dict(recorder.frontend_cpu), "translations": dict(recorder.translations),
              "kernels": recorder.kernels}
    if profiler:
        path = os.path.join(args.out, "build.prof")
        profiler.dump_stats(path)
        result["own_time_by_package"] = own_time_by_package(path)
    with open(os.path.join(args.out, "profile.json"), "w") as f:
        json.dump(result, f, indent=1)
    shutil.rmtree(cache_root, ignore_errors=True)
    print_summary(result)


def print_summary(result):
    times = result["times"]
    print(f"{result['scene']}: import {times['import_s']:.1f} s, gs.init {times['init_s']:.1f} s"
          + (" (setup and build under cProfile)" if result["cprofile"] else ""))
    for phase in ("setup", "build", "after_build", "first_step"):
        ks = [k for k in result["kernels"] if k["phase"] == phase]
        wall, cpu = times[f"{phase}_s"], times[f"{phase}_cpu_s"]
        front = result["frontend_s"].get(phase, 0.0)
        front_cpu = result["frontend_cpu_s"].get(phase, 0.0)
        cpp = sum(k["compile_s"] for k in ks)
        cpp_cpu = sum(k["compile_cpu_s"] for k in ks)
        print(f"  {phase}: {wall:.1f} s (CPU {cpu:.1f} s) = frontend {front:.1f} s (CPU {front_cpu:.1f} s; "
              f"{result['translations'].get(phase, 0)} translations) + C++ compile_kernel {cpp:.1f} s (CPU "
              f"{cpp_cpu:.1f} s; {len(ks)} kernels) + the rest {wall - front - cpp:.1f} s")
    slow = sorted(result["kernels"], key=lambda k: -k["compile_s"])[:8]
    print("  slowest compiles: " + ", ".join(f"{k['name']} {k['compile_s']:.2f} s ({k['cpp_bytes'] // 1024} KiB C++)"
                                             for k in slow))
    if "own_time_by_package" in result:
        print("  own time by package under cProfile (build only): " +
              ", ".join(f"{name} {s:.1f} s" for name, s in result["own_time_by_package"].items() if s >= 0.05))


def timed(fn, *args):
    """(wall seconds, CPU seconds of this process and its waited-for children) of fn(*args), and its result."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    result = fn(*args)
    return time.perf_counter() - t0, cpu_seconds() - c0, result


def run_compiler(source, workdir, flags):
    """The system compiler alone on `source`, to an object file, with `flags`."""
    path = os.path.join(workdir, "kernel.cpp")
    with open(path, "w") as f:
        f.write(source)
    subprocess.run([os.environ.get("CXX", "c++"), *flags, "-c", "-x", "c++", path, "-o", path + ".o"], check=True)


BASE_FLAGS = ["-march=native", "-std=c++17", "-fPIC", "-fno-exceptions", "-fno-rtti", "-pipe"]
FAST_MATH_FLAGS = ["-fno-math-errno", "-ffinite-math-only", "-fno-signed-zeros", "-fno-trapping-math",
                   "-fassociative-math", "-freciprocal-math", "-fno-rounding-math", "-fcx-limited-range"]


def replay(args):
    """Splits each saved kernel's compile into passes, generation + load, compiler, and link + store."""
    from quadrants.runtime import _core

    ir_files = sorted(f for f in os.listdir(os.path.join(args.replay, "ir")) if f.endswith(".ir"))
    work = tempfile.mkdtemp(prefix="genesis-replay-")
    os.environ["QD_CACHE_DIR"] = os.path.join(work, "cache")
    rows, source = [], ""
    for name in ir_files:
        with open(os.path.join(args.replay, "ir", name)) as f:
            text = f.read()
        passes = timed(_core.run_passes, text)
        cold = timed(_core.compile_kernel, text)
        warm = timed(_core.compile_kernel, text)
        source = cold[2].source
        level = "-O1" if len(source) > (1 << 20) else "-O3"
        flags = [level] + BASE_FLAGS + (FAST_MATH_FLAGS if "(fast_math 1)" in text else [])
        compiler = timed(run_compiler, source, work, flags) if not args.no_compiler else (0.0, 0.0, None)
        row = {"ir": name, "name": cold[2].name, "ir_bytes": len(text), "cpp_bytes": len(source)}
        for level in args.levels.split(",") if args.levels else []:  # the compiler alone at other levels
            row[f"compiler{level}_cpu_s"] = timed(run_compiler, source, work, [level] + flags[1:])[1]
        for label, value in (("passes", passes), ("cold", cold), ("warm", warm), ("compiler", compiler)):
            row[f"{label}_s"], row[f"{label}_cpu_s"] = value[0], value[1]
        rows.append(row)
        print(f"{name} {row['name']}: passes {passes[1] * 1e3:.0f} ms, warm {warm[1] * 1e3:.0f} ms, cold "
              f"{cold[1]:.2f} s, compiler alone {compiler[1]:.2f} s (CPU), {len(source) // 1024} KiB", flush=True)
    # The runtime header alone, as every generated kernel starts with it: the fixed part of each compile.
    marker = "#endif  // QD_RUNTIME_H\n"
    header = source[:source.find(marker) + len(marker)] if marker in source else ""
    header_cpu = timed(run_compiler, header, work, ["-O3"] + BASE_FLAGS)[1] if header and not args.no_compiler else 0
    summary = {"kernels": len(rows), "runtime_header_alone_cpu_s": header_cpu}
    for key in ("passes_cpu_s", "warm_cpu_s", "cold_cpu_s", "compiler_cpu_s", "cold_s") + tuple(
            f"compiler{level}_cpu_s" for level in (args.levels.split(",") if args.levels else [])):
        summary[key] = sum(r[key] for r in rows)
    summary["generate_and_load_cpu_s"] = summary["warm_cpu_s"] - summary["passes_cpu_s"]
    summary["link_store_rest_cpu_s"] = summary["cold_cpu_s"] - summary["warm_cpu_s"] - summary["compiler_cpu_s"]
    with open(os.path.join(args.replay, "replay.json"), "w") as f:
        json.dump({"summary": summary, "kernels": rows}, f, indent=1)
    print(json.dumps(summary, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scene")
    parser.add_argument("--out", help="folder for profile.json, build.prof and ir/")
    parser.add_argument("--cprofile", action="store_true")
    parser.add_argument("--by-package", metavar="PROF", help="print own time by package of a saved build.prof")
    parser.add_argument("--replay", metavar="DIR", help="replay the IR saved in DIR/ir")
    parser.add_argument("--no-compiler", action="store_true", help="--replay without timing the compiler alone")
    parser.add_argument("--levels", help="--replay also times the compiler alone at these levels, e.g. -O0,-O1,-O2")
    args = parser.parse_args()
    if args.replay:
        return replay(args)
    if args.by_package:
        print(json.dumps(own_time_by_package(args.by_package), indent=1))
        return 0
    if not (args.scene and args.out):
        parser.error("give --scene and --out (or --replay DIR)")
    return profile_scene(args)


if __name__ == "__main__":
    sys.exit(main())
