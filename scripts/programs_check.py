#!/usr/bin/env python3
# scripts/programs_check.py: runs the example programs of tests/programs/ and compares final states.
#
#   python scripts/programs_check.py                 # ours (this interpreter) against the stored references
#   python scripts/programs_check.py --live          # ours against quadrants 1.3.3 run now (same inputs)
#   python scripts/programs_check.py --update-references   # remake tests/programs/references/ on 1.3.3
#   python scripts/programs_check.py --calibrate     # 1.3.3 against its stored self: fast_math off,
#                                                    # 1 and 4 threads, random_seed=1,2,3; prints ratios
#   options: --programs mpm88,fem99 (names or paths), --reference-python PY (default
#            /work/venvs/q133/bin/python), --python PY (ours; default this interpreter), --arch cuda,
#            --timeout S, --jobs N
#
# Not part of CI: it needs a venv with quadrants==1.3.3 (python3 -m venv /work/venvs/q133 &&
# /work/venvs/q133/bin/pip install quadrants==1.3.3 numpy). CI runs tests/python/test_programs.py,
# which does the first form. A check passes when its ratio (distance / tolerance) is at most 1;
# tests/programs/manifest.py says why each tolerance is what it is. Exits 1 when a program fails.
import argparse
import concurrent.futures
import os
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "programs"))

import numpy as np  # noqa: E402

import compare  # noqa: E402
import manifest  # noqa: E402

DEFAULT_REFERENCE_PYTHON = "/work/venvs/q133/bin/python"
# The perturbations 1.3.3 is measured under: IEEE math instead of its default fast math; thread counts
# that change the order of atomic float sums and which thread draws which qd.random() number; and three
# other random seeds, which give the spread of a program's statistics over its random starts.
PERTURBATIONS = [("fast_math=False", {"fast_math": False}), ("1 thread", {"threads": 1}),
                 ("4 threads", {"threads": 4})] + [(f"random_seed={seed}", {"random_seed": seed})
                                                   for seed in (1, 2, 3)]


def draws_random_numbers(program):
    """Whether the program calls qd.random()/qd.randn(): only then can a random seed change its result."""
    with open(os.path.join(REPO, "tests", "programs", program.path)) as source:
        text = source.read()
    return "qd.random(" in text or "qd.randn(" in text


def select(names):
    if not names:
        return list(manifest.PROGRAMS)
    chosen = []
    for name in names.split(","):
        found = [p for p in manifest.PROGRAMS if name in (p.name, p.path, p.name.split("/")[-1])]
        if not found:
            sys.exit(f"programs_check.py: no program named {name!r}; see tests/programs/manifest.py")
        chosen += found
    return chosen


def run(program, python, side, workdir, timeout, reuse=False, **options):
    """Runs `program` on `python`; returns (arrays, None) or (None, error text). `side` names the .npz, which
    is kept with the compared stdout in it; with `reuse`, a kept one is read instead of running again."""
    tag = "_".join(f"{key}-{value}" for key, value in sorted(options.items())) or "default"
    out = os.path.join(workdir, f"{program.name.replace('/', '__')}.{side}.{tag}.npz")
    kept = out[:-4] + ".kept.npz"
    if reuse and os.path.exists(kept):
        return compare.load_arrays(kept), None
    try:
        arrays = compare.run_program(program, out, python=python, timeout=timeout, **options)
    except Exception as error:  # a failing program is a result to report, not a reason to stop
        return None, str(error)
    np.savez(kept, **arrays)
    return arrays, None


def report(label, program, rows, error):
    if error is not None:
        print(f"FAIL  {program.name:40s} {label}: {error.splitlines()[0]}")
        for line in error.splitlines()[1:][-6:]:
            print(f"        {line}")
        return False
    key, ratio, detail = compare.worst(rows)
    verdict = "ok  " if ratio <= 1 else "FAIL"
    print(f"{verdict}  {program.name:40s} {label}: worst ratio {ratio:.3g} ({key}: {detail})")
    return ratio <= 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--live", action="store_true", help="compare ours with 1.3.3 run now")
    mode.add_argument("--update-references", action="store_true", help="remake the stored references on 1.3.3")
    mode.add_argument("--calibrate", action="store_true", help="compare perturbed 1.3.3 runs with the references")
    parser.add_argument("--programs", default="", help="comma-separated names (default: all)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with our quadrants")
    parser.add_argument("--reference-python", default=DEFAULT_REFERENCE_PYTHON, help="one with quadrants 1.3.3")
    parser.add_argument("--arch", default="cpu", choices=["cpu", "cuda"], help="arch for our runs")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per program run")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once")
    parser.add_argument("--perturbations", default="", help="with --calibrate: labels to run, comma-separated "
                        "(default: all of " + ", ".join(label for label, _ in PERTURBATIONS) + ")")
    parser.add_argument("--keep", default="", help="a folder to keep every run's .npz in (default: none kept)")
    parser.add_argument("--reuse", action="store_true", help="with --keep: read runs kept there instead of "
                        "running them again (to recompute ratios after changing manifest.py)")
    args = parser.parse_args()
    programs = select(args.programs)
    needs_reference = args.live or args.update_references or args.calibrate
    if needs_reference and not os.path.exists(args.reference_python):
        sys.exit(f"programs_check.py: no interpreter at {args.reference_python}; make it with: python3 -m venv "
                 "/work/venvs/q133 && /work/venvs/q133/bin/pip install quadrants==1.3.3 numpy")

    def one(program, workdir):
        lines_ok = []
        if args.update_references:
            arrays, error = run(program, args.reference_python, "1.3.3", workdir, args.timeout)
            if error is None:
                compare.save_reference(program, arrays)
                print(f"saved {program.reference} ({arrays['__seconds__']:.1f} s)")
            return [report("1.3.3", program, [("-", 0.0, "saved")], error)]
        if args.calibrate:
            reference = compare.load_reference(program)
            for label, options in PERTURBATIONS:
                if args.perturbations and label not in args.perturbations.split(","):
                    continue
                if "random_seed" in options and not draws_random_numbers(program):
                    continue
                arrays, error = run(program, args.reference_python, "1.3.3", workdir, args.timeout, args.reuse,
                                    **options)
                rows = compare.compare(program, arrays, reference) if error is None else None
                lines_ok.append(report(f"1.3.3 {label}", program, rows, error))
                if rows:
                    for key, ratio, detail in rows:
                        print(f"        {key:28s} {ratio:9.3g}  {detail}")
            return lines_ok
        if args.live:
            reference, error = run(program, args.reference_python, "1.3.3", workdir, args.timeout)
            if error is not None:
                return [report("1.3.3 itself", program, None, error)]
        else:
            reference = compare.load_reference(program)
        arrays, error = run(program, args.python, "ours", workdir, args.timeout, arch=args.arch)
        rows = compare.compare(program, arrays, reference) if error is None else None
        label = f"ours ({arrays['__seconds__']:.1f} s)" if error is None else "ours"
        return [report(label, program, rows, error)]

    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda program: one(program, workdir), programs))
    passed = sum(all(result) for result in results)
    print(f"\n{passed} of {len(programs)} programs passed")
    sys.exit(0 if passed == len(programs) else 1)


if __name__ == "__main__":
    main()
