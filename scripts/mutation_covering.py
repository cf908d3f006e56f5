#!/usr/bin/env python3
# scripts/mutation_covering.py: the third tier of scripts/mutation_check.py --generated: each survivor of the fast
# slices runs again against the tests that execute its line, so "survived" means the tests that reach it miss it.
"""Tier 3 of the generated-mutant run: the tests that cover a survivor's line.

The fast slices (tiers 1 and 2) are a fixed handful of files; a mutant in code they never reach survives them
whatever the rest of the suite does. This tier gives each survivor a fair chance:

- A coverage map, built once per commit (`coverage run` with one dynamic context per test function, the
  translation cache off so the frontend really runs), says which test functions execute each line of the
  Python files that mutants are drawn from. A Python survivor reruns those tests (fastest first, at most
  --covering-limit), again under coverage of its own file, so the record says whether the mutated line was
  reached at all (`reached`): a mutant whose covering tests pass and reach its line is a real survivor.
- C++ pass survivors rebuild and run every C++ test (not just CPP_FILTER) and then the Python test files named
  for their pass in CPP_PASS_TESTS (a topic map: the passes run on every kernel, line coverage of C++ would need
  an instrumented build).

Every run sets QD_TRANSLATION_CACHE=0: the translation cache keys on each .py file's size and mtime, which a
mutant changes, but a run should not depend on that to see the mutated frontend. The compiled-kernel cache is
kept: it is keyed by the generated source, which a mutant that matters changes.

Mutants recorded at an older commit are found again by name (same byte offset) or, when the file moved on, by
their line's text and column (`line_text`, `column`); one whose line is gone is reported `stale`.
"""
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

# The Python test files each C++ pass is exercised by beyond the C++ tests (the pass's own topic).
CPP_PASS_TESTS = {
    "infer_types": ["test_kernel_language.py", "test_simt_warp.py", "test_simt_subgroup.py", "test_bit_shifts.py",
                    "test_dtype_values.py", "test_defined_semantics.py"],
    "const_eval": ["test_defined_semantics.py", "test_kernel_differential.py", "test_int_wrap.py",
                   "test_bit_shifts.py", "test_overflow_checks.py"],
    "forward_ad": ["test_autodiff_forward.py", "test_autodiff.py"],
    "ad_rules": ["test_autodiff.py", "test_autodiff_forward.py", "test_autodiff_loops.py", "test_autodiff_stack.py"],
    "check_names": ["test_lang_errors.py", "test_real_func.py", "test_upstream_errors_compat.py"],
    "validate_access": ["test_simt_block.py", "test_simt_warp.py", "test_lang_errors.py"],
    "privatize_atomics": ["test_atomic_privatization.py", "test_autodiff.py"],
    "debug_checks": ["test_overflow_checks.py", "test_check_out_of_bound.py", "test_integer_powers.py"],
}
# `--map-tests topics`: the test files of the topics the fast slices leave out (sparse SNodes, random numbers,
# graphs and checkpoints, print formats, walrus and builtins, vectors, structs, dataclasses, real functions,
# autodiff, atomics, SIMT, upstream's names and error messages), for a map built in about 15 minutes on 2 busy
# cores rather than a whole-suite run (the slices' own files need no map: every survivor passed them whole).
MAP_TOPIC_TESTS = [f"tests/python/{name}" for name in (
    "test_sparse.py test_snodes.py test_dynamic.py test_snode_activation_api.py test_autodiff_sparse.py "
    "test_sparse_exports.py test_field_layout.py test_field_offset.py test_element_access.py test_random.py "
    "test_kernel_seed.py test_real_func.py test_graph_sections.py test_graph_do_while_ours.py "
    "test_checkpoint_ours.py test_print_format.py test_assert_format.py test_walrus_and_builtins.py "
    "test_vector_slices_and_fill.py test_local_lists.py test_compat_builtins.py test_element_dim.py "
    "test_integer_index_vectors.py test_struct_types.py test_dataclass_args.py test_tensor_params.py "
    "test_vector_args_returns.py test_upstream_errors_compat.py test_func_requires_top_level.py "
    "test_autodiff_forward.py test_pitfalls.py test_kernel_review.py test_review_regressions.py "
    "test_logical_values.py test_compat_misc.py test_upstream_compat.py test_simt_warp.py test_autodiff.py "
    "test_autodiff_compound.py test_ndrange_axes.py test_field_components.py "
    # added after the first map: where the first round's unreached survivors live
    "test_raw_ops_and_atomics.py test_upstream_names.py test_api_surface.py test_bit_shifts.py test_math_complex.py "
    "test_ndarray_boundary.py test_autodiff_loops.py test_autodiff_stack.py test_autodiff_call_forms.py "
    "test_autodiff_select.py test_ad_validation.py test_ndarray_api.py test_integer_powers.py test_overflow_checks.py "
    "test_check_out_of_bound.py test_simt_block.py test_simt_subgroup.py test_simt_tile.py "
    "test_atomic_privatization.py test_int_wrap.py test_precision_warnings.py test_first_call_init.py "
    "test_launch_args.py test_launch_errors.py test_runtime_indexing.py test_compat_modules.py test_math_transforms.py "
    "test_decompositions.py test_frontend_corners.py test_linalg_sparse.py").split()]
