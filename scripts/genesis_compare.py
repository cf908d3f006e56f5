#!/usr/bin/env python3
# scripts/genesis_compare.py: compares two scripts/genesis_scenes.py result files, per scene at the horizon and with
# the tolerances chosen from that scene's sensitivity on quadrants 1.3.3 itself (docs/genesis_status.md; issue 34).
"""Compare Genesis scene states from two runs (standard library only, so any Python can run it).

    python genesis_compare.py OURS.json REFERENCE.json             # MATCH/DIFFER per scene, by POLICIES
    python genesis_compare.py A.json B.json --curve                # the largest differences at every horizon
    python genesis_compare.py REF.json REF2.json REF3.json --suggest  # POLICIES from 1.3.3's own sensitivity

A scene compares either element by element (positions and velocities, each against its own tolerance) or, for a
chaotic scene, by statistics of its particles (centroid, spread, lowest and highest point, mean and rms speed),
which two correct runs share long after their particles have parted. A NaN anywhere, on either side, is a failure.
"""
import argparse
import json
import math
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """One comparison of a scene: after `horizon` steps, element by element or by statistics, within tolerances."""
    horizon: int
    pos_tol: float  # metres (quaternions, joint angles: unitless/radians), absolute
    vel_tol: float  # m/s, rad/s, absolute
    statistics: bool = False


# How the tolerances are chosen (suggest_policies() applies it to sensitivity runs; docs/genesis_status.md has the
# runs): a scene is compared element by element at the last horizon before quadrants 1.3.3 first parts from itself
# (with fast_math=False, and with 2 threads) by more than DIVERGED_M in positions, within 10x that self-difference (at least
# the floors: float32 states of order 1 m); when that horizon is short of the longest, the scene is chaotic there and
# is also compared by statistics at the longest horizon, again within 10x 1.3.3's own difference, when it has
# particles (a few chaotic rigid bodies are compared only before they part).
DIVERGED_M = 1e-4
POS_FLOOR, VEL_FLOOR, MARGIN = 1e-5, 1e-4, 10.0
# Measured 2026-11-28 (docs/genesis_status.md): sph, mpm, fem, pbd, duck, franka (franka: fast_math=False only); rigid,
# boxes and go2 on 2026-11-29 (all three non-chaotic over 200 steps: 1.3.3 parts from itself by at most 7.7e-7 m, so
# the floors apply). A scene not listed gets DEFAULT_POLICY, 1.3.3's largest self-difference among the measured
# non-chaotic scenes times 10, rounded up, which `--suggest` should replace.
POLICIES = {
    "sph": (Check(100, 1.2e-4, 1.5e-3), Check(200, 5.2e-4, 2.4e-4, statistics=True)),  # chaotic from ~100 steps
    "mpm": (Check(200, 1e-5, 1e-4),),
    "fem": (Check(200, 1e-5, 1e-4),),
    "pbd": (Check(50, 2.9e-4, 0.24), Check(200, 4.7e-4, 1.9e-3, statistics=True)),  # parts by 100 steps
    "franka": (Check(200, 4.3e-5, 1.2e-4),),
    "duck": (Check(50, 3.7e-4, 0.011),),  # the ball's bounce off the duck parts 1.3.3 from itself by 100 steps
    "rigid": (Check(200, 1e-5, 1e-4),),
    "boxes": (Check(200, 1e-5, 1e-4),),
    "go2": (Check(200, 1e-5, 1e-4),),
}
DEFAULT_POLICY = (Check(200, 1e-4, 1e-3),)  # a scene not measured: see above


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def _points(value):
    """A nested list whose innermost lists are xyz triples, as a flat list of triples."""
    flat = _flatten(value)
    return [flat[i:i + 3] for i in range(0, len(flat) - 2, 3)]


def _has_nan(state):
    return any(isinstance(x, float) and not math.isfinite(x)
               for kind in state.values() for value in kind.values() for x in _flatten(value))


