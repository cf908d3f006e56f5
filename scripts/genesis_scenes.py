#!/usr/bin/env python3
# scripts/genesis_scenes.py: small headless Genesis scenes on the CPU, each in its own process, with a PASS/FAIL
# line per scene and the states (positions and velocities) at chosen steps as JSON (scripts/genesis_check.sh,
# benchmarks/genesis/; issues 19, 31, 34).
"""Headless Genesis scenes for checking and timing quadrants against Genesis.

    python genesis_scenes.py [--scenes rigid,franka,sph] [--horizons 20,200] [--json out.json]

Each scene runs in a child process (``--run-one NAME``), so a crash or a hang in one cannot hide the
others. A failing scene prints its exception's first lines, the innermost Genesis frame and the
innermost frame overall, which together name the quadrants API that Genesis reached for. The JSON
holds, per scene, its status, build and step times and its state after each horizon: {"pos": {...},
"vel": {...}}, arrays as nested lists. scripts/genesis_compare.py compares two such files.

The scenes are also imported by benchmarks/genesis/run_scene.py: make_scene(gs, name) returns a Setup
(the unbuilt scene, its build() arguments, what to do after the build, and a state reader).

Environment: GENESIS_SCENES_DEBUG=1 runs Genesis' debug mode (quadrants bounds checks);
GENESIS_SCENES_FAST_MATH=0 makes gs.init() pass fast_math=False to qd.init (Genesis passes fast_math=not debug;
this wraps quadrants.init in this process, it does not touch Genesis); QD_NUM_THREADS=N is read by Genesis itself
(cpu_max_num_threads, default 1).
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

# The nine scenes of the check; the benchmark adds the many-environment ones.
SCENES = ("rigid", "franka", "sph", "boxes", "mpm", "pbd", "fem", "go2", "duck")
MANY_ENV_SCENES = ("go2_64", "go2_512")
ALL_SCENES = SCENES + MANY_ENV_SCENES
SCENE_TIMEOUT_S = 1800


@dataclass
class Setup:
    """An unbuilt scene: build it with scene.build(**build_kwargs), then call after_build(); state() reads it."""
    scene: object
    state: Callable[[], dict]
    build_kwargs: dict = field(default_factory=dict)
    after_build: Optional[Callable[[], None]] = None
    n_envs: int = 0


def apply_environment_options():
    """GENESIS_SCENES_FAST_MATH=0: every qd.init() in this process gets fast_math=False. Call before gs.init()."""
    if os.environ.get("GENESIS_SCENES_FAST_MATH") == "0":
        import quadrants

        original = quadrants.init
        if not getattr(original, "_genesis_scenes_wrapped", False):
            def init_without_fast_math(*args, **kwargs):
                kwargs["fast_math"] = False
                return original(*args, **kwargs)

            init_without_fast_math._genesis_scenes_wrapped = True
            quadrants.init = init_without_fast_math


def init_genesis():
    apply_environment_options()
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


def _rigid_state(named_entities):
    """Base position, orientation, linear and angular velocity of each named rigid entity."""
    pos, vel = {}, {}
    for name, entity in named_entities.items():
        pos[f"{name}_pos"] = _as_list(entity.get_pos())
        pos[f"{name}_quat"] = _as_list(entity.get_quat())
        vel[f"{name}_vel"] = _as_list(entity.get_vel())
        vel[f"{name}_ang"] = _as_list(entity.get_ang())
    return {"pos": pos, "vel": vel}


def _particle_state(entity):
    return {"pos": {"particles_pos": _as_list(entity.get_particles_pos())},
            "vel": {"particles_vel": _as_list(entity.get_particles_vel())}}


def scene_rigid(gs):
    """A plane, a box and a sphere dropped on it (rigid solver)."""
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    box = scene.add_entity(gs.morphs.Box(pos=(0.0, 0.0, 0.3), size=(0.2, 0.2, 0.2), euler=(0, 0, 15)))
    sphere = scene.add_entity(gs.morphs.Sphere(pos=(0.5, 0.0, 0.4), radius=0.1))
    return Setup(scene, lambda: _rigid_state({"box": box, "sphere": sphere}))


def scene_franka(gs):
    """The bundled Franka Panda (MJCF) held by PD position control towards a target pose."""
    import numpy as np

    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    franka = scene.add_entity(gs.morphs.MJCF(file="xml/franka_emika_panda/panda.xml"))
    dofs = []

    def after_build():
        joints = [f"joint{i}" for i in range(1, 8)] + ["finger_joint1", "finger_joint2"]
        dofs.extend(franka.get_joint(name).dofs_idx_local[0] for name in joints)
        franka.set_dofs_kp(np.array([4500, 4500, 3500, 3500, 2000, 2000, 2000, 100, 100], dtype=float), dofs)
        franka.set_dofs_kv(np.array([450, 450, 350, 350, 200, 200, 200, 10, 10], dtype=float), dofs)
        franka.set_dofs_force_range(
            np.array([-87, -87, -87, -87, -12, -12, -12, -100, -100], dtype=float),
            np.array([87, 87, 87, 87, 12, 12, 12, 100, 100], dtype=float),
            dofs,
        )
        franka.control_dofs_position(np.array([1.0, 0.5, 0.0, -1.5, 0.0, 1.8, 0.5, 0.04, 0.04]), dofs)

    def state():
        hand = franka.get_link("hand")
        return {"pos": {"dofs_position": _as_list(franka.get_dofs_position(dofs)), "hand_pos": _as_list(hand.get_pos())},
                "vel": {"dofs_velocity": _as_list(franka.get_dofs_velocity(dofs)), "hand_vel": _as_list(hand.get_vel())}}

    return Setup(scene, state, after_build=after_build)


def scene_sph(gs):
    """A small block of SPH liquid falling onto the floor of its domain."""
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
    return Setup(scene, lambda: _particle_state(liquid))


def scene_boxes(gs):
    """Two environments of three stacked boxes: batched kernels, box-box contact and hibernation."""
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=0.01),
        rigid_options=gs.options.RigidOptions(box_box_detection=True, use_hibernation=True),
        show_viewer=False,
    )
    scene.add_entity(gs.morphs.Plane())
    boxes = [scene.add_entity(gs.morphs.Box(pos=(0.02 * k, 0.0, 0.06 + 0.11 * k), size=(0.1, 0.1, 0.1),
                                            euler=(0, 0, 10 * k))) for k in range(3)]
    return Setup(scene, lambda: _rigid_state({f"box{k}": box for k, box in enumerate(boxes)}),
                 build_kwargs={"n_envs": 2}, n_envs=2)


def scene_mpm(gs):
    """A small elastic MPM cube falling onto the floor of its grid (MPM solver: SVD, particle-grid transfers)."""
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
    return Setup(scene, lambda: _particle_state(cube))


def scene_pbd(gs):
    """The bundled cloth mesh as PBD cloth, pinned at two corners (PBD solver: constraints, spatial hashing)."""
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=4e-3, substeps=5), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    cloth = scene.add_entity(material=gs.materials.PBD.Cloth(),
                             morph=gs.morphs.Mesh(file="meshes/cloth.obj", scale=1.0, pos=(0, 0, 0.5)))

    def after_build():
        cloth.fix_particles(cloth.find_closest_particle((-0.5, -0.5, 0.5)))
        cloth.fix_particles(cloth.find_closest_particle((0.5, 0.5, 0.5)))

    return Setup(scene, lambda: _particle_state(cloth), after_build=after_build)


def scene_fem(gs):
    """An explicit-FEM elastic box (tetrahedralized) dropped from 0.5 mm onto the ground (FEM solver)."""
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=1e-4, substeps=5),
                     fem_options=gs.options.FEMOptions(use_implicit_solver=False), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    # A step is 0.1 ms: the box's bottom starts 0.5 mm above the ground so that it lands after about 100 steps
    # (it started 70 mm up, which it would fall through after 1200 steps).
    cube = scene.add_entity(morph=gs.morphs.Box(pos=(0.0, 0.0, 0.0505), size=(0.1, 0.1, 0.1)),
                            material=gs.materials.FEM.Elastic(E=1.0e5, nu=0.4, rho=1000.0, model="linear"))

    def state():
        s = cube.get_state()
        return {"pos": {"vertex_pos": _as_list(s.pos)}, "vel": {"vertex_vel": _as_list(s.vel)}}

    return Setup(scene, state)


def _go2(gs, n_envs):
    """The bundled Unitree Go2 (URDF) dropped on a plane, n_envs environments, joints held by PD control."""
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    robot = scene.add_entity(gs.morphs.URDF(file="urdf/go2/urdf/go2.urdf", pos=(0, 0, 0.45)))

    def after_build():
        dofs = list(range(6, robot.n_dofs))
        robot.set_dofs_kp([40.0] * len(dofs), dofs)
        robot.set_dofs_kv([1.0] * len(dofs), dofs)
        robot.control_dofs_position([[0.0, 0.8, -1.5] * (len(dofs) // 3)] * n_envs, dofs)

    def state():
        return {"pos": {"qpos": _as_list(robot.get_qpos()), "base_pos": _as_list(robot.get_pos())},
                "vel": {"dofs_velocity": _as_list(robot.get_dofs_velocity())}}

    return Setup(scene, state, build_kwargs={"n_envs": n_envs}, after_build=after_build, n_envs=n_envs)


def scene_go2(gs):
    """The bundled Unitree Go2 (URDF) dropped on a plane, 3 environments, joints held by PD control."""
    return _go2(gs, 3)


def scene_go2_64(gs):
    """Go2 as in scene_go2 with 64 environments (the reinforcement-learning setting)."""
    return _go2(gs, 64)


def scene_go2_512(gs):
    """Go2 as in scene_go2 with 512 environments."""
    return _go2(gs, 512)


def scene_duck(gs):
    """The bundled duck mesh (convexified collision geometry) falling onto a plane beside a sphere."""
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=0.01), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    duck = scene.add_entity(gs.morphs.Mesh(file="meshes/duck.obj", scale=0.05, pos=(0, 0, 0.3)))
    ball = scene.add_entity(gs.morphs.Sphere(pos=(0.02, 0.0, 0.6), radius=0.05))
    return Setup(scene, lambda: _rigid_state({"duck": duck, "ball": ball}))


def make_scene(gs, name):
    """The named scene's Setup, its entities added, not built."""
    if name not in ALL_SCENES:
        raise ValueError(f"make_scene(name=...) expects one of {', '.join(ALL_SCENES)}, but got {name!r}.")
    return globals()[f"scene_{name}"](gs)


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


