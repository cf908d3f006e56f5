#!/usr/bin/env python3
# scripts/genesis_scenes.py: small headless Genesis scenes on the CPU, each in its own process, with
# a PASS/FAIL line per scene and the final states as JSON (run by scripts/genesis_check.sh, issue 19).
"""Headless Genesis scenes for checking quadrants against Genesis.

    python genesis_scenes.py [--scenes rigid,franka,sph] [--steps N] [--json out.json]
    python genesis_scenes.py --compare ours.json reference.json [--tolerance 1e-3]

Each scene runs in a child process (``--run-one NAME``), so a crash or a hang in one cannot hide the
others. A failing scene prints its exception's first lines, the innermost Genesis frame and the
innermost frame overall, which together name the quadrants API that Genesis reached for. The JSON
holds, per scene, its status, build and step times and its final state (arrays as nested lists).
--compare needs only the standard library, so any Python can run it.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
import traceback

SCENES = ("rigid", "franka", "sph", "boxes", "mpm", "pbd", "fem", "go2", "duck")
SCENE_TIMEOUT_S = 1800


def _init_genesis():
    import genesis as gs

    # GENESIS_SCENES_DEBUG=1: Genesis' debug mode, which runs quadrants with bounds checks (qd.init(debug=True)).
    gs.init(backend=gs.cpu, precision="32", seed=0, logging_level="warning",
            debug=os.environ.get("GENESIS_SCENES_DEBUG") == "1")
    return gs


def _as_list(value):
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu().numpy()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def scene_rigid(steps):
    """A plane, a box and a sphere dropped on it (rigid solver)."""
    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    box = scene.add_entity(gs.morphs.Box(pos=(0.0, 0.0, 0.3), size=(0.2, 0.2, 0.2), euler=(0, 0, 15)))
    sphere = scene.add_entity(gs.morphs.Sphere(pos=(0.5, 0.0, 0.4), radius=0.1))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    state = {
        "box_pos": _as_list(box.get_pos()),
        "box_quat": _as_list(box.get_quat()),
        "sphere_pos": _as_list(sphere.get_pos()),
        "sphere_quat": _as_list(sphere.get_quat()),
    }
    return state, t1 - t0, t2 - t1


def scene_franka(steps):
    """The bundled Franka Panda (MJCF) held by PD position control towards a target pose."""
    import numpy as np

    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    franka = scene.add_entity(gs.morphs.MJCF(file="xml/franka_emika_panda/panda.xml"))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    joints = [f"joint{i}" for i in range(1, 8)] + ["finger_joint1", "finger_joint2"]
    dofs = [franka.get_joint(name).dofs_idx_local[0] for name in joints]
    franka.set_dofs_kp(np.array([4500, 4500, 3500, 3500, 2000, 2000, 2000, 100, 100], dtype=float), dofs)
    franka.set_dofs_kv(np.array([450, 450, 350, 350, 200, 200, 200, 10, 10], dtype=float), dofs)
    franka.set_dofs_force_range(
        np.array([-87, -87, -87, -87, -12, -12, -12, -100, -100], dtype=float),
        np.array([87, 87, 87, 87, 12, 12, 12, 100, 100], dtype=float),
        dofs,
    )
    franka.control_dofs_position(np.array([1.0, 0.5, 0.0, -1.5, 0.0, 1.8, 0.5, 0.04, 0.04]), dofs)
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    state = {
        "dofs_position": _as_list(franka.get_dofs_position(dofs)),
        "dofs_velocity": _as_list(franka.get_dofs_velocity(dofs)),
        "hand_pos": _as_list(franka.get_link("hand").get_pos()),
    }
    return state, t1 - t0, t2 - t1


def scene_sph(steps):
    """A small block of SPH liquid falling onto the floor of its domain."""
    gs = _init_genesis()
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=4e-3, substeps=4),
        sph_options=gs.options.SPHOptions(
            lower_bound=(-0.3, -0.3, 0.0), upper_bound=(0.3, 0.3, 0.6), particle_size=0.02
        ),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.Plane())
    liquid = scene.add_entity(
        material=gs.materials.SPH.Liquid(sampler="regular"),
        morph=gs.morphs.Box(pos=(0.0, 0.0, 0.25), size=(0.12, 0.12, 0.12)),
    )
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    pos = liquid.get_particles_pos() if hasattr(liquid, "get_particles_pos") else liquid.get_particles()
    pos = _as_list(pos)
    flat = _flatten(pos)
    state = {"particle_count": [len(flat) // 3], "particles_pos": pos}
    return state, t1 - t0, t2 - t1


def scene_boxes(steps):
    """Two environments of three stacked boxes: batched kernels, box-box contact and hibernation."""
    gs = _init_genesis()
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=0.01),
        rigid_options=gs.options.RigidOptions(box_box_detection=True, use_hibernation=True),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.Plane())
    boxes = [scene.add_entity(gs.morphs.Box(pos=(0.02 * k, 0.0, 0.06 + 0.11 * k), size=(0.1, 0.1, 0.1),
                                            euler=(0, 0, 10 * k))) for k in range(3)]
    t0 = time.perf_counter()
    scene.build(n_envs=2)
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    state = {f"box{k}_pos": _as_list(box.get_pos()) for k, box in enumerate(boxes)}
    state.update({f"box{k}_quat": _as_list(box.get_quat()) for k, box in enumerate(boxes)})
    return state, t1 - t0, t2 - t1


def scene_mpm(steps):
    """A small elastic MPM cube falling onto the floor of its grid (MPM solver: SVD, particle-grid transfers)."""
    gs = _init_genesis()
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=2e-3, substeps=5),
        mpm_options=gs.options.MPMOptions(lower_bound=(-0.2, -0.2, 0.0), upper_bound=(0.2, 0.2, 0.4),
                                          grid_density=32),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.Plane())
    cube = scene.add_entity(
        material=gs.materials.MPM.Elastic(sampler="regular"),
        morph=gs.morphs.Box(pos=(0.0, 0.0, 0.15), size=(0.08, 0.08, 0.08)),
    )
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    pos = _as_list(cube.get_particles_pos() if hasattr(cube, "get_particles_pos") else cube.get_particles())
    state = {"particle_count": [len(_flatten(pos)) // 3], "particles_pos": pos}
    return state, t1 - t0, t2 - t1


def scene_pbd(steps):
    """The bundled cloth mesh as PBD cloth, pinned at two corners (PBD solver: constraints, spatial hashing)."""
    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=4e-3, substeps=5), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    cloth = scene.add_entity(material=gs.materials.PBD.Cloth(),
                             morph=gs.morphs.Mesh(file="meshes/cloth.obj", scale=1.0, pos=(0, 0, 0.5)))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    cloth.fix_particles(cloth.find_closest_particle((-0.5, -0.5, 0.5)))
    cloth.fix_particles(cloth.find_closest_particle((0.5, 0.5, 0.5)))
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    pos = _as_list(cloth.get_particles_pos() if hasattr(cloth, "get_particles_pos") else cloth.get_particles())
    return {"particle_count": [len(_flatten(pos)) // 3], "particles_pos": pos}, t1 - t0, t2 - t1


def scene_fem(steps):
    """An explicit-FEM elastic box (tetrahedralized) falling onto the ground (FEM solver)."""
    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=1e-4, substeps=5),
                     fem_options=gs.options.FEMOptions(use_implicit_solver=False), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    cube = scene.add_entity(morph=gs.morphs.Box(pos=(0.0, 0.0, 0.12), size=(0.1, 0.1, 0.1)),
                            material=gs.materials.FEM.Elastic(E=1.0e5, nu=0.4, rho=1000.0, model="linear"))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    state = cube.get_state()
    return {"vertex_pos": _as_list(state.pos)}, t1 - t0, t2 - t1


def scene_go2(steps):
    """The bundled Unitree Go2 (URDF) dropped on a plane, 3 environments, joints held by PD control."""
    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    robot = scene.add_entity(gs.morphs.URDF(file="urdf/go2/urdf/go2.urdf", pos=(0, 0, 0.45)))
    t0 = time.perf_counter()
    scene.build(n_envs=3)
    t1 = time.perf_counter()
    dofs = list(range(6, robot.n_dofs))
    robot.set_dofs_kp([40.0] * len(dofs), dofs)
    robot.set_dofs_kv([1.0] * len(dofs), dofs)
    robot.control_dofs_position([[0.0, 0.8, -1.5] * (len(dofs) // 3)] * 3, dofs)
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    return {"qpos": _as_list(robot.get_qpos()), "base_pos": _as_list(robot.get_pos())}, t1 - t0, t2 - t1


def scene_duck(steps):
    """The bundled duck mesh (convexified collision geometry) falling onto a plane beside a sphere."""
    gs = _init_genesis()
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    duck = scene.add_entity(gs.morphs.Mesh(file="meshes/duck.obj", scale=0.05, pos=(0, 0, 0.3)))
    ball = scene.add_entity(gs.morphs.Sphere(pos=(0.02, 0.0, 0.6), radius=0.05))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    for _ in range(steps):
        scene.step()
    t2 = time.perf_counter()
    state = {"duck_pos": _as_list(duck.get_pos()), "duck_quat": _as_list(duck.get_quat()),
             "ball_pos": _as_list(ball.get_pos())}
    return state, t1 - t0, t2 - t1


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def _failure_lines(exc):
    """The exception's first lines, the innermost Genesis frame and the innermost frame overall."""
    lines = [f"{type(exc).__name__}: {line}" if i == 0 else f"    {line}"
             for i, line in enumerate((str(exc) or "").splitlines()[:4] or [""])]
    frames = traceback.extract_tb(exc.__traceback__)
    genesis_frames = [f for f in frames if f"{os.sep}genesis{os.sep}" in f.filename]
    if genesis_frames:
        f = genesis_frames[-1]
        lines.append(f"  genesis: {_short(f.filename)}:{f.lineno}: {f.line}")
    if frames:
        f = frames[-1]
        lines.append(f"  raised at: {_short(f.filename)}:{f.lineno}: {f.line}")
    return lines


