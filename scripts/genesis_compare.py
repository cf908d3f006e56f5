#!/usr/bin/env python3
# scripts/genesis_compare.py: compares two scripts/genesis_scenes.py result files, per scene at the horizon and with
# the tolerances chosen from that scene's sensitivity on quadrants 1.3.3 itself (docs/genesis_status.md; issue 34).
"""Compare Genesis scene states from two runs (standard library only, so any Python can run it).

    python genesis_compare.py OURS.json REFERENCE.json             # MATCH/DIFFER per scene, by POLICIES
    python genesis_compare.py A.json B.json --curve                # the largest differences at every horizon

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
class Policy:
    """How a scene is compared: at which horizon (steps), element by element or by statistics, and within what."""
    horizon: int
    pos_tol: float  # metres (quaternions, joint angles: unitless/radians), absolute
    vel_tol: float  # m/s, rad/s, absolute
    statistics: bool = False
    note: str = ""


# Chosen from the sensitivity runs of quadrants 1.3.3 against itself (fast_math=False, 2 threads), recorded in
# docs/genesis_status.md: each tolerance is about 10x the largest self-difference at that horizon, and at least
# 1e-4 (float32 states of order 1); a scene whose self-difference grows to its own scale is compared by statistics.
POLICIES = {
    "rigid": Policy(200, 1e-4, 1e-3),
    "franka": Policy(200, 1e-4, 1e-3),
    "sph": Policy(200, 1e-3, 1e-2, statistics=True),
    "boxes": Policy(200, 1e-4, 1e-3),
    "mpm": Policy(200, 1e-4, 1e-3),
    "pbd": Policy(200, 1e-3, 1e-2, statistics=True),
    "fem": Policy(200, 1e-4, 1e-3),
    "go2": Policy(200, 1e-4, 1e-3),
    "duck": Policy(200, 1e-4, 1e-3),
}
DEFAULT_POLICY = Policy(200, 1e-4, 1e-3)


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
    """One line per scene: MATCH, DIFFER or NOT COMPARED, by the scene's policy; returns the exit status."""
    first, second = _load(first_path)["scenes"], _load(second_path)["scenes"]
    bad = 0
    for name, a in first.items():
        b = second.get(name, {"status": "MISSING"})
        policy = policies.get(name, DEFAULT_POLICY)
        why = _usable(name, a, b)
        horizon = str(policy.horizon)
        if not why and (horizon not in a["states"] or horizon not in b["states"]):
            why = f"no state after {horizon} steps (run with --horizons including {horizon})"
        if not why and (_has_nan(a["states"][horizon]) or _has_nan(b["states"][horizon])):
            why = "a NaN or infinity in the state (first: %s, second: %s)" % (
                _has_nan(a["states"][horizon]), _has_nan(b["states"][horizon]))
        if why:
            print(f"NOT COMPARED {name}: {why}")
            bad += 1
            continue
        pos, pos_at, vel, vel_at = compare_states(a["states"][horizon], b["states"][horizon], policy.statistics)
        ok = pos <= policy.pos_tol and vel <= policy.vel_tol
        bad += not ok
        how = "statistics" if policy.statistics else "elementwise"
        print(f"{'MATCH' if ok else 'DIFFER'} {name} ({horizon} steps, {how}): position {pos:.3g} (tolerance "
              f"{policy.pos_tol:g}), velocity {vel:.3g} (tolerance {policy.vel_tol:g})")
        if not ok:
            print(f"    position at {pos_at}\n    velocity at {vel_at}")
    return 1 if bad else 0


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
    parser.add_argument("second")
    parser.add_argument("--curve", action="store_true", help="print the differences at every horizon")
    args = parser.parse_args()
    return curve(args.first, args.second) if args.curve else compare(args.first, args.second)


if __name__ == "__main__":
    sys.exit(main())