def run_scene(name, horizons):
    """Builds and steps one scene; its state after each horizon (sorted step counts), build and step times."""
    gs = init_genesis()
    setup = make_scene(gs, name)
    t0 = time.perf_counter()
    setup.scene.build(**setup.build_kwargs)
    build_s = time.perf_counter() - t0
    if setup.after_build:
        setup.after_build()
    states, step_s, done = {}, 0.0, 0
    for horizon in sorted(horizons):
        t0 = time.perf_counter()
        for _ in range(horizon - done):
            setup.scene.step()
        step_s += time.perf_counter() - t0
        done = horizon
        states[str(horizon)] = setup.state()
    return states, build_s, step_s


def run_one(name, horizons, out_path):
    """Child process: runs one scene, writes its record, prints its PASS/FAIL line."""
    record = {"scene": name, "horizons": sorted(horizons)}
    try:
        states, build_s, step_s = run_scene(name, horizons)
        record.update(status="PASS", states=states, build_s=round(build_s, 3), step_s=round(step_s, 3))
        print(f"PASS {name}: built in {build_s:.1f} s, {max(horizons)} steps in {step_s:.2f} s", flush=True)
        last = states[str(max(horizons))]
        for kind in ("pos", "vel"):
            for key, value in last[kind].items():
                text = json.dumps(value)
                print(f"    {key} = {text if len(text) < 160 else text[:160] + ' ...'}")
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