def largest_difference(a, b):
    """(difference, where) over the keys of a's state section `a` against b's; inf when the shapes differ."""
    worst, where = 0.0, ""
    for key, value in a.items():
        xs, ys = _flatten(value), _flatten(b.get(key, []))
        if len(xs) != len(ys):
            return math.inf, f"{key} (length {len(xs)} vs {len(ys)})"
        for i, (x, y) in enumerate(zip(xs, ys)):
            if abs(x - y) > worst:
                worst, where = abs(x - y), f"{key}[{i}]: {x:.7g} vs {y:.7g}"
    return worst, where


def statistics(state):
    """Per particle array: centroid, spread (std per axis), lowest and highest z; per velocity: mean and rms speed."""
    out = {}
    for key, value in state["pos"].items():
        pts = _points(value)
        n = len(pts)
        mean = [sum(p[k] for p in pts) / n for k in range(3)]
        std = [math.sqrt(sum((p[k] - mean[k]) ** 2 for p in pts) / n) for k in range(3)]
        out[f"{key}.centroid"] = mean
        out[f"{key}.spread"] = std
        out[f"{key}.z_range"] = [min(p[2] for p in pts), max(p[2] for p in pts)]
    speeds = {}
    for key, value in state["vel"].items():
        s = [math.sqrt(sum(c * c for c in p)) for p in _points(value)]
        speeds[f"{key}.speed"] = [sum(s) / len(s), math.sqrt(sum(x * x for x in s) / len(s))]
    return {"pos": out, "vel": speeds}


def compare_states(a, b, use_statistics):
    """(position difference, where, velocity difference, where) of two states."""
    if use_statistics:
        a, b = statistics(a), statistics(b)
    pos = largest_difference(a["pos"], b["pos"])
    vel = largest_difference(a["vel"], b["vel"])
    return pos[0], pos[1], vel[0], vel[1]


def _load(path):
    with open(path) as f:
        data = json.load(f)
    if "scenes" not in data:
        raise SystemExit(f"{path}: not a result file of this genesis_scenes.py (no 'scenes'); rerun the scenes.")
    return data


def _usable(name, a, b):
    """Why scene `name` cannot be compared, or ''."""
    if a["status"] != "PASS" or b["status"] != "PASS":
        return f"first {a['status']}, second {b['status']}"
    return ""


def compare(first_path, second_path, policies=POLICIES):
    """One line per scene and check: MATCH, DIFFER or NOT COMPARED, by the scene's policy; returns the exit status."""
    first, second = _load(first_path)["scenes"], _load(second_path)["scenes"]
    bad = 0
    for name, a in first.items():
        b = second.get(name, {"status": "MISSING"})
        why = _usable(name, a, b)
        if why:
            print(f"NOT COMPARED {name}: {why}")
            bad += 1
            continue
        for check in policies.get(name, DEFAULT_POLICY):
            horizon = str(check.horizon)
            if horizon not in a["states"] or horizon not in b["states"]:
                print(f"NOT COMPARED {name}: no state after {horizon} steps (run with --horizons including {horizon})")
                bad += 1
                continue
            sa, sb = a["states"][horizon], b["states"][horizon]
            if _has_nan(sa) or _has_nan(sb):
                print(f"NOT COMPARED {name}: a NaN or infinity after {horizon} steps (first: {_has_nan(sa)}, "
                      f"second: {_has_nan(sb)})")
                bad += 1
                continue
            pos, pos_at, vel, vel_at = compare_states(sa, sb, check.statistics)
            ok = pos <= check.pos_tol and vel <= check.vel_tol
            bad += not ok
            how = "statistics" if check.statistics else "elementwise"
            print(f"{'MATCH' if ok else 'DIFFER'} {name} ({horizon} steps, {how}): position {pos:.3g} (tolerance "
                  f"{check.pos_tol:.2g}), velocity {vel:.3g} (tolerance {check.vel_tol:.2g})")
            if not ok:
                print(f"    position at {pos_at}\n    velocity at {vel_at}")
    return 1 if bad else 0