# Lines no test function runs where coverage sees it: module constants and default values (run at import) and
# code run only in a subprocess (the CUDA driver emulation). Each (file, line text) names what stands in for it:
# the tests that run it, and lines (file, line text) whose covering tests are its own.
STAND_INS = {
    ("python/quadrants/frontend/random_numbers.py", "_SERIAL_STREAM = 1 << 63"): {"lines": [
        ("python/quadrants/frontend/random_numbers.py",
         'lambda key: f"(bin add {key} (const u64 {_SERIAL_STREAM}))"))')]},
    ("python/quadrants/types/enums.py", "PRIMAL = 0"): {"lines": [
        ("python/quadrants/data/snode.py", "return SNodeGradType.PRIMAL")]},
    ("python/quadrants/frontend/real_functions.py", "def _rebuild(spec, values, k=0, top=True):"): {"lines": [
        ("python/quadrants/frontend/real_functions.py",
         'return _rebuild(signature.returns, [Expr(f"(var {r})") for r in results])')]},
    ("python/quadrants/frontend/clock.py", 'return float(config.cuda_properties["clock_rate_khz"] * 1000)'): {
        "tests": ["tests/python/test_upstream_names.py::test_streams_on_cuda_emulation"]},
}
MAP_INCLUDE = ["*/quadrants/frontend/*.py", "*/quadrants/base/*.py", "*/quadrants/data/*.py", "*/quadrants/types/*.py"]


def quiet_env(base_env):
    env = dict(base_env, QD_TRANSLATION_CACHE="0")
    return env


def build_coverage_map(worktree, test_files, map_path, env, run, nice):
    """Runs the test files once under coverage (a context per test function) and writes map_path: which tests
    run each line ({"lines": {path: {line: [node ids]}}, "seconds": {node id: s}})."""
    work = Path(tempfile.mkdtemp(prefix="qd-mut-map-"))
    rc = work / "coveragerc"
    rc.write_text("[run]\ndynamic_context = test_function\ninclude =\n" +
                  "".join(f"    {pattern}\n" for pattern in MAP_INCLUDE) + f"data_file = {work / 'data'}\n")
    python = str(worktree / ".venv" / "bin" / "python")
    junit = work / "junit.xml"
    code, out = run(nice([python, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "-q",
                          "-p", "no:cacheprovider", "-W", "ignore::RuntimeWarning", "-o", "junit_family=xunit1",
                          f"--junitxml={junit}", *test_files]), worktree, env=quiet_env(env), timeout=6 * 3600)
    if not (work / "data").exists():
        raise SystemExit(f"the coverage run wrote no data (exit {code}):\n{out[-3000:]}")
    code, out = run([python, "-m", "coverage", "json", f"--rcfile={rc}", "--show-contexts", "-o",
                     str(work / "map.json")], worktree)
    if code:
        raise SystemExit(f"coverage json failed:\n{out[-3000:]}")
    write_map(worktree, work / "map.json", junit, map_path)


def write_map(worktree, coverage_json, junit, map_path):
    """coverage's JSON (with contexts) and pytest's junit XML -> the compact map of build_coverage_map."""
    report = json.loads(Path(coverage_json).read_text())
    lines = {}
    for file_name, data in report["files"].items():
        path = os.path.relpath(os.path.join(worktree, file_name), worktree)
        per_line = {}
        for line, contexts in data.get("contexts", {}).items():
            tests = sorted({node_id(c) for c in contexts if c})
            if tests:
                per_line[line] = tests
        lines[path] = per_line
    seconds = {}
    if Path(junit).exists():  # xunit1: classname "tests.python.test_x[.TestClass]", file "tests/python/test_x.py"
        for case in ElementTree.parse(junit).iter("testcase"):
            file_name = case.get("file") or ""
            module = file_name.removesuffix(".py").replace("/", ".")
            classes = case.get("classname", "").removeprefix(module).strip(".")
            name = re.sub(r"\[.*", "", case.get("name", ""))
            test = "::".join(part for part in (file_name, *classes.split("."), name) if part)
            seconds[test] = seconds.get(test, 0.0) + float(case.get("time") or 0.0)
    Path(map_path).write_text(json.dumps({"lines": lines, "seconds": seconds}))


