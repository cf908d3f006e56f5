#!/usr/bin/env python3
# scripts/upstream_tests.py: runs upstream Quadrants' own Python tests, unmodified, against the installed
# quadrants on the CPU, and tabulates what passes (a developer tool; CI does not run it).
"""Run upstream Quadrants' tests against our package.

    .venv/bin/python scripts/upstream_tests.py 'test_field*.py' test_ndarray.py --json /tmp/out.json
    .venv/bin/python scripts/upstream_tests.py test_matrix.py -- -k inverse   # after --: pytest's

The upstream snapshot's tests/ and python/tools/ (its developer scripts, which three test_tools_*.py files
load by path) are exported (`git archive HEAD tests python/tools`) into a temporary directory and each
chosen file (test_*.py anywhere under tests/python, matched by name or by path) runs in its own pytest process, one at a time, with QD_WANTED_ARCHS=cpu so that
upstream's test_utils.test() parametrizes on the CPU only. A small pytest plugin streams each test's
outcome to a file as it finishes, so a file that hangs or crashes keeps what it had: the test in flight
is recorded as a timeout (or crash), the process is killed, and the file is resumed with the finished
tests deselected. A process that dies of a signal after a test's outcome was recorded (in its teardown) has
the crash noted on that test's record, and the file resumes too. The table counts xfail as skipped and xpass as passed.
Tests that start a child Python with PYTHONPATH="." import the same quadrants as pytest does: a sitecustomize.py in
the exported root puts the harness's PYTHONPATH back after the child's own entries.

A file that fails to import here collects no tests, so its tests are counted another way and each counts
as an error: collected by upstream's own quadrants (--count-python, default build/genesis-ref-venv's
Python with quadrants 1.3.3, when it exists), else counted statically from the file's AST (test functions
times the lengths of their literal @pytest.mark.parametrize lists; a list it cannot read counts as one, and
the count is marked approximate). The pass rate printed at the end is passed / all tests of the files run,
skipped ones included, and names those files and how each failing file was counted.
"""
import argparse
import ast
import collections
import fnmatch
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

DEFAULT_REPO = "/work/.mirror/Genesis-Embodied-AI+quadrants/repo"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN_NAME = "_qd_upstream_outcomes"

# The plugin runs inside the pytest process. It writes one JSON line per event and flushes each, so the
# parent sees progress while the child runs: {"start": nodeid} when a test begins, then its outcome.
PLUGIN_SOURCE = r'''
import importlib.util, json, os, re, time

import pytest

# Without QD_UPSTREAM_OUTCOMES the plugin only declares the xdist hook (to run a file by hand).
_out = open(os.environ.get("QD_UPSTREAM_OUTCOMES", os.devnull), "a", buffering=1)


def _first_line(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
        text = report.longrepr[2]
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    if lines and lines[0].startswith('File "'):  # a compile error: File, source, caret, then the error
        errors = [l for l in lines if re.match(r"[\w.]+(Error|Exception|Warning)\b", l)]
        lines = errors or lines
    return lines[0][:300] if lines else ""


def _collect_error(report):
    # A collection error's first line only says which module failed; the cause is its last "E" line.
    lines = [l[1:].strip() for l in str(report.longrepr).splitlines() if l.startswith("E ")]
    return lines[-1][:300] if lines else _first_line(report)


def _emit(**record):
    _out.write(json.dumps(record) + "\n")


class _XdistHooks:
    """Upstream's conftest implements an xdist hook; without xdist installed pytest rejects it as unknown."""

    @pytest.hookspec(firstresult=True)
    def pytest_handlecrashitem(self, crashitem, report, sched):
        pass


def pytest_addhooks(pluginmanager):
    if importlib.util.find_spec("xdist") is None:
        pluginmanager.add_hookspecs(_XdistHooks)


def pytest_runtest_logstart(nodeid, location):
    _emit(start=nodeid, t=time.time())


def pytest_collectreport(report):
    if report.failed:
        _emit(test=report.nodeid or "<collection>", outcome="error", when="collect", message=_collect_error(report))


def pytest_runtest_logreport(report):
    wasxfail = hasattr(report, "wasxfail")
    outcome = None
    if report.when == "setup" and report.failed:
        outcome = "error"
    elif report.skipped and report.when in ("setup", "call"):
        outcome = "skipped"
    elif report.when == "call":
        outcome = "passed" if report.passed else "failed"
        if wasxfail and report.passed:
            outcome = "passed"  # xpass
    elif report.when == "teardown" and report.failed:
        outcome = "error"
    if outcome is None:
        return
    _emit(test=report.nodeid, outcome=outcome, when=report.when, duration=round(report.duration, 3),
          message="" if outcome == "passed" else _first_line(report))
'''