def run_all(names, horizons, json_path):
    import quadrants

    print(f"quadrants {getattr(quadrants, '__version__', '?')} from {quadrants.__file__}", flush=True)
    results = {}
    for name in names:
        part = f"{json_path or 'genesis_scenes'}.{name}.part"
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--run-one", name, "--horizons",
                                   ",".join(map(str, horizons)), "--json", part], timeout=SCENE_TIMEOUT_S)
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
        if json_path:  # after every scene, so that an interrupted run keeps the scenes it finished
            with open(json_path, "w") as f:
                json.dump({"quadrants": getattr(quadrants, "__version__", "?"),
                           "fast_math": os.environ.get("GENESIS_SCENES_FAST_MATH", "1") != "0",
                           "threads": os.environ.get("QD_NUM_THREADS", "1"), "scenes": results}, f)
    passed = [n for n in names if results[n]["status"] == "PASS"]
    print(f"{len(passed)} passed, {len(names) - len(passed)} failed")
    return 0 if len(passed) == len(names) else 1


def _horizons(text):
    try:
        values = sorted({int(x) for x in text.split(",") if x})
    except ValueError:
        values = []
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError(f"expects step counts >= 1 separated by commas, but got {text!r}")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", default=",".join(SCENES), help="comma-separated, from " + ", ".join(ALL_SCENES))
    parser.add_argument("--horizons", type=_horizons, default=[20, 200],
                        help="record the state after each of these step counts (default 20,200)")
    parser.add_argument("--steps", type=int, help="same as --horizons N")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    horizons = [args.steps] if args.steps else args.horizons
    if args.run_one:
        return run_one(args.run_one, horizons, args.json)
    names = [n for n in args.scenes.split(",") if n]
    unknown = [n for n in names if n not in ALL_SCENES]
    if unknown:
        parser.error(f"unknown scenes {unknown}; choose from {', '.join(ALL_SCENES)}")
    return run_all(names, horizons, args.json)


if __name__ == "__main__":
    sys.exit(main())