def node_id(context):
    """A test_function context ("test_sparse.TestX.test_y", with `|run` on some coverage versions) -> the node id
    pytest selects it by ("tests/python/test_sparse.py::TestX::test_y"; every parametrization)."""
    context = context.split("|")[0]
    module, _, qualname = context.partition(".")
    return f"tests/python/{module}.py::{qualname.replace('.', '::')}"


def covering_tests(coverage_map, mutant, limit, root=None, line_text=None):
    """The tests that execute the mutant's first line (or its STAND_INS), fastest first, at most `limit`.
    line_text: the line as committed (read from root when not given, so not while the mutant is applied)."""
    per_file = coverage_map["lines"]
    tests = set(per_file.get(mutant.path, {}).get(str(mutant.line), []))
    if not tests and root is not None:
        text = (line_text if line_text is not None else
                (Path(root) / mutant.path).read_text().splitlines()[mutant.line - 1]).strip()
        stand_in = STAND_INS.get((mutant.path, text), {})
        tests.update(stand_in.get("tests", []))
        for path, line_text in stand_in.get("lines", []):
            lines = (Path(root) / path).read_text().splitlines()
            for number, line in enumerate(lines, start=1):
                if line.strip() == line_text:
                    tests.update(per_file.get(path, {}).get(str(number), []))
    seconds = coverage_map["seconds"]
    return sorted(tests, key=lambda t: (seconds.get(t, 1e9), t))[:limit], len(tests)


def position(root, mutant):
    """(the text of the mutant's line, its column in bytes): what finds it again once the file has moved on."""
    data = (Path(root) / mutant.path).read_bytes()
    line_start = data.rfind(b"\n", 0, mutant.offset) + 1
    line_end = data.find(b"\n", mutant.offset)
    return data[line_start:line_end if line_end >= 0 else len(data)].decode(), mutant.offset - line_start


def relocate(record, root, mutants_by_name, mutants):
    """The generated mutant (at root's commit) a results record stands for, or None when its code is gone."""
    found = mutants_by_name.get(record["name"])
    if found:
        return found
    if record.get("line_text") is None:
        return None
    for m in mutants:
        if (m.path, m.kind, m.old, m.new) == (record["path"], record["kind"], record["old"], record["new"]) and \
                position(root, m) == (record["line_text"], record["column"]):
            return m
    return None


def reached(worktree, data_file, path, line, run):
    """Whether the mutant's line ran in a test run under coverage (its data file); None when that is unknown."""
    python = str(worktree / ".venv" / "bin" / "python")
    out_json = Path(str(data_file) + ".json")
    code, _ = run([python, "-m", "coverage", "json", f"--data-file={data_file}", f"--include=*/{path}",
                   "-o", str(out_json)], worktree)
    if code or not out_json.exists():
        return None
    files = json.loads(out_json.read_text())["files"]
    return any(line in data["executed_lines"] for data in files.values())


def merge_maps(out_path, map_paths):
    """The union of several maps (test files mapped by separate coverage runs) into out_path."""
    lines, seconds = {}, {}
    for map_path in map_paths:
        data = json.loads(Path(map_path).read_text())
        seconds.update(data["seconds"])
        for path, per_line in data["lines"].items():
            mine = lines.setdefault(path, {})
            for line, tests in per_line.items():
                mine[line] = sorted(set(mine.get(line, [])) | set(tests))
    Path(out_path).write_text(json.dumps({"lines": lines, "seconds": seconds}))


def main():
    import argparse
    parser = argparse.ArgumentParser(description="Coverage maps for mutation_check.py --covering, by hand: a map "
                                     "from a coverage run of one's own, or the union of maps.")
    sub = parser.add_subparsers(dest="command", required=True)
    convert = sub.add_parser("convert", help="coverage JSON (--show-contexts) and junit XML -> a map")
    convert.add_argument("root", help="the directory the coverage run ran in")
    convert.add_argument("coverage_json")
    convert.add_argument("junit")
    convert.add_argument("out")
    merge = sub.add_parser("merge", help="the union of maps")
    merge.add_argument("out")
    merge.add_argument("maps", nargs="+")
    args = parser.parse_args()
    if args.command == "convert":
        write_map(args.root, args.coverage_json, args.junit, args.out)
    else:
        merge_maps(args.out, args.maps)


if __name__ == "__main__":
    main()
