#!/usr/bin/env python3
# scripts/genesis_gpu_scenes.py: Genesis scenes batched over many environments (n_envs 1 and 4096 by default),
# each in its own process, for the GPU run of issue 33: final states per environment, cold scene build time,
# steady step time and env-steps/s; --compare sets ours beside Quadrants 1.3.3. Run by scripts/gpu_check.sh.
"""Batched Genesis scenes, timed, for comparing two quadrants on one GPU.

    python genesis_gpu_scenes.py [--scenes rigid,franka,go2] [--n-envs 1,4096] [--steps 100] [--backend gpu]
                                 [--json out.json] [--scene-timeout 150]
    python genesis_gpu_scenes.py --compare ours.json reference.json [--tolerance 1e-3]

Each scene runs in a child process, which builds it once per n_envs, smallest first, in one Genesis session:
the first build of the first scene is the cold one when the caches start empty (scripts/gpu_check.sh gives each
quadrants an empty XDG_CACHE_HOME, which holds Genesis' and both quadrants' kernel caches). The environments start
from slightly different states (a per-environment offset in position or control target), so that comparing them
one by one checks the batch dimension too. Times: build_s (scene.build), first_step_s (the first step, which may
still compile), step_s (the median per step over the steps after the first --warmup, the device synchronized
around each), env_steps_per_s (n_envs / step_s). --compare needs only the standard library.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genesis_scenes import _as_list, _failure_lines, _flatten  # noqa: E402  (the CPU scenes' helpers)

SCENES = ("rigid", "franka", "go2")


def _offsets(n_envs, scale):
    """A deterministic offset per environment in [0, scale): environments differ, runs do not."""
    return [scale * ((k * 7919) % 97) / 97.0 for k in range(n_envs)]


def build_rigid(gs, n_envs):
    """A plane, a box and a sphere dropped on it; the box starts up to 5 cm apart across environments."""
    import torch

    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    box = scene.add_entity(gs.morphs.Box(pos=(0.0, 0.0, 0.3), size=(0.2, 0.2, 0.2), euler=(0, 0, 15)))
    sphere = scene.add_entity(gs.morphs.Sphere(pos=(0.5, 0.0, 0.4), radius=0.1))
    t0 = time.perf_counter()
    scene.build(n_envs=n_envs)
    build_s = time.perf_counter() - t0
    dx = torch.tensor(_offsets(n_envs, 0.05), dtype=torch.float32)
    pos = torch.zeros((n_envs, 3))
    pos[:, 0], pos[:, 2] = dx, 0.3
    box.set_pos(pos)

    def state():
        return {"box_pos": box.get_pos(), "box_quat": box.get_quat(), "sphere_pos": sphere.get_pos()}

    return scene, build_s, state


def build_franka(gs, n_envs):
    """The bundled Franka Panda (MJCF) under PD control; the first joint's target differs by up to 0.2 rad."""
    import torch

    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    franka = scene.add_entity(gs.morphs.MJCF(file="xml/franka_emika_panda/panda.xml"))
    t0 = time.perf_counter()
    scene.build(n_envs=n_envs)
    build_s = time.perf_counter() - t0
    joints = [f"joint{i}" for i in range(1, 8)] + ["finger_joint1", "finger_joint2"]
    dofs = [franka.get_joint(name).dofs_idx_local[0] for name in joints]
    franka.set_dofs_kp(torch.tensor([4500, 4500, 3500, 3500, 2000, 2000, 2000, 100, 100.0]), dofs)
    franka.set_dofs_kv(torch.tensor([450, 450, 350, 350, 200, 200, 200, 10, 10.0]), dofs)
    franka.set_dofs_force_range(torch.tensor([-87, -87, -87, -87, -12, -12, -12, -100, -100.0]),
                                torch.tensor([87, 87, 87, 87, 12, 12, 12, 100, 100.0]), dofs)
    target = torch.tensor([1.0, 0.5, 0.0, -1.5, 0.0, 1.8, 0.5, 0.04, 0.04]).repeat(n_envs, 1)
    target[:, 0] += torch.tensor(_offsets(n_envs, 0.2))
    franka.control_dofs_position(target, dofs)

    def state():
        return {"dofs_position": franka.get_dofs_position(dofs), "dofs_velocity": franka.get_dofs_velocity(dofs),
                "hand_pos": franka.get_link("hand").get_pos()}

    return scene, build_s, state


