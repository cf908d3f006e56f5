#!/usr/bin/env python3
# scripts/genesis_grad_scenes.py: Genesis' differentiable simulation on the CPU: each scene rolls out with
# SimOptions(requires_grad=True), takes a loss of its final state, runs loss.backward() and writes the loss and
# the gradients of its initial state as JSON; --compare checks two such files (run by scripts/genesis_check.sh;
# issue 32).
"""Differentiable Genesis scenes for checking quadrants' autodiff against quadrants 1.3.3.

    python genesis_grad_scenes.py [--scenes mpm_push,rigid_box] [--json out.json]
    python genesis_grad_scenes.py --compare ours.json reference.json [--tolerance 1e-5]
    python genesis_grad_scenes.py --compare ref.json ref-no-fast-math.json --self   # 1.3.3 against itself

Each scene runs in a child process (``--run-one NAME``). The environment is genesis_scenes.py's:
GENESIS_SCENES_FAST_MATH=0 initializes quadrants with fast_math=False (Genesis itself asks for fast math outside
debug mode), and Genesis' own QD_NUM_THREADS sets the CPU thread count (1 unless set): the two knobs of the
sensitivity check (`genesis_check.sh --sensitivity`) that sets the tolerances (TOLERANCES, docs/genesis_status.md).
--compare prints, per scene, the two losses, and per gradient its norm on both sides and the largest difference
relative to the reference's largest entry, then MATCH or DIFFER by the scene's tolerance (--self: only the figures);
it needs only the standard library.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

from genesis_compare import _flatten
from genesis_scenes import _as_list, _failure_lines, init_genesis

SCENES = ("mpm_push", "rigid_box")
SCENE_TIMEOUT_S = 3600
# The largest relative difference (relative_difference(): over the loss and every gradient) allowed between ours and
# 1.3.3, per scene: MARGIN times the largest that 1.3.3 showed against itself (fast_math=False, 2 threads), at least
# FLOOR (about 170 float32 ulps of the largest entry). Measured 2026-11-28; the runs are in docs/genesis_status.md.
MARGIN, FLOOR = 10.0, 1e-5
TOLERANCES = {
    "mpm_push": 1.3e-5,  # 1.3.3 with 2 threads: 1.31e-6 (the stirrer's start position); fast_math=False: 4.2e-7
    "rigid_box": FLOOR,  # 1.3.3 with fast_math=False: 7.6e-8; with 2 threads: 0
}


def _leaf(gs, values):
    """A float tensor that requires grad (Genesis 1.4.5's tensors are plain torch tensors on its device)."""
    import torch

    return torch.tensor(values, dtype=gs.tc_float, device=gs.device, requires_grad=True)


def _timed_backward(loss):
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


def build_mpm_push(gs, horizon):
    """Genesis' own differentiable push (its test_differentiable_push) over fewer steps: a stirrer (a Tool) moved by
    per-step velocities pushes an elastic MPM box, two environments; returns a rollout function."""
    import torch

    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=2e-3, substeps=10, requires_grad=True),
        mpm_options=gs.options.MPMOptions(lower_bound=(0.0, -1.0, 0.0), upper_bound=(1.0, 1.0, 0.55)),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.URDF(file="urdf/plane/plane.urdf", fixed=True))
    stick = scene.add_entity(
        morph=gs.morphs.Mesh(file="meshes/stirrer.obj", scale=0.6, pos=(0.5, 0.5, 0.05), euler=(90.0, 0.0, 0.0)),
        material=gs.materials.Tool(friction=8.0),
    )
    obj = scene.add_entity(morph=gs.morphs.Box(lower=(0.2, 0.1, 0.05), upper=(0.4, 0.3, 0.15)),
                           material=gs.materials.MPM.Elastic(rho=500))
    scene.build(n_envs=2)

    def rollout(again=False):
        if again:  # a second rollout in the same process (benchmarks/genesis/backward.py)
            scene.reset()
        inputs = {
            "stick_pos": _leaf(gs, [[0.3, 0.1, 0.28], [0.3, 0.1, 0.5]]),
            "obj_pos": _leaf(gs, [0.3, 0.3, 0.1]),
            "obj_vel": _leaf(gs, [0.0, -1.0, 0.0]),
        }
        stick.set_position(inputs["stick_pos"])
        obj.set_position(inputs["obj_pos"])
        obj.set_velocity(inputs["obj_vel"])
        goal = torch.tensor([0.5, 0.8, 0.05], dtype=gs.tc_float, device=gs.device)
        loss = 0.0
        velocities = []
        for i in range(horizon):
            v_i = _leaf(gs, [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
            stick.set_velocity(vel=v_i)
            velocities.append(v_i)
            scene.step()
            if i == horizon // 2:
                particles = scene.get_state().solvers_state[scene.solvers.index(scene.mpm_solver)]
                loss = loss + torch.pow(particles.pos[particles.active == 1] - goal, 2).sum()
            if i == horizon - 2:
                loss = loss + torch.pow(obj.get_state().pos - goal, 2).sum()
        return loss, inputs, velocities

    return rollout


def build_rigid_box(gs, steps):
    """A free box under gravity, no collisions: its initial dof velocities (linear and angular) get gradients of
    the distance of its final position from the origin (as Genesis' test_diff_sim_vs_solver_state_grad_parity)."""
    import torch

    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=0.01, requires_grad=True),
        rigid_options=gs.options.RigidOptions(enable_collision=False),
        show_viewer=False,
    )
    box = scene.add_entity(gs.morphs.Box(size=(0.1, 0.2, 0.3), pos=(0.1, 0.0, 0.5)))
    scene.build()

    def rollout(again=False):
        if again:  # a second rollout in the same process (benchmarks/genesis/backward.py)
            scene.reset()
        ctrl = _leaf(gs, [0.3, -0.2, 1.0, 0.5, 2.0, -1.0])
        box.set_dofs_velocity(ctrl)
        for _ in range(steps):
            scene.step()
        loss = torch.linalg.norm(box.get_state().pos.squeeze()) + box.get_state().quat.squeeze()[1:].sum()
        return loss, {"dofs_vel": ctrl}, []

    return rollout


