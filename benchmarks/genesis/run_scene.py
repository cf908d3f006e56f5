# benchmarks/genesis/run_scene.py: one Genesis scene timed phase by phase in this process (a child of
# bench_genesis.py, run by the venv of the quadrants under test); prints one JSON record.
"""Times one scene of scripts/genesis_scenes.py: import genesis, gs.init, scene set-up and build, first step, then
steady steps; each phase's wall time and CPU time (this process and the compilers it waited for). Caches are
whatever the environment points at: bench_genesis.py sets them.

    python run_scene.py --scenes-dir SCRIPTS --scene rigid [--steps 50] [--step-seconds 10] [--json out.json]
    QD_KERNEL_PROFILER=1 python run_scene.py ... --kernel-profile   # also the kernel profiler's table

The steady phase runs --warmup steps untimed, then times each step until --steps steps or --step-seconds seconds
(at least 3 steps), and reports their mean and median.
"""
import argparse
import io
import json
import os
import resource
import statistics
import sys
import time
from contextlib import redirect_stdout


def cpu_seconds():
    """CPU time of this process and of the children it has waited for (compilers), user + system."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_steps(scene, max_steps, max_seconds):
    times = []
    started = time.perf_counter()
    while len(times) < max_steps and (len(times) < 3 or time.perf_counter() - started < max_seconds):
        t0 = time.perf_counter()
        scene.step()
        times.append(time.perf_counter() - t0)
    return times


def kernel_profile_text(qd):
    """The kernel profiler's table (qd.profiler.print_kernel_profiler_info), captured."""
    out = io.StringIO()
    with redirect_stdout(out):
        qd.profiler.print_kernel_profiler_info()
    return out.getvalue()


def run(args):
    record = {"scene": args.scene}
    marks = [(time.perf_counter(), cpu_seconds())]  # (wall, CPU) after each phase

    def mark():
        marks.append((time.perf_counter(), cpu_seconds()))

    sys.path.insert(0, args.scenes_dir)
    import genesis_scenes

    genesis_scenes.apply_environment_options()
    import genesis  # noqa: F401  timed on its own: Genesis imports torch, numpy, trimesh and quadrants
    mark()
    gs = genesis_scenes.init_genesis()
    mark()
    setup = genesis_scenes.make_scene(gs, args.scene)
    mark()
    setup.scene.build(**setup.build_kwargs)
    mark()
    if setup.after_build:
        setup.after_build()
    mark()
    setup.scene.step()
    mark()
    for _ in range(args.warmup):
        setup.scene.step()
    import quadrants as qd

    # Tiered compile (ours): steady steps are timed once every optimized build has been swapped in, after one more
    # untimed step (the swap happens at a kernel's next launch). 1.3.3 has nothing to wait for.
    core = getattr(getattr(qd, "runtime", None), "_core", None)
    if core is not None and hasattr(core, "wait_for_optimized_builds"):
        waited = time.perf_counter()
        core.wait_for_optimized_builds()
        record["optimized_wait_s"] = time.perf_counter() - waited
        record["tiered_compile"] = core.tiered_compile()
        setup.scene.step()

    profiling = args.kernel_profile
    if profiling:
        qd.profiler.clear_kernel_profiler_info()
    steady_started, steady_cpu = time.perf_counter(), cpu_seconds()
    times = timed_steps(setup.scene, args.steps, args.step_seconds)
    steady_wall, steady_cpu = time.perf_counter() - steady_started, cpu_seconds() - steady_cpu
    record.update(quadrants=getattr(qd, "__version__", "?"), quadrants_file=qd.__file__, n_envs=setup.n_envs)
    for k, phase in enumerate(("import", "init", "setup", "build", "after_build", "first_step")):
        record[f"{phase}_s"] = marks[k + 1][0] - marks[k][0]
        record[f"{phase}_cpu_s"] = marks[k + 1][1] - marks[k][1]
    record.update(steps=len(times), step_mean_s=sum(times) / len(times), step_median_s=statistics.median(times),
                  step_min_s=min(times), steady_wall_s=steady_wall, step_cpu_s=steady_cpu / len(times),
                  cpu_s=cpu_seconds())
    if profiling:
        record["kernel_profile"] = kernel_profile_text(qd)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes-dir", required=True, help="the folder holding genesis_scenes.py")
    parser.add_argument("--scene", required=True)
    parser.add_argument("--steps", type=int, default=50, help="at most this many timed steps (default 50)")
    parser.add_argument("--step-seconds", type=float, default=10.0, help="and at most about this long (default 10)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps after the first (default 3)")
    parser.add_argument("--kernel-profile", action="store_true", help="record the kernel profiler's table")
    parser.add_argument("--json", help="write the record here (else print it)")
    args = parser.parse_args()
    record = run(args)
    text = json.dumps(record)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    else:
        print(text)
    # Genesis and quadrants tear down at exit; the record is written already.
    return 0


if __name__ == "__main__":
    sys.exit(main())
