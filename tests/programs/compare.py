# tests/programs/compare.py: running an example program and comparing its final state with a reference.
#
# Used by tests/python/test_programs.py (ours against the stored 1.3.3 references, in CI) and by
# scripts/programs_check.py (outside CI: makes the references on quadrants 1.3.3, measures how far 1.3.3
# moves from itself under perturbations, and runs both sides live). The programs and the check of each
# saved array are listed in tests/programs/manifest.py.
#
# Every check returns a ratio: how far the two states are apart divided by how far they may be. A ratio
# at most 1 passes. --calibrate prints the ratios 1.3.3 reaches against itself (fast_math off, other
# thread counts), which is what each tolerance must stay clear of.
import dataclasses
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCES = os.path.join(HERE, "references")
STDOUT_KEY = "stdout"  # where a program's compared printed lines are kept in its .npz


@dataclasses.dataclass(frozen=True)
class Close:
    """Element by element: |got - ref| <= atol + rtol * |ref|, for all but `mismatch_fraction` of the
    elements (for escape-time images and thresholds, where a rounding difference flips a few pixels).
    Integer and boolean arrays with no tolerance must be equal."""

    rtol: float = 0.0
    atol: float = 0.0
    mismatch_fraction: float = 0.0

    def ratio(self, got, ref):
        got64, ref64 = got.astype(np.float64), ref.astype(np.float64)
        nan_got, nan_ref = np.isnan(got64), np.isnan(ref64)
        if (nan_got != nan_ref).any():
            return math.inf, f"NaN at {int((nan_got != nan_ref).sum())} places where the other side has none"
        both = ~nan_got
        with np.errstate(invalid="ignore", over="ignore"):
            excess = np.abs(got64[both] - ref64[both]) - (self.atol + self.rtol * np.abs(ref64[both]))
            scale = self.atol + self.rtol * np.abs(ref64[both])
        if excess.size == 0:
            return 0.0, "empty"
        outside = excess > 0
        if self.mismatch_fraction > 0:
            share = float(outside.mean())
            return share / self.mismatch_fraction, f"{share:.2%} of elements outside rtol/atol"
        with np.errstate(divide="ignore", invalid="ignore"):
            diff = np.abs(got64[both] - ref64[both])
            per_element = np.where(diff == 0, 0.0, diff / scale)
        worst = int(np.argmax(per_element))
        return float(per_element[worst]), f"largest |difference| {diff.max():.3g} (ref there {ref64[both][worst]:.6g})"


@dataclasses.dataclass(frozen=True)
class Stats:
    """Distributions instead of elements, for states that start from qd.random() (whose streams differ
    between implementations and between thread counts of one) or that are chaotic: the mean, standard
    deviation and 5/25/50/75/95% quantiles of each component (the trailing `component_ndim` axes; 0 pools
    all elements) must agree within `tol` times the reference's standard deviation of that component, or
    `floor` times the largest |value| of the array where that is larger (a component that barely varies,
    like the sideways velocity of a falling block, would otherwise be held to its rounding noise).
    quantiles=False compares the mean and standard deviation only: for small integers (cell counts),
    where a quantile moves in whole steps."""

    tol: float
    component_ndim: int = 0
    floor: float = 1e-3
    quantiles: bool = True

    def ratio(self, got, ref):
        def columns(array):
            array = array.astype(np.float64)
            width = int(np.prod(array.shape[array.ndim - self.component_ndim:])) if self.component_ndim else 1
            return array.reshape(-1, width)

        def summary(cols):
            moments = [cols.mean(axis=0), cols.std(axis=0)]
            if not self.quantiles:
                return np.vstack(moments)
            return np.vstack(moments + [np.quantile(cols, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0)])

        got_cols, ref_cols = columns(got), columns(ref)
        if not (np.isfinite(got_cols).all() and np.isfinite(ref_cols).all()):
            return math.inf, "non-finite values"
        spread = np.maximum(ref_cols.std(axis=0), self.floor * np.abs(ref_cols).max()) + 1e-30
        distance = np.abs(summary(got_cols) - summary(ref_cols)) / (self.tol * spread)
        row, col = np.unravel_index(int(np.argmax(distance)), distance.shape)
        name = ["mean", "std", "q05", "q25", "q50", "q75", "q95"][row]
        return float(distance[row, col]), f"{name} of component {col} off by {distance[row, col] * self.tol:.3g} std"


@dataclasses.dataclass(frozen=True)
class Within:
    """Bounds that hold whatever the random start: every value in [low, high] (for invariants such as a
    conserved quantity's drift, or the closest pair of Poisson disk samples)."""

    low: float = -math.inf
    high: float = math.inf

    def ratio(self, got, ref):
        values = got.astype(np.float64)
        if not np.isfinite(values).all():
            return math.inf, "non-finite values"
        if values.min() < self.low or values.max() > self.high:
            return math.inf, f"values span [{values.min():.6g}, {values.max():.6g}], outside [{self.low}, {self.high}]"
        return 0.0, f"values span [{values.min():.6g}, {values.max():.6g}]"