def _short(path):
    for marker in (f"site-packages{os.sep}", f"{os.sep}python{os.sep}quadrants{os.sep}"):
        if marker in path:
            prefix = "" if marker.startswith("site") else "python/quadrants/"
            return prefix + path.split(marker, 1)[1]
    return path


def run_one(name, steps, out_path):
    """Child process: runs one scene, writes its record, prints its PASS/FAIL line."""
    record = {"scene": name, "steps": steps}
    try:
        state, build_s, step_s = globals()[f"scene_{name}"](steps)
        record.update(status="PASS", state=state, build_s=round(build_s, 3), step_s=round(step_s, 3))
        print(f"PASS {name}: built in {build_s:.1f} s, {steps} steps in {step_s:.2f} s", flush=True)
        for key, value in state.items():
            text = json.dumps(value)
            print(f"    {key} = {text if len(text) < 200 else text[:200] + ' ...'}")
    except BaseException as exc:  # noqa: BLE001 - a scene's failure is the report
        lines = _failure_lines(exc)
        record.update(status="FAIL", error=lines, traceback=traceback.format_exc())
        print(f"FAIL {name}: " + lines[0], flush=True)
        for line in lines[1:]:
            print(line)
        if os.environ.get("GENESIS_SCENES_TRACEBACK"):
            traceback.print_exc()
    with open(out_path, "w") as f:
        json.dump(record, f)
    return 0 if record["status"] == "PASS" else 1