def build_go2(gs, n_envs):
    """The bundled Unitree Go2 (URDF) dropped on a plane, joints under PD control; thigh targets differ by up
    to 0.1 rad."""
    import torch

    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    robot = scene.add_entity(gs.morphs.URDF(file="urdf/go2/urdf/go2.urdf", pos=(0, 0, 0.45)))
    t0 = time.perf_counter()
    scene.build(n_envs=n_envs)
    build_s = time.perf_counter() - t0
    dofs = list(range(6, robot.n_dofs))
    robot.set_dofs_kp([40.0] * len(dofs), dofs)
    robot.set_dofs_kv([1.0] * len(dofs), dofs)
    target = torch.tensor([0.0, 0.8, -1.5] * (len(dofs) // 3)).repeat(n_envs, 1)
    target[:, 1::3] += torch.tensor(_offsets(n_envs, 0.1))[:, None]
    robot.control_dofs_position(target, dofs)

    def state():
        return {"qpos": robot.get_qpos(), "base_pos": robot.get_pos()}

    return scene, build_s, state


def _synchronize(gs):
    import torch

    if gs.device.type == "cuda":
        torch.cuda.synchronize()


def run_scene(name, n_envs_list, steps, warmup, backend, records, save):
    """Child process: one Genesis session, the scene built and stepped at each n_envs, each run added to records
    and saved as it ends (so a timeout in a large batch keeps the smaller ones)."""
    import genesis as gs

    t0 = time.perf_counter()
    gs.init(backend=getattr(gs, backend), precision="32", seed=0, logging_level="warning")
    records.update(init_s=round(time.perf_counter() - t0, 3), device=str(gs.device), runs={})
    for n_envs in n_envs_list:
        scene, build_s, state = globals()[f"build_{name}"](gs, n_envs)
        _synchronize(gs)
        t1 = time.perf_counter()
        scene.step()
        _synchronize(gs)
        first_step_s = time.perf_counter() - t1
        per_step = []
        for i in range(1, steps):
            t1 = time.perf_counter()
            scene.step()
            _synchronize(gs)
            if i >= warmup:
                per_step.append(time.perf_counter() - t1)
        step_s = statistics.median(per_step) if per_step else math.nan
        records["runs"][str(n_envs)] = {
            "n_envs": n_envs, "steps": steps, "build_s": round(build_s, 3), "first_step_s": round(first_step_s, 4),
            "step_s": step_s, "env_steps_per_s": n_envs / step_s if per_step else math.nan,
            "state": {key: _as_list(value) for key, value in state().items()},
        }
        save()
        print(f"  {name} n_envs={n_envs}: built in {build_s:.1f} s, first step {first_step_s:.3f} s, "
              f"steady step {step_s * 1e3:.3f} ms, {n_envs / step_s:.4g} env-steps/s", flush=True)


def run_one(args):
    record = {"scene": args.run_one, "backend": args.backend, "status": "PARTIAL"}

    def save():
        with open(args.json + ".tmp", "w") as f:
            json.dump(record, f)
        os.replace(args.json + ".tmp", args.json)

    try:
        run_scene(args.run_one, args.n_envs, args.steps, args.warmup, args.backend, record, save)
        record["status"] = "PASS"
    except BaseException as exc:  # noqa: BLE001 - a scene's failure is the report
        lines = _failure_lines(exc)
        record.update(status="FAIL", error=lines)
        print(f"FAIL {args.run_one}: " + "\n".join(lines), flush=True)
    save()
    return 0 if record["status"] == "PASS" else 1


def run_all(args):
    import quadrants

    label = f"quadrants {getattr(quadrants, '__version__', '?')} from {os.path.dirname(quadrants.__file__)}"
    print(label, flush=True)
    results = {"quadrants": label, "scenes": {}}
    for name in args.scenes:
        part = f"{args.json}.{name}.part"
        command = [sys.executable, os.path.abspath(__file__), "--run-one", name, "--json", part, "--steps",
                   str(args.steps), "--warmup", str(args.warmup), "--backend", args.backend,
                   "--n-envs", ",".join(map(str, args.n_envs))]
        t0 = time.perf_counter()
        try:
            code = subprocess.run(command, timeout=args.scene_timeout).returncode
        except subprocess.TimeoutExpired:
            code = f"timeout after {args.scene_timeout:g} s"
        if os.path.exists(part):
            with open(part) as f:
                results["scenes"][name] = json.load(f)
            os.remove(part)
            if results["scenes"][name]["status"] == "PARTIAL":  # killed after its first batch sizes
                results["scenes"][name]["error"] = [f"child process ended: {code}"]
                print(f"PARTIAL {name}: child process ended: {code}; kept the runs that finished", flush=True)
        else:
            results["scenes"][name] = {"scene": name, "status": "FAIL", "error": [f"child process ended: {code}"]}
            print(f"FAIL {name}: child process ended: {code}, no record", flush=True)
        results["scenes"][name]["wall_s"] = round(time.perf_counter() - t0, 1)
    with open(args.json, "w") as f:
        json.dump(results, f)
    failed = [n for n, r in results["scenes"].items() if r["status"] != "PASS"]  # PARTIAL counts as failed
    print(f"{len(args.scenes) - len(failed)} passed, {len(failed)} failed" + (f": {failed}" if failed else ""))
    return 1 if failed else 0


def _per_env_difference(a, b, n_envs):
    """Largest |a - b| over the state's keys and the number of environments whose largest exceeds tol; each
    key's values are split into n_envs equal rows (the leading batch axis)."""
    worst, where, per_env = 0.0, "", [0.0] * n_envs
    for key in a:
        xs, ys = _flatten(a[key]), _flatten(b.get(key, []))
        if len(xs) != len(ys) or len(xs) % n_envs:
            return math.inf, f"{key}: {len(xs)} values against {len(ys)}", [math.inf] * n_envs
        width = len(xs) // n_envs
        for i, (x, y) in enumerate(zip(xs, ys)):
            diff = (0.0 if math.isnan(x) and math.isnan(y) else math.inf) if math.isnan(x) or math.isnan(y) \
                else abs(x - y)
            env = i // width
            per_env[env] = max(per_env[env], diff)
            if diff > worst:
                worst, where = diff, f"{key}[env {env}]: {x} vs {y}"
    return worst, where, per_env


def compare(ours_path, ref_path, tolerance):
    """One row per scene and n_envs: states (largest difference, environments past the tolerance), build and step
    times, ours / reference. Returns the rows and 0 when every state matches."""
    with open(ours_path) as f:
        ours = json.load(f)["scenes"]
    with open(ref_path) as f:
        ref = json.load(f)["scenes"]
    rows, bad = [], 0
    print("| scene | n_envs | states (largest diff, envs > tol) | build s ours / 1.3.3 | first step s | "
          "step ms ours / 1.3.3 | env-steps/s ours / 1.3.3 | step speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    for name in list(ours) + [n for n in ref if n not in ours]:
        a, b = ours.get(name, {"status": "MISSING"}), ref.get(name, {"status": "MISSING"})
        if a["status"] not in ("PASS", "PARTIAL") or b["status"] not in ("PASS", "PARTIAL") or not a.get("runs"):
            print(f"| {name} | - | not compared: ours {a['status']}, 1.3.3 {b['status']} | | | | | |")
            rows.append({"scene": name, "verdict": "NOT COMPARED", "ours": a["status"], "reference": b["status"],
                         "ours_error": a.get("error"), "reference_error": b.get("error")})
            bad += 1
            continue
        for key, run in a.get("runs", {}).items():
            other = b.get("runs", {}).get(key)
            if other is None:
                rows.append({"scene": name, "n_envs": run["n_envs"], "verdict": "NOT COMPARED"})
                bad += 1
                continue
            worst, where, per_env = _per_env_difference(run["state"], other["state"], run["n_envs"])
            over = sum(d > tolerance for d in per_env)
            verdict = "MATCH" if over == 0 else "DIFFER"
            bad += verdict != "MATCH"
            row = {"scene": name, "n_envs": run["n_envs"], "verdict": verdict, "largest_difference": worst,
                   "where": where, "envs_over_tolerance": over}
            for field in ("build_s", "first_step_s", "step_s", "env_steps_per_s"):
                row[field] = {"ours": run[field], "reference": other[field]}
            rows.append(row)
            print(f"| {name} | {run['n_envs']} | {verdict} {worst:.3g}, {over} | {run['build_s']:.1f} / "
                  f"{other['build_s']:.1f} | {run['first_step_s']:.2f} / {other['first_step_s']:.2f} | "
                  f"{run['step_s'] * 1e3:.3f} / {other['step_s'] * 1e3:.3f} | {run['env_steps_per_s']:.4g} / "
                  f"{other['env_steps_per_s']:.4g} | {other['step_s'] / run['step_s']:.2f}x |")
    return rows, 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default=",".join(SCENES), help="comma-separated, from " + ", ".join(SCENES))
    parser.add_argument("--n-envs", default="1,4096", help="comma-separated batch sizes, each built in turn")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the steady step time")
    parser.add_argument("--backend", default="gpu", choices=("gpu", "cuda", "cpu"))
    parser.add_argument("--scene-timeout", type=float, default=150, help="seconds for one scene's process")
    parser.add_argument("--json", default="genesis_gpu.json")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs=2, metavar=("OURS", "REFERENCE"))
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--compare-json", help="with --compare: write the rows here")
    args = parser.parse_args()
    if args.compare:
        rows, code = compare(*args.compare, args.tolerance)
        if args.compare_json:
            with open(args.compare_json, "w") as f:
                json.dump(rows, f, indent=1)
        return code
    args.n_envs = sorted(int(n) for n in args.n_envs.split(",") if n)
    if not args.n_envs or min(args.n_envs) < 1:
        parser.error(f"--n-envs must list positive batch sizes, not {args.n_envs}")
    if args.steps <= args.warmup:
        parser.error(f"--steps ({args.steps}) must exceed --warmup ({args.warmup})")
    if args.run_one:
        return run_one(args)
    args.scenes = [n for n in args.scenes.split(",") if n]
    unknown = [n for n in args.scenes if n not in SCENES]
    if unknown:
        parser.error(f"unknown scenes {unknown}; choose from {', '.join(SCENES)}")
    return run_all(args)


if __name__ == "__main__":
    sys.exit(main())