# Some upstream tests start a child Python with PYTHONPATH="." (the exported root), as their CI has quadrants
# installed. Ours is often found through PYTHONPATH instead, which the child loses, so it imported another quadrants
# (or none). Python imports `sitecustomize` from sys.path at start-up, so this one in the root puts the harness's own
# PYTHONPATH entries back, after the child's: every child imports the same package as the pytest process.
SITECUSTOMIZE_SOURCE = r'''
import os
import sys

_mine = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
_wanted = [p for p in os.environ.get("QD_UPSTREAM_PYTHONPATH", "").split(os.pathsep) if p]
_known = {os.path.abspath(p) for p in sys.path if p}
_at = max([i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _mine], default=len(sys.path))
for _entry in reversed([p for p in _wanted if os.path.abspath(p) not in _known]):
    sys.path.insert(_at, _entry)
'''

OUTCOMES = ("passed", "failed", "error", "skipped")


# Upstream's qd.gpu is a list of the GPU archs; ours is one Arch value, which test_utils.test(arch=qd.gpu)
# would filter out. With --arch other than cpu, the exported harness (not the tests) expands it to CUDA.
GPU_FILTER = "arch = [v for v in arch if v in archs_expected]"
GPU_EXPANDED = "arch = [cuda if v is gpu else v for v in arch]; " + GPU_FILTER