def scene_record(name, horizon=None):
    """Builds scene `name`, rolls out once and runs loss.backward(): the loss, its gradients and the times."""
    gs = init_genesis()
    builder = {"mpm_push": build_mpm_push, "rigid_box": build_rigid_box}[name]
    t0 = time.perf_counter()
    rollout = builder(gs, horizon or {"mpm_push": 6, "rigid_box": 5}[name])
    t1 = time.perf_counter()
    loss, inputs, velocities = rollout()
    t2 = time.perf_counter()
    backward_s = _timed_backward(loss)
    # None: torch left the gradient unset, as for the last step's velocity, which the loss does not reach
    grads = {key: None if value.grad is None else _as_list(value.grad) for key, value in inputs.items()}
    if velocities:
        grads["step_vel"] = [None if v.grad is None else _as_list(v.grad) for v in velocities]
    state = {"loss": float(loss.detach().cpu()), "grads": grads}
    return state, {"build_s": t1 - t0, "forward_s": t2 - t1, "backward_s": backward_s}


def run_one(name, out_path):
    record = {"scene": name}
    try:
        state, times = scene_record(name)
        record.update(status="PASS", state=state, **{k: round(v, 3) for k, v in times.items()})
        print(f"PASS {name}: built in {times['build_s']:.1f} s, forward {times['forward_s']:.1f} s, "
              f"backward {times['backward_s']:.1f} s, loss {state['loss']:.9g}", flush=True)
        for key, value in state["grads"].items():
            print(f"    grad {key}: norm {_norm(value):.9g}")
    except BaseException as exc:  # noqa: BLE001 - a scene's failure is the report
        lines = _failure_lines(exc)
        record.update(status="FAIL", error=lines)
        print(f"FAIL {name}: " + lines[0], flush=True)
        for line in lines[1:]:
            print(line)
        if os.environ.get("GENESIS_SCENES_TRACEBACK"):
            import traceback

            traceback.print_exc()
    with open(out_path, "w") as f:
        json.dump(record, f)
    return 0 if record["status"] == "PASS" else 1