@dataclasses.dataclass(frozen=True)
class Lines:
    """Printed lines (kept under STDOUT_KEY), compared as sorted multisets: prints from parallel loops come
    in any order."""

    def ratio(self, got, ref):
        got_lines, ref_lines = sorted(got.tolist()), sorted(ref.tolist())
        if got_lines == ref_lines:
            return 0.0, f"{len(ref_lines)} lines equal"
        missing = [line for line in ref_lines if line not in got_lines][:3]
        extra = [line for line in got_lines if line not in ref_lines][:3]
        return math.inf, f"{len(got_lines)} lines, {len(ref_lines)} expected; missing {missing}, unexpected {extra}"


@dataclasses.dataclass(frozen=True)
class Program:
    """One example program: where it is, how each saved array is checked, and why those tolerances."""

    path: str  # relative to tests/programs
    checks: dict  # saved or derived array name -> Close/Stats/Within/Lines; arrays not named use `default`
    why: str  # the reason for the tolerances, measured with scripts/programs_check.py --calibrate
    default: object = Close(rtol=1e-5, atol=1e-6)
    derive: object = None  # arrays -> {name: array}: invariants computed from the saved state
    stdout: str = ""  # regex of printed lines compared with Lines() (empty: stdout not compared)
    slow: bool = False  # left out of CI's default slice (tests/python/test_programs.py)

    @property
    def name(self):
        return self.path[:-3]

    @property
    def reference(self):
        return os.path.join(REFERENCES, self.name + ".npz")


def run_program(program, out_npz, python=sys.executable, arch="cpu", threads=None, fast_math=None,
                random_seed=None, timeout=600, env=None):
    """Runs one program in a fresh interpreter `python` (ours or 1.3.3's venv); returns a dict of its saved
    arrays plus its filtered stdout, or raises RuntimeError with the end of its output."""
    command = [python, os.path.join(HERE, "run_program.py"), os.path.join(HERE, program.path), out_npz,
               "--arch", arch]
    if threads is not None:
        command += ["--threads", str(threads)]
    if fast_math is not None:
        command += ["--fast-math", str(int(fast_math))]
    if random_seed is not None:
        command += ["--random-seed", str(random_seed)]
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as cwd:  # programs may drop files (profiler output) where they run
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace",
                                timeout=timeout, env=env)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        tail = (result.stdout[-1500:] + "\n" + result.stderr[-3000:]).strip()
        raise RuntimeError(f"{program.path} exited with {result.returncode} after {seconds:.1f} s:\n{tail}")
    with np.load(out_npz) as saved:
        arrays = {key: saved[key] for key in saved.files}
    if program.stdout:
        pattern = re.compile(program.stdout)
        lines = [line for line in result.stdout.splitlines() if pattern.search(line)]
        arrays[STDOUT_KEY] = np.array(lines, dtype=str)
    arrays["__seconds__"] = np.float64(seconds)
    return arrays


def load_arrays(path):
    with np.load(path) as saved:
        return {key: saved[key] for key in saved.files}


def load_reference(program):
    return load_arrays(program.reference)


def save_reference(program, arrays):
    os.makedirs(os.path.dirname(program.reference), exist_ok=True)
    kept = {key: value for key, value in arrays.items() if not key.startswith("__")}
    np.savez_compressed(program.reference, **kept)


def compare(program, got, ref):
    """[(array name, ratio, detail)] for every array of the reference and every derived one; a shape or
    dtype difference, or a missing array, is ratio inf."""
    got = {key: value for key, value in got.items() if not key.startswith("__")}
    ref = {key: value for key, value in ref.items() if not key.startswith("__")}
    if program.derive is not None:
        got = {**got, **{f"derived:{k}": v for k, v in program.derive(got).items()}}
        ref = {**ref, **{f"derived:{k}": v for k, v in program.derive(ref).items()}}
    rows = []
    for key in sorted(ref):
        check = program.checks.get(key, Lines() if key == STDOUT_KEY else program.default)
        if key not in got:
            rows.append((key, math.inf, "missing"))
        elif got[key].shape != ref[key].shape:
            rows.append((key, math.inf, f"shape {got[key].shape}, expected {ref[key].shape}"))
        elif got[key].dtype != ref[key].dtype and key != STDOUT_KEY:
            rows.append((key, math.inf, f"dtype {got[key].dtype}, expected {ref[key].dtype}"))
        else:
            ratio, detail = check.ratio(got[key], ref[key])
            rows.append((key, ratio, detail))
    for key in sorted(set(got) - set(ref)):
        rows.append((key, math.inf, "saved here but not in the reference"))
    return rows


def worst(rows):
    """The row with the largest ratio."""
    return max(rows, key=lambda row: row[1])