def export_tests(repo, destination, expand_gpu=False):
    """Writes the snapshot's tests/ and python/tools/ under destination (tests/python/..., tests/test_utils.py).
    repo is upstream's git directory, or a tar of those (plain or xz), as the GPU bundle carries
    (scripts/gpu_bundle.sh)."""
    if os.path.isfile(repo):
        with open(repo, "rb") as f:
            archive = f.read()
        if archive.startswith(b"\xfd7zXZ\x00"):
            archive = lzma.decompress(archive)
    else:
        archive = subprocess.run(["git", "-C", repo, "archive", "HEAD", "tests", "python/tools"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", destination], input=archive, check=True)
    utils = os.path.join(destination, "tests", "test_utils.py")
    if expand_gpu and os.path.exists(utils):
        with open(utils) as f:
            text = f.read()
        if GPU_FILTER not in text:
            sys.exit("upstream_tests.py: tests/test_utils.py no longer filters archs as expected; update GPU_FILTER")
        with open(utils, "w") as f:
            f.write(text.replace(GPU_FILTER, GPU_EXPANDED, 1))
    with open(os.path.join(destination, PLUGIN_NAME + ".py"), "w") as f:
        f.write(PLUGIN_SOURCE)
    with open(os.path.join(destination, "sitecustomize.py"), "w") as f:
        f.write(SITECUSTOMIZE_SOURCE)


def test_requirements(repo):
    """The distributions upstream's `test` group names (its pyproject.toml), without versions or markers; empty
    when repo is a tar (it carries no pyproject.toml) or the snapshot has none."""
    if os.path.isfile(repo):
        return []
    shown = subprocess.run(["git", "-C", repo, "show", "HEAD:pyproject.toml"], capture_output=True, text=True)
    if shown.returncode != 0:
        return []
    project = tomllib.loads(shown.stdout)
    group = project.get("dependency-groups", {}).get("test") or project.get("project", {}).get(
        "optional-dependencies", {}).get("test", [])
    return [re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0] for requirement in group
            if isinstance(requirement, str)]  # an {include-group = ...} entry names no distribution


def missing_requirements(python, names):
    """Which of the distributions `names` the interpreter `python` does not have installed."""
    probe = ("import importlib.metadata as m, json, sys\n"
             "def missing(n):\n"
             "    try:\n        m.distribution(n)\n        return False\n"
             "    except m.PackageNotFoundError:\n        return True\n"
             "print(json.dumps([n for n in sys.argv[1:] if missing(n)]))")
    done = subprocess.run([python, "-c", probe, *names], capture_output=True, text=True)
    return json.loads(done.stdout) if done.returncode == 0 else []


def chosen_files(test_dir, patterns):
    """The test files anywhere under tests/python matching any pattern, as paths relative to it, top level first,
    each group in name order. A pattern without a slash matches a file's name, one with a slash its path."""
    names = []
    for folder, dirs, files in os.walk(test_dir):
        dirs.sort()
        relative = os.path.relpath(folder, test_dir)
        names += [n if relative == "." else os.path.join(relative, n)
                  for n in sorted(files) if n.startswith("test_") and n.endswith(".py")]
    files = []
    for pattern in patterns:
        if not pattern.endswith(".py") and not any(c in pattern for c in "*?["):
            pattern += ".py"
        by_path = "/" in pattern
        matched = [n for n in names if fnmatch.fnmatch(n if by_path else os.path.basename(n), pattern)]
        if not matched:
            print(f"warning: no upstream test file matches {pattern!r}", file=sys.stderr)
        files.extend(m for m in matched if m not in files)
    return files


def read_events(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n") and line.strip()]


def run_file(root, name, args):
    """Runs one upstream file to the end (resuming after hangs and crashes); returns {nodeid: record}.

    A test counts as finished once it has any record (its setup error, its skip or its call's outcome);
    the last started test without one is the one in flight.
    """
    results = {}
    flat = name.replace("/", "__")
    events_path = os.path.join(root, f".outcomes_{flat}.jsonl")
    log_path = os.path.join(root, f".log_{flat}.txt")
    python_path = os.pathsep.join([os.path.join(root, "tests"), os.environ.get("PYTHONPATH", "")])
    # The interpreter's folder first on PATH, as in the activated environment upstream's tests run in: tools they
    # start that look for `python` there (pyright, for the packages it resolves) find the one under test.
    search_path = os.pathsep.join([os.path.dirname(args.python), os.environ.get("PATH", "")])
    env = dict(os.environ, QD_WANTED_ARCHS=args.arch, QD_UPSTREAM_OUTCOMES=events_path, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=python_path, QD_UPSTREAM_PYTHONPATH=python_path, PATH=search_path)
    # tests/ on the path too: a few upstream files `import test_utils` rather than `from tests import test_utils`.
    env.pop("QD_ARCH", None)  # would override the arch each test asks for
    started_file = time.time()
    for _attempt in range(args.max_restarts + 1):
        if os.path.exists(events_path):
            os.unlink(events_path)
        command = [args.python, "-m", "pytest", f"tests/python/{name}", "-p", PLUGIN_NAME, "-p", "no:cacheprovider",
                   "-q", "--no-header", "-rN", "--tb=short", *[f"--deselect={n}" for n in results],
                   *args.pytest_args]
        with open(log_path, "a") as log:
            child = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
            in_flight, in_flight_since, seen, killed = None, None, 0, None
            while child.poll() is None and killed is None:
                time.sleep(0.2)
                events = read_events(events_path)
                for event in events[seen:]:
                    if "start" in event:
                        in_flight, in_flight_since = event["start"], time.time()
                    else:
                        results[event["test"]] = event
                seen = len(events)
                if in_flight in results:
                    in_flight = None
                if in_flight is not None and time.time() - in_flight_since > args.test_timeout:
                    killed = f"Timeout: the test ran past {args.test_timeout:g} s"
                elif time.time() - started_file > args.file_timeout:
                    killed = f"Timeout: the file ran past {args.file_timeout:g} s"
            if killed:
                os.killpg(child.pid, 9)
            child.wait()
        for event in read_events(events_path)[seen:]:
            if "start" in event:
                in_flight = event["start"]
            else:
                results[event["test"]] = event
        if in_flight in results:
            in_flight = None
        code = child.returncode
        if killed is None and code in (0, 1, 5):
            break  # all passed, some failed, or nothing collected
        if killed is None and code == 2 and any(r["when"] == "collect" for r in results.values()):
            break  # collection errors, recorded as such
        finished = [e["test"] for e in read_events(events_path) if "test" in e]
        if in_flight is None and killed is None and code < 0 and finished:
            # Died of a signal after a test's outcome was recorded (in its teardown, e.g. freeing memory a kernel
            # wrote past): the crash goes on that test's record, and the file resumes after it.
            last = results[finished[-1]]
            last["message"] = (last.get("message") or last["outcome"]) + f" (then the process died of signal {-code})"
            continue
        if in_flight is None:  # ended between tests: a usage error, an interrupt, or the file's time limit
            if killed is None:
                key = f"tests/python/{name}"
                results[key] = dict(test=key, outcome="error", when="collect",
                                    message=f"Crash: pytest exited with {code} outside any test (see {log_path})")
            break
        if killed is None:
            killed = f"Crash: the process died of signal {-code}" if code < 0 else f"Crash: pytest exited with {code}"
        results[in_flight] = dict(test=in_flight, outcome="error", when="call", message=killed)
        if killed.startswith("Timeout: the file"):
            break
    return results


def collection_failed(results):
    """Whether a file's run collected none of its tests (it failed at import)."""
    return bool(results) and all(r["when"] == "collect" for r in results.values())


def count_with_python(root, name, python, arch):
    """The number of tests pytest collects from the file under `python` (upstream's own quadrants), or None."""
    env = dict(os.environ, QD_WANTED_ARCHS=arch, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([os.path.join(root, "tests"), os.environ.get("PYTHONPATH", "")]))
    env.pop("QD_UPSTREAM_OUTCOMES", None)
    try:
        done = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-p", PLUGIN_NAME, "-p",
                               "no:cacheprovider", f"tests/python/{name}"], cwd=root, env=env, capture_output=True,
                              text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return sum(1 for line in done.stdout.splitlines() if line.split("::")[0].endswith(f"/{name}") and "::" in line)


def _parameter_count(node, constants):
    """How many parameter sets a parametrize argvalues node holds, or None when that cannot be read statically."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("keys", "values",
                                                                                                   "items")
            and isinstance(node.func.value, ast.Name)):  # a dict: its literal keys plus NAME[key] = ... assignments
        name = node.func.value.id
        literal = constants.get(name)
        if not isinstance(literal, ast.Dict):
            return None
        return len(literal.keys) + len(constants.get(("subscripts", name), ()))
    if isinstance(node, ast.Name):
        node = constants.get(node.id)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        try:
            return len(range(*[ast.literal_eval(a) for a in node.args]))
        except (ValueError, TypeError):
            return None
    return None


def _is_parametrize(decorator):
    return (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize")


def count_statically(path):
    """(tests, exact) of a test file from its AST: each test function (top level, under module-level if/try, or a
    method of a Test* class) times its parametrize lists' lengths. upstream's test_utils.test() adds one parameter
    set per wanted arch, one here. exact is False when some list could not be read (it counted as one)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    constants, functions = {}, []

    def visit(body, in_class=False):
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                constants[node.targets[0].id] = node.value
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
                  and isinstance(node.targets[0].value, ast.Name)):
                keys = constants.setdefault(("subscripts", node.targets[0].value.id), set())
                keys.add(ast.dump(node.targets[0].slice))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                functions.append(node)
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not in_class:
                visit(node.body, in_class=True)
            elif isinstance(node, (ast.If, ast.Try)) and not in_class:
                visit(node.body + node.orelse + [n for h in getattr(node, "handlers", []) for n in h.body])

    visit(tree.body)
    total, exact = 0, True
    for function in functions:
        count = 1
        for decorator in function.decorator_list:
            if _is_parametrize(decorator) and len(decorator.args) >= 2:
                n = _parameter_count(decorator.args[1], constants)
                exact = exact and n is not None
                count *= 1 if n is None else n
        total += count
    return total, exact