def run_all(names, json_path):
    import quadrants

    print(f"quadrants {getattr(quadrants, '__version__', '?')} from {quadrants.__file__}", flush=True)
    results = {}
    for name in names:
        part = f"{json_path or 'genesis_grad_scenes'}.{name}.part"
        try:
            code = subprocess.run([sys.executable, os.path.abspath(__file__), "--run-one", name, "--json", part],
                                  timeout=SCENE_TIMEOUT_S).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        if os.path.exists(part):
            with open(part) as f:
                results[name] = json.load(f)
            os.remove(part)
        else:
            results[name] = {"scene": name, "status": "FAIL", "error": [f"child process ended with {code}, no record"]}
            print(f"FAIL {name}: child process ended with {code} (crash or timeout), no record", flush=True)
    passed = [n for n in names if results[n]["status"] == "PASS"]
    print(f"{len(passed)} passed, {len(names) - len(passed)} failed")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f)
    return 0 if len(passed) == len(names) else 1


def _norm(value):
    return math.sqrt(sum(x * x for x in _flatten(value) if x is not None))


def relative_difference(xs, ys):
    """max |x - y| over max |y|: the difference relative to the reference's scale, so entries near zero (whose
    own relative error is noise) do not dominate. An unset gradient (None) matches only an unset one."""
    if any((x is None) != (y is None) for x, y in zip(xs, ys)):
        return math.inf
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None]
    if any(math.isnan(x) or math.isnan(y) for x, y in pairs):
        return math.inf
    scale = max((abs(y) for _, y in pairs), default=0.0)
    worst = max((abs(x - y) for x, y in pairs), default=0.0)
    return worst / scale if scale > 0 else (0.0 if worst == 0 else math.inf)


def compare(ours_path, ref_path, tolerance=None, self_check=False):
    """Per scene: the losses and each gradient's norms and relative difference; DIFFER past the scene's tolerance
    (TOLERANCES, or `tolerance` for every scene). self_check: two runs of 1.3.3, only the figures, no verdict."""
    with open(ours_path) as f:
        ours = json.load(f)
    with open(ref_path) as f:
        ref = json.load(f)
    bad = 0
    for name in ours:
        a, b = ours[name], ref.get(name, {"status": "MISSING"})
        if a["status"] != "PASS" or b["status"] != "PASS":
            print(f"NOT COMPARED {name}: {a['status']} against {b['status']}")
            bad += 1
            continue
        rows = [("loss", [a["state"]["loss"]], [b["state"]["loss"]])]
        rows += [(f"grad {key}", _flatten(value), _flatten(b["state"]["grads"].get(key)))
                 for key, value in a["state"]["grads"].items()]
        worst = 0.0
        lines = []
        for label, xs, ys in rows:
            if len(xs) != len(ys):
                diff = math.inf
                lines.append(f"    {label}: {len(xs)} values against {len(ys)}")
            else:
                diff = relative_difference(xs, ys)
                lines.append(f"    {label}: norm {_norm(xs):.9g} against {_norm(ys):.9g}, "
                             f"max relative difference {diff:.3g}")
            worst = max(worst, diff)
        if self_check:
            print(f"SELF {name}: largest relative difference {worst:.3g} (x{MARGIN:g}: {worst * MARGIN:.2g})")
        else:
            limit = tolerance if tolerance is not None else TOLERANCES[name]
            verdict = "MATCH" if worst <= limit else "DIFFER"
            bad += verdict != "MATCH"
            print(f"{verdict} {name}: largest relative difference {worst:.3g} (tolerance {limit:g})")
        print("\n".join(lines))
        print(f"    backward_s: {a.get('backward_s')} against {b.get('backward_s')}")
    return 1 if bad and not self_check else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default=",".join(SCENES), help="comma-separated, from " + ", ".join(SCENES))
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs=2, metavar=("OURS", "REFERENCE"))
    parser.add_argument("--tolerance", type=float, help="one tolerance for every scene (default: TOLERANCES)")
    parser.add_argument("--self", action="store_true", help="--compare two runs of 1.3.3: figures, no verdict")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare, args.tolerance, args.self)
    if args.run_one:
        return run_one(args.run_one, args.json)
    names = [n for n in args.scenes.split(",") if n]
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        parser.error(f"unknown scenes {unknown}; choose from {', '.join(SCENES)}")
    return run_all(names, args.json)


if __name__ == "__main__":
    sys.exit(main())