def suggest_policies(reference_path, variant_paths):
    """Prints POLICIES entries from 1.3.3's runs against itself, by the rule above DIVERGED_M."""
    ref = _load(reference_path)["scenes"]
    variants = [_load(p)["scenes"] for p in variant_paths]
    for name, a in ref.items():
        runs = [v[name] for v in variants if name in v and not _usable(name, a, v[name])]
        if a["status"] != "PASS" or not runs:
            print(f"# {name}: no sensitivity runs")
            continue
        horizons = sorted(set.intersection(set(a["states"]), *(set(r["states"]) for r in runs)), key=int)
        self_diff = {}
        for h in horizons:
            diffs = [compare_states(a["states"][h], r["states"][h], False) for r in runs]
            stats = [compare_states(a["states"][h], r["states"][h], True) for r in runs]
            self_diff[h] = (max(d[0] for d in diffs), max(d[2] for d in diffs), max(d[0] for d in stats),
                            max(d[2] for d in stats))
        calm = []  # the horizons before 1.3.3 first parts from itself (a cloth may part and settle back)
        for h in horizons:
            if self_diff[h][0] > DIVERGED_M:
                break
            calm.append(h)
        checks = []
        if calm:
            h = calm[-1]
            checks.append(f"Check({h}, {max(POS_FLOOR, MARGIN * self_diff[h][0]):.2g}, "
                          f"{max(VEL_FLOOR, MARGIN * self_diff[h][1]):.2g})")
        last = horizons[-1]
        # Statistics describe many particles; for a few rigid bodies they are the positions themselves.
        many = max(len(_points(v)) for v in a["states"][last]["pos"].values()) > 8
        if (not calm or calm[-1] != last) and many:
            checks.append(f"Check({last}, {max(POS_FLOOR, MARGIN * self_diff[last][2]):.2g}, "
                          f"{max(VEL_FLOOR, MARGIN * self_diff[last][3]):.2g}, statistics=True)")
        print(f'    "{name}": ({", ".join(checks)},),  # 1.3.3 self-difference (pos, vel, stats pos, stats vel): '
              + "; ".join(f"{h}: " + ", ".join(f"{x:.2g}" for x in self_diff[h]) for h in horizons))
    return 0


def curve(first_path, second_path):
    """Per scene and horizon, the largest position and velocity differences, elementwise and by statistics."""
    first, second = _load(first_path)["scenes"], _load(second_path)["scenes"]
    for name, a in first.items():
        b = second.get(name, {"status": "MISSING"})
        why = _usable(name, a, b)
        if why:
            print(f"{name}: not compared ({why})")
            continue
        for horizon in sorted(set(a["states"]) & set(b["states"]), key=int):
            sa, sb = a["states"][horizon], b["states"][horizon]
            nan = _has_nan(sa) or _has_nan(sb)
            elem = compare_states(sa, sb, False)
            stats = compare_states(sa, sb, True) if not nan else (math.nan, "", math.nan, "")
            print(f"{name} {horizon:>4} steps: elementwise pos {elem[0]:.3g} vel {elem[2]:.3g}; statistics pos "
                  f"{stats[0]:.3g} vel {stats[2]:.3g}" + ("  NaN" if nan else ""))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first")
    parser.add_argument("second", nargs="+")
    parser.add_argument("--curve", action="store_true", help="print the differences at every horizon")
    parser.add_argument("--suggest", action="store_true",
                        help="FIRST is 1.3.3, SECOND its reruns (fast_math=False, 2 threads): print POLICIES entries")
    args = parser.parse_args()
    if args.suggest:
        return suggest_policies(args.first, args.second)
    if len(args.second) != 1:
        parser.error("give one SECOND file (several only with --suggest)")
    return curve(args.first, args.second[0]) if args.curve else compare(args.first, args.second[0])


if __name__ == "__main__":
    sys.exit(main())