def import_failure_counts(root, per_file, python, arch):
    """{file: (tests, how they were counted)} for the files that collected nothing here."""
    counts = {}
    for name, results in per_file.items():
        if not collection_failed(results):
            continue
        n = count_with_python(root, name, python, arch) if python else None
        if n:
            counts[name] = (n, "collected by " + python)
        else:
            n, exact = count_statically(os.path.join(root, "tests", "python", name))
            counts[name] = (n, "AST count" + ("" if exact else ", approximate: a parametrize list counted as 1"))
    return counts


def print_pass_rate(per_file, failed_imports):
    """passed / all tests of the files run, a file that failed at import counting each of its tests as an error."""
    passed = total = 0
    for name, results in per_file.items():
        if name in failed_imports:
            total += failed_imports[name][0]
        else:
            total += len(results)
            passed += sum(1 for r in results.values() if r["outcome"] == "passed")
    rate = 100.0 * passed / total if total else 0.0
    print(f"\nPass rate: {passed} / {total} = {rate:.1f}% (the denominator counts every test of the "
          f"{len(per_file)} files run, skipped ones included)")
    print("Files run: " + ", ".join(per_file))
    for name, (n, how) in failed_imports.items():
        print(f"  {name} failed at import: its {n} tests count as errors ({how})")
    return passed, total