def run_all(names, steps, json_path):
    import quadrants

    print(f"quadrants {getattr(quadrants, '__version__', '?')} from {quadrants.__file__}", flush=True)
    results = {}
    for name in names:
        part = f"{json_path or 'genesis_scenes'}.{name}.part"
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--run-one", name, "--steps", str(steps),
                                   "--json", part], timeout=SCENE_TIMEOUT_S)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        wall = time.perf_counter() - t0
        if os.path.exists(part):
            with open(part) as f:
                results[name] = json.load(f)
            os.remove(part)
        else:  # crashed or hung before writing its record
            results[name] = {"scene": name, "status": "FAIL", "error": [f"child process ended with {code}, no record"]}
            print(f"FAIL {name}: child process ended with {code} (crash or timeout), no record", flush=True)
        results[name]["wall_s"] = round(wall, 1)
    passed = [n for n in names if results[n]["status"] == "PASS"]
    print(f"{len(passed)} passed, {len(names) - len(passed)} failed")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f)
    return 0 if len(passed) == len(names) else 1


def compare(ours_path, ref_path, tolerance):
    """Prints one line per scene: MATCH, DIFFER (largest difference) or what kept it from comparing."""
    with open(ours_path) as f:
        ours = json.load(f)
    with open(ref_path) as f:
        ref = json.load(f)
    bad = 0
    for name in ours:
        a, b = ours[name], ref.get(name, {"status": "MISSING"})
        if a["status"] != "PASS" or b["status"] != "PASS":
            print(f"NOT COMPARED {name}: ours {a['status']}, reference {b['status']}")
            bad += 1
            continue
        worst, where = 0.0, None
        for key in a["state"]:
            xs, ys = _flatten(a["state"][key]), _flatten(b["state"].get(key, []))
            if len(xs) != len(ys):
                worst, where = math.inf, f"{key} (length {len(xs)} vs {len(ys)})"
                break
            for i, (x, y) in enumerate(zip(xs, ys)):
                if math.isnan(x) or math.isnan(y):  # NaN on both sides matches, on one side does not
                    diff = 0.0 if math.isnan(x) == math.isnan(y) else math.inf
                else:
                    diff = abs(x - y)
                if diff > worst:
                    worst, where = diff, f"{key}[{i}]: {x} vs {y}"
        verdict = "MATCH" if worst <= tolerance else "DIFFER"
        bad += verdict != "MATCH"
        print(f"{verdict} {name}: largest difference {worst:.3g}" + (f" at {where}" if where else ""))
        for key in ("build_s", "step_s"):
            print(f"    {key}: ours {a.get(key)}, reference {b.get(key)}")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default=",".join(SCENES), help="comma-separated, from " + ", ".join(SCENES))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs=2, metavar=("OURS", "REFERENCE"))
    parser.add_argument("--tolerance", type=float, default=1e-3)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare, args.tolerance)
    if args.run_one:
        return run_one(args.run_one, args.steps, args.json)
    names = [n for n in args.scenes.split(",") if n]
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        parser.error(f"unknown scenes {unknown}; choose from {', '.join(SCENES)}")
    return run_all(names, args.steps, args.json)


if __name__ == "__main__":
    sys.exit(main())
