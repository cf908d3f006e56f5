#!/usr/bin/env python3
# scripts/upstream_gpu_files.py: which of upstream Quadrants' test files run nothing on the CPU but something on
# CUDA: the files `scripts/upstream_tests.py` skips on the CPU, for its `--arch cuda` run on a GPU (issue 33).
"""List upstream's GPU-only test files, by collecting its tests twice (no test runs).

    python scripts/upstream_gpu_files.py [--repo GITDIR_OR_TAR] [--json counts.json] > files.txt

Upstream's test_utils.test() parametrizes each test over the wanted archs it allows, and marks it skipped when
none is left. So a test collected with an `arch=` id under QD_WANTED_ARCHS=cpu runs on the CPU; one that gets
an `arch=cuda` id only under QD_WANTED_ARCHS=cuda is GPU-only. A file is listed when it has GPU-only tests and no
CPU ones. The CUDA collection needs quadrants to report CUDA as available: a GPU, or the driver emulation
(QD_CUDA_DRIVER_PATH, QD_NVRTC_PATH; see scripts/run_tests.sh). --json also counts, per file, the GPU-only tests
of files that have CPU tests too (those stay out of the list).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upstream_tests import DEFAULT_REPO, PLUGIN_NAME, export_tests  # noqa: E402

NODE = re.compile(r"^(?:tests/)?(python/test_\w+\.py)::(\S+?)(\[[^\]]*\])?$")  # ids are relative to tests/ or the root


def collect(root, arch, python):
    """{file: {test name: set of arch ids}} as pytest collects it with QD_WANTED_ARCHS=arch."""
    env = dict(os.environ, QD_WANTED_ARCHS=arch, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([os.path.join(root, "tests"), os.environ.get("PYTHONPATH", "")]))
    env.pop("QD_ARCH", None)
    proc = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-p", PLUGIN_NAME, "-p", "no:cacheprovider",
                           "--continue-on-collection-errors", "tests/python"], cwd=root, env=env, capture_output=True,
                          text=True)
    found = collections.defaultdict(lambda: collections.defaultdict(set))
    for line in proc.stdout.splitlines():
        match = NODE.match(line.strip())
        if match:
            path, test, params = match.groups()
            archs = set(re.findall(r"arch=([A-Za-z0-9_]+)", params or ""))
            found[path][test].update(archs)
    if not found:
        raise SystemExit(f"upstream_gpu_files.py: collection with QD_WANTED_ARCHS={arch} found no tests:\n"
                         + (proc.stdout + proc.stderr)[-3000:])
    return found


def gpu_only(cpu, cuda):
    """({file: GPU-only test count} for files with no CPU test, {file: count} for files with both)."""
    only, mixed = {}, {}
    for path, tests in sorted(cuda.items()):
        gpu_tests = [t for t, archs in tests.items() if "cuda" in archs and not cpu.get(path, {}).get(t)]
        if not gpu_tests:
            continue
        cpu_tests = [t for t, archs in cpu.get(path, {}).items() if archs]
        (mixed if cpu_tests else only)[path] = len(gpu_tests)
    return only, mixed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=DEFAULT_REPO, help="upstream's git directory, or a tar of its tests/")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with quadrants installed")
    parser.add_argument("--json", help="write the per-file counts here")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="qd_upstream_gpu_files_")
    try:
        export_tests(args.repo, root, expand_gpu=False)
        cpu = collect(root, "cpu", args.python)
        export_tests(args.repo, root, expand_gpu=True)  # rewrites test_utils.py with qd.gpu expanded to CUDA
        cuda = collect(root, "cuda", args.python)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    only, mixed = gpu_only(cpu, cuda)
    for path in only:
        print(os.path.basename(path))
    print(f"{len(only)} GPU-only files ({sum(only.values())} tests); {len(mixed)} files with CPU tests also have "
          f"{sum(mixed.values())} GPU-only tests", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu_only_files": only, "gpu_only_tests_in_mixed_files": mixed}, f, indent=1)


if __name__ == "__main__":
    main()