def normalize(message):
    """A failure's first line with numbers, addresses and long quoted text blurred, to group causes
    (short quoted text is usually a name, as in "has no attribute 'x'", and tells causes apart)."""
    message = re.sub(r"\S*/tests/python/(test_\w+\.py):\d+:\d+: ", "", message)  # where in the test file
    message = re.sub(r"0x[0-9a-fA-F]+", "0x…", message)
    message = re.sub(r"'[^']{40,}'", "'…'", message)
    message = re.sub(r"\d+(\.\d+)?", "N", message)
    return message[:160]


def print_table(per_file, failed_imports):
    """Outcomes per file; a file that failed at import shows each of its counted tests as an error (marked *)."""
    width = max([len("file"), len("TOTAL")] + [len(n) + 1 for n in per_file])
    header = f"{'file':<{width}}  {'passed':>6} {'failed':>6} {'errors':>6} {'skipped':>7} {'tests':>6}"
    print(header)
    print("-" * len(header))
    total = collections.Counter()
    for name, results in per_file.items():
        counts = collections.Counter(r["outcome"] for r in results.values())
        label = name
        if name in failed_imports:
            counts = collections.Counter(error=failed_imports[name][0])
            label += "*"
        counts["tests"] = sum(counts.values())
        total.update(counts)
        print(f"{label:<{width}}  {counts['passed']:>6} {counts['failed']:>6} {counts['error']:>6} "
              f"{counts['skipped']:>7} {counts['tests']:>6}")
    print("-" * len(header))
    print(f"{'TOTAL':<{width}}  {total['passed']:>6} {total['failed']:>6} {total['error']:>6} {total['skipped']:>7} "
          f"{total['tests']:>6}")
    if failed_imports:
        print("* failed at import: its tests counted as below")


def print_causes(per_file, top):
    causes = collections.Counter()
    example = {}
    for results in per_file.values():
        for record in results.values():
            if record["outcome"] in ("failed", "error"):
                key = normalize(record.get("message", ""))
                causes[key] += 1
                example.setdefault(key, record["test"])
    print(f"\nTop {top} causes of failures and errors (first line of the exception, numbers blurred):")
    for key, count in causes.most_common(top):
        print(f"{count:>5}  {key}\n       e.g. {example[key]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("patterns", nargs="+", help="test file names or globs under upstream's tests/python")
    parser.add_argument("--arch", default="cpu", help="QD_WANTED_ARCHS for upstream's test_utils (default cpu; "
                        "cuda runs its GPU tests, e.g. on the driver emulation: see scripts/run_tests.sh; arch=qd.gpu "
                        "tests then run on CUDA)")
    parser.add_argument("--repo", default=DEFAULT_REPO, help="upstream's git directory (default: the mirror), or a "
                        "tar of its tests/")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with quadrants installed")
    parser.add_argument("--count-python", default=os.path.join(REPO_ROOT, "build", "genesis-ref-venv", "bin", "python"),
                        help="an interpreter with upstream's quadrants, to count the tests of files that fail to "
                        "import here (default build/genesis-ref-venv's; without it they are counted from the AST)")
    parser.add_argument("--test-timeout", type=float, default=120, help="seconds one test may run (default 120)")
    parser.add_argument("--file-timeout", type=float, default=1800, help="seconds one file may run (default 1800)")
    parser.add_argument("--max-restarts", type=int, default=20, help="resumes per file after a hang or crash")
    parser.add_argument("--json", help="write per-test outcomes (with each failure's first line) here")
    parser.add_argument("--causes", type=int, default=15, help="how many grouped failure causes to print")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs per file)")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.pytest_args = argv[split + 1:]  # after --: passed to pytest (e.g. -k expr)
    if os.sep in args.python:  # a path relative to here: the files run from the exported root
        args.python = os.path.abspath(args.python)

    # Upstream's tests assume its `test` dependency group (pytest-xdist, pyright, ...): a test that needs a missing
    # one fails here for that reason, not for quadrants'. Said up front and at the end, and recorded in the summary.
    missing = missing_requirements(args.python, test_requirements(args.repo))
    note = (f"note: {args.python} lacks upstream's test requirements {', '.join(missing)}; tests that use them fail "
            f"for that reason (install them with: {args.python} -m pip install {' '.join(missing)})") if missing else ""
    if note:
        print(note, flush=True)
    root = tempfile.mkdtemp(prefix="qd_upstream_tests_")
    try:
        export_tests(args.repo, root, expand_gpu=args.arch != "cpu")
        files = chosen_files(os.path.join(root, "tests", "python"), args.patterns)
        per_file = {}
        for name in files:
            started = time.time()
            per_file[name] = run_file(root, name, args)
            counts = collections.Counter(r["outcome"] for r in per_file[name].values())
            print(f"[{time.time() - started:6.1f} s] {name}: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES),
                  flush=True)
        print()
        count_python = args.count_python if args.count_python and os.path.exists(args.count_python) else None
        failed_imports = import_failure_counts(root, per_file, count_python, args.arch)
        print_table(per_file, failed_imports)
        passed, total = print_pass_rate(per_file, failed_imports)
        if args.causes:
            print_causes(per_file, args.causes)
        if note:
            print("\n" + note)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({name: sorted(results.values(), key=lambda r: r["test"]) for name, results in
                           per_file.items()}, f, indent=1)
            with open(os.path.splitext(args.json)[0] + ".summary.json", "w") as f:
                json.dump({"passed": passed, "tests": total, "files": list(per_file),
                           "missing_test_requirements": missing,
                           "failed_at_import": {n: {"tests": c, "counted": how} for n, (c, how) in
                                                failed_imports.items()}}, f, indent=1)
    finally:
        if args.keep:
            print(f"\nkept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
