#!/usr/bin/env python3
# scripts/mutation_check.py: plants known plausible bugs one at a time in a scratch worktree and reports which the tests catch.
"""Mutation check: does the test suite notice plausible bugs?

Each mutant below replaces one exact piece of text in one file (the text must occur exactly once)
with a plausible bug, in a scratch git worktree of the commit under test (never in this checkout).
For each mutant the script applies it, rebuilds (scripts/build.sh: incremental, under the shared
build lock), runs the tests chosen for that mutant (not the whole suite) on the CPU and/or on the
CUDA driver emulation, restores the file and records CAUGHT (a test failed, or the build did) or
MISSED (every chosen test passed). It first runs every chosen test set unmutated, so a failure of
the baseline is reported instead of being counted as a catch.

It is a developer tool, not part of CI: a full run takes about 7 minutes on 2 cores (plus about 3 for
the first setup of the worktree); docs/testing.md holds the last result table.

    python3 scripts/mutation_check.py                  # every mutant, worktree /tmp/wt-mut
    python3 scripts/mutation_check.py --list           # the mutants and their tests
    python3 scripts/mutation_check.py --only cuda_float_atomic_sub_adds numpy_u16_as_i16
    python3 scripts/mutation_check.py --markdown out.md  # also write the result table

Generated mutants (--generated N): scripts/mutation_generate.py makes every operator and comparison flip,
off-by-one constant and dropped statement of the files matching --globs (default: the Python frontend, its
type and name tables, and the C++ passes); a seeded sample of N, 60% Python and 40% C++, split evenly over
the kinds, runs on fast slices (PYTHON_SLICE, CPP_FILTER; a second slice for what the first missed). Each
result is appended to a JSON-lines file, so an interrupted run resumes; a mutant that does not build is
reported apart and not counted. Run it in the background under nice: about 30-60 s per mutant on 2 cores.

    nice -n 10 python3 scripts/mutation_check.py --worktree /tmp/wt-mut-gen --generated 220 --markdown out.md

Tier 3 (--covering, scripts/mutation_covering.py) gives every survivor of a results file a fair chance: the tests
whose coverage reaches its line (a coverage map, built once per commit) run against it, with the translation
cache off; C++ survivors run every C++ test and their pass's Python files. Its records are appended to the same
file, and the report explains each remaining survivor from scripts/mutation_survivors.py.

    nice -n 15 python3 scripts/mutation_check.py --worktree /tmp/wt-mut-gen --covering --results out.jsonl \
        --map-tests topics --kernel-cache /tmp/qd-mut-kernels --markdown out.md

The worktree is created at the commit under test (default HEAD) with `git worktree add --detach` and
set up with scripts/setup.sh (its own .venv and build, about 3 minutes) the first time; later runs
check out the commit there again and rebuild incrementally. Commit tests before checking them.
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import mutation_covering  # noqa: E402  (beside this script)
import mutation_generate  # noqa: E402
import mutation_survivors  # noqa: E402
RUNTIME = "src/codegen/runtime/qd_runtime.h"


@dataclass
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: list  # pytest arguments (files, -k expressions)
    why: str  # what the planted bug does
    modes: tuple = ("cpu",)  # "cpu": plain pytest; "cuda": QD_TEST_ARCH=cuda on the driver emulation
    extra: dict = field(default_factory=dict)


MUTANTS = [
    # ---- the three blind spots of issue 18 ----
    Mutant("numpy_u16_as_i16", "src/bindings/arg_adapters.cpp",
           "case 4: out = DtypeCode::u16; return true;", "case 4: out = DtypeCode::i16; return true;",
           ["tests/python/test_dtype_values.py", "tests/python/test_dtype_paths.py"],
           "interop: numpy uint16 arrays read as int16 by the argument adapter"),
    Mutant("f16_round_without_ties_to_even", RUNTIME,
           "x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;",
           "x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu;",
           ["tests/python/test_dtype_values.py", "-k", "f16"],
           "runtime: f32 -> f16 in kernels rounds ties down instead of to even"),
    Mutant("cuda_float_atomic_sub_adds", RUNTIME,
           "QD_ATOMIC_NATIVE(sub, float, atomicAdd(p, -v))", "QD_ATOMIC_NATIVE(sub, float, atomicAdd(p, v))",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): float atomic_sub adds"),
    # ---- interop and the launcher ----
    Mutant("buffer_uint16_signed", "src/bindings/arg_adapters.cpp",
           "bool is_signed = c == 'b' || c == 'h' ||", "bool is_signed = c == 'b' || c == 'h' || c == 'H' ||",
           ["tests/python/test_dtype_paths.py"],
           "interop: buffer-protocol format 'H' (uint16) taken as signed"),
    Mutant("dlpack_matches_bits_only", "src/runtime/dtype.cpp",
           "if (ours.code == dtype.code && ours.bits == dtype.bits) return info.code;",
           "if (ours.bits == dtype.bits) return info.code;",
           ["tests/python/test_dtype_paths.py", "tests/python/test_dtype_values.py"],
           "interop: a DLPack dtype matched by width only (uint16 tensors become int16)"),
    Mutant("signature_ignores_contiguity", "src/launch/signature.cpp",
           "(static_cast<uint64_t>(view.is_contiguous()) << 12)", "(static_cast<uint64_t>(1) << 12)",
           ["tests/python/test_dtype_paths.py", "-k", "strided"],
           "launcher: a strided array reuses the specialization compiled for contiguous ones"),
    Mutant("bounds_check_off_by_one", RUNTIME,
           "if (index[d] < 0 || index[d] >= arg->shape[d]) {", "if (index[d] < 0 || index[d] > arg->shape[d]) {",
           ["tests/python/test_launch_errors.py", "tests/python/test_runtime_indexing.py"],
           "runtime: the debug bounds check lets index == shape through"),
    Mutant("cache_digest_unchecked", "src/jit/disk_cache.cpp",
           "bool valid = whole && sha256_hex(bytes) == digest;", "bool valid = whole;",
           ["tests/python/test_kernel_cache.py"],
           "jit: a cached library whose bytes no longer match its manifest's SHA-256 is loaded"),
    # ---- runtime: the CUDA branches (only test_device_runtime.py can see them without a GPU) ----
    Mutant("cuda_byte_lane_mask_too_wide", RUNTIME,
           "unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;",
           "unsigned int mask = 0xffffu << shift;",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): 1-byte atomics overwrite the neighbouring byte"),
    Mutant("cuda_u64_min_signed", RUNTIME,
           "QD_ATOMIC_NATIVE(min, uint64_t, atomicMin((qd_u64_word*)p, (qd_u64_word)v))",
           "QD_ATOMIC_NATIVE(min, uint64_t, atomicMin((long long*)p, (long long)v))",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): u64 atomic_min compares as signed"),
    Mutant("cuda_f16_round_toward_zero", RUNTIME,
           'asm("cvt.rn.f16.f32 %0, %1;"', 'asm("cvt.rz.f16.f32 %0, %1;"',
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): f32 -> f16 truncates"),
    Mutant("cuda_cas_loop_no_retry", RUNTIME,
           "      seen = atomicCAS(word, assumed, bits);\n    } while (seen != assumed);",
           "      seen = atomicCAS(word, assumed, bits);\n    } while (false);",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): a lost compare-and-swap race is not retried (lost updates)"),
    Mutant("cuda_lane_cas_loop_no_retry", RUNTIME,
           "      seen = atomicCAS(word, assumed, (assumed & ~mask) | ((bits << shift) & mask));\n    } while (seen != assumed);",
           "      seen = atomicCAS(word, assumed, (assumed & ~mask) | ((bits << shift) & mask));\n    } while (false);",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): a lost compare-and-swap race on a 1-/2-byte lane is not retried"),
    Mutant("cuda_error_claim_inverted", RUNTIME,
           "return atomicCAS(ctx->error_flag, 0, 1) == 0; }", "return atomicCAS(ctx->error_flag, 0, 1) != 0; }",
           ["tests/python/test_device_runtime.py"],
           "runtime (CUDA only): every error after the first claims the record, the first does not"),
    # ---- runtime: the CPU branches ----
    Mutant("cpu_atomic_add_not_atomic", RUNTIME,
           "QD_FUNC T qd_atomic_add(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }",
           "QD_FUNC T qd_atomic_add(T* p, T v) { T old = *(volatile T*)p; *(volatile T*)p = old + v; return old; }",
           ["tests/python/test_device_runtime.py", "-k", "contention or kernel_atomics",
            "tests/python/test_kernel_differential.py", "-k", "atomics"],
           "runtime (CPU): integer atomic_add is a plain read-modify-write (the emulation runs threads serially)"),
    Mutant("cpu_private_merge_dropped", RUNTIME,
           "if (copy[k] != identity) qd_atomic_##op(real + k, copy[k]);",
           "if (false) qd_atomic_##op(real + k, copy[k]);",
           ["tests/python/test_atomic_privatization.py"],
           "runtime (CPU): a chunk's private copy of an array is never merged into it"),
    Mutant("privatize_ignores_loads", "src/passes/privatize_atomics.cpp",
           '    uses["a:" + e.ref.array].ok = false;\n    IRVisitor::visit_load(e);',
           "    IRVisitor::visit_load(e);",
           ["tests/python/test_atomic_privatization.py"],
           "pass: an array the loop also reads is privatized, so the reads miss the thread's own updates"),
    Mutant("floordiv_exact_division", RUNTIME,
           "if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;", "if ((a < 0) != (b < 0)) q -= 1;",
           ["tests/python/test_kernel_differential.py", "-k", "corpus", "tests/python/test_defined_semantics.py"],
           "runtime: integer // of opposite signs subtracts one even when it divides exactly"),
    Mutant("copy_f64_to_f16_double_rounding", "src/runtime/strided_copy.cpp",
           "return double_to_half(value);", "return float_to_half(static_cast<float>(value));",
           ["tests/python/test_dtype_values.py"],
           "runtime: from_numpy of float64 into f16 rounds twice (through float)"),
    # ---- codegen and passes ----
    Mutant("codegen_f64_to_f16_double_rounding", "src/codegen/cstyle_renderer.cpp",
           'return *c.a->type == DtypeCode::f64 ? "qd_half::from_double(" + x + ")" : "qd_half((float)(" + x + "))";',
           'return "qd_half((float)(" + x + "))";',
           ["tests/python/test_dtype_values.py"],
           "codegen: qd.cast(f64, qd.f16) rounds twice (through float)"),
    Mutant("ad_cos_derivative_sign", "src/passes/ad_rules.cpp",
           "{UnOp::cos, [](R x) { return to_a(neg(mul(x.seed, unary(UnOp::sin, x.a)))); }},",
           "{UnOp::cos, [](R x) { return to_a(mul(x.seed, unary(UnOp::sin, x.a))); }},",
           ["tests/python/test_autodiff.py", "tests/python/test_autodiff_forward.py"],
           "passes: d cos(a) / da = +sin(a)"),
    Mutant("ad_sub_rhs_sign", "src/passes/ad_rules.cpp",
           "{BinOp::sub, [](R x) { return Contributions{x.seed, neg(x.seed)}; }},",
           "{BinOp::sub, [](R x) { return Contributions{x.seed, x.seed}; }},",
           ["tests/python/test_autodiff.py", "tests/python/test_autodiff_forward.py"],
           "passes: the adjoint of a - b gives b +seed"),
]


def run(command, cwd, env=None, timeout=1800):
    """(returncode, combined output) of a command; never raises on failure."""
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        return 124, f"timed out after {timeout} s: {expired}"


def prepare_worktree(worktree, commit):
    if not (worktree / ".git").exists():
        code, out = run(["git", "worktree", "add", "--detach", str(worktree), commit], REPO)
        if code:
            sys.exit(f"git worktree add failed:\n{out}")
    else:
        status = run(["git", "status", "--porcelain", "--untracked-files=no"], worktree)[1]
        if status.strip():
            sys.exit(f"{worktree} has local changes (a mutant left behind?); clean it first:\n{status}")
        code, out = run(["git", "checkout", "-q", "--detach", commit], worktree)
        if code:
            sys.exit(f"git checkout {commit} in {worktree} failed:\n{out}")
    if not (worktree / ".venv" / "bin" / "python").exists():
        print(f"setting up {worktree} (scripts/setup.sh, a few minutes)", flush=True)
        code, out = run(["bash", "scripts/setup.sh"], worktree, timeout=3600)
        if code:
            sys.exit(f"setup failed:\n{out[-4000:]}")


def build(worktree):
    return run(["bash", "scripts/build.sh"], worktree, timeout=3600)


def test_env(worktree, mode, cache):
    env = dict(os.environ, QD_CACHE_DIR=cache, PYTHONDONTWRITEBYTECODE="1")
    for name in ("QD_TEST_ARCH", "QD_CUDA_DRIVER_PATH", "QD_NVRTC_PATH", "QD_CHECK_CUDA"):
        env.pop(name, None)
    if mode == "cuda":
        emulator = worktree / "build" / "cpp" / "cuda_emulator"
        env.update(QD_TEST_ARCH="cuda", QD_CUDA_DRIVER_PATH=str(emulator / "libqd_emulated_driver.so"),
                   QD_NVRTC_PATH=str(emulator / "libqd_emulated_nvrtc.so"))
    return env


def split_test_args(tests):
    """['a.py', '-k', 'x', 'b.py'] -> [['a.py', '-k', 'x'], ['b.py']]: each file with its own -k."""
    groups = []
    for arg in tests:
        if arg.endswith(".py"):
            groups.append([arg])
        else:
            groups[-1].append(arg)
    return groups


def run_tests(worktree, mutant):
    """(passed, summary): False as soon as one group of the mutant's tests fails."""
    python = str(worktree / ".venv" / "bin" / "python")
    for mode in mutant.modes:
        for group in split_test_args(mutant.tests):
            with tempfile.TemporaryDirectory(prefix="qd-mut-cache-") as cache:
                command = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-W", "ignore::RuntimeWarning",
                           *group]
                code, out = run(command, worktree, env=test_env(worktree, mode, cache))
            if code != 0:
                failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
                return False, f"{mode}: {' '.join(group)}: " + (failed[0] if failed else out.strip().splitlines()[-1])
    return True, "all chosen tests passed"


def apply(worktree, mutant):
    path = worktree / mutant.path
    text = path.read_text()
    count = text.count(mutant.old)
    if count != 1:
        return None, f"the text to replace occurs {count} times in {mutant.path} (the source moved on: update the mutant)"
    path.write_text(text.replace(mutant.old, mutant.new))
    return text, ""


# ---- generated mutants (mutation_generate.py): a stratified sample, each run on a fast test slice ----

# Tier 1 runs for every mutant, tier 2 only for those tier 1 missed: a mutant is killed when either fails.
# Python mutants need no build (the worktree's package is installed editable). C++ pass mutants rebuild the
# C++ tests first (one file and two links) and run the pass, IR and codegen tests; tier 2 rebuilds the Python
# module and runs the Python slice. Slices were chosen so that one mutant takes well under a minute here.
# test_lang_errors first: it expects the default float type, which test_kernel_language leaves at f64.
PYTHON_SLICE = ["tests/python/test_lang_errors.py", "tests/python/test_kernel_language.py",
                "tests/python/test_static_extras.py", "tests/python/test_data_oriented.py",
                "tests/python/test_struct_args.py", "tests/python/test_lang_ir.py",
                "tests/python/test_type_and_arg_errors.py", "tests/python/test_python_functions_in_kernels.py",
                "tests/python/test_matrix_values.py"]
PYTHON_SLICE_TIER2 = ["tests/python/test_kernel_differential.py", "tests/python/test_kernel_language_extras.py",
                      "tests/python/test_defined_semantics.py", "tests/python/test_containers.py"]
CPP_FILTER = "CodegenCudaText*:CodegenText*:IrParser*:IrVerifier*:ConstEval*:PassesPipeline*:PassesText*:Jit.*"


def sample_generated(count, seed, globs, worktree):
    """A sample of `count` generated mutants: 60% Python, 40% C++, split evenly over the kinds of each."""
    mutants = mutation_generate.generate(globs, worktree)
    by_group = collections.defaultdict(list)
    for m in mutants:
        by_group[(m.language, m.kind)].append(m)
    rng = random.Random(seed)
    chosen = []
    for language, share in (("python", 0.6), ("cpp", 0.4)):
        groups = sorted(g for g in by_group if g[0] == language)
        if not groups:
            continue
        quota = round(count * share)
        for k, group in enumerate(groups):
            take = quota // len(groups) + (1 if k < quota % len(groups) else 0)
            chosen.extend(rng.sample(by_group[group], min(take, len(by_group[group]))))
    return chosen, len(mutants)


def nice(command):
    """The command at niceness 10 at least (not added to a niceness the script already runs at)."""
    return ["nice", "-n", str(max(0, 10 - os.nice(0))), *command]


def build_cpp_tests(worktree):
    return run(nice(["cmake", "--build", "build/cpp", "--target", "qd_cpp_tests", "-j", "1"]), worktree, timeout=1800)


def build_python_module(worktree):
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="1")
    return run(nice([str(worktree / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-build-isolation",
                     "--no-deps", "-C", "cmake.define.QD_WERROR=ON", "-e", "."]), worktree, env=env, timeout=1800)


def run_slice(worktree, tests, cache, timeout, env=None):
    """(killed, detail) of one pytest slice; -x stops at the first failure, a timeout counts as a kill."""
    python = str(worktree / ".venv" / "bin" / "python")
    command = nice([python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-W", "ignore::RuntimeWarning",
                    *tests])
    code, out = run(command, worktree, env=env or test_env(worktree, "cpu", cache), timeout=timeout)
    if code == 0:
        return False, "passed"
    failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return True, _failure_detail(code, failed, out)


def run_cpp_slice(worktree, cache, timeout):
    binary = worktree / "build" / "cpp" / "qd_cpp_tests"
    code, out = run(nice([str(binary), f"--gtest_filter={CPP_FILTER}", "--gtest_brief=1"]), worktree,
                    env=test_env(worktree, "cpu", cache), timeout=timeout)
    if code == 0:
        return False, "passed"
    failed = [line for line in out.splitlines() if "FAILED" in line]
    return True, _failure_detail(code, failed, out)


def _failure_detail(code, failed, out):
    """Why a test run counts as a kill: a timeout, its first failing test, else its last line or exit status (a
    crash may print nothing)."""
    if code == 124:
        return "timeout"
    if failed:
        return failed[0][:200]
    lines = out.strip().splitlines()
    return lines[-1][:200] if lines else f"exit status {code}, no output"


def judge_generated(worktree, mutant, cache, timeout):
    """(verdict, tier, detail): killed / survived / stillborn (does not build: not counted)."""
    if mutant.language == "cpp":
        code, out = build_cpp_tests(worktree)
        if code:
            return "stillborn", 0, "does not build: " + next((l for l in out.splitlines() if "error" in l), "")[:160]
        killed, detail = run_cpp_slice(worktree, cache, timeout)
        if killed:
            return "killed", 1, detail
        code, out = build_python_module(worktree)
        if code:
            return "stillborn", 0, "the Python module does not build"
        killed, detail = run_slice(worktree, PYTHON_SLICE, cache, timeout)
        return ("killed", 2, detail) if killed else ("survived", 2, "C++ pass tests and the Python slice passed")
    killed, detail = run_slice(worktree, PYTHON_SLICE, cache, timeout)
    if killed:
        return "killed", 1, detail
    killed, detail = run_slice(worktree, PYTHON_SLICE_TIER2, cache, timeout)
    return ("killed", 2, detail) if killed else ("survived", 2, "both Python slices passed")


def run_generated(args, worktree, commit):
    """Runs the sampled mutants, appending one JSON line per mutant to args.results (a rerun skips those done)."""
    mutants, total = sample_generated(args.generated, args.seed, args.globs, worktree)
    # Python first: a C++ mutant's file is restored after its run but rebuilt only by the next C++ mutant's build
    # (or the one at the end), so no Python mutant may run on a library built from a mutated pass.
    mutants.sort(key=lambda m: m.language != "python")
    results_path = args.results or Path(tempfile.gettempdir()) / f"qd-mutants-{commit[:10]}-{args.seed}.jsonl"
    done = {}
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            record = json.loads(line)
            done[record["name"]] = record
    print(f"{len(mutants)} of {total} generated mutants sampled (seed {args.seed}); results in {results_path}",
          flush=True)
    cache = tempfile.mkdtemp(prefix="qd-mut-cache-")  # content-addressed, so shared across mutants safely
    if not args.skip_baseline:
        for killed, detail in (run_slice(worktree, PYTHON_SLICE, cache, args.timeout),
                               run_slice(worktree, PYTHON_SLICE_TIER2, cache, args.timeout),
                               run_cpp_slice(worktree, cache, args.timeout)):
            if killed:
                sys.exit(f"baseline: a slice fails without any mutant: {detail}")
    built_for = None  # the C++ file a rebuild last saw mutated (restored files need one rebuild too)
    with open(results_path, "a") as results:
        for m in mutants:
            if m.name in done:
                continue
            path = worktree / m.path
            original = path.read_text()
            t0 = time.time()
            try:
                path.write_text(m.apply(original))
            except ValueError as error:
                record = dict(name=m.name, verdict="stale", detail=str(error))
            else:
                try:
                    verdict, tier, detail = judge_generated(worktree, m, cache, args.timeout)
                finally:
                    path.write_text(original)
                record = dict(name=m.name, verdict=verdict, tier=tier, detail=detail)
                if m.language == "cpp":
                    built_for = m.path
            line_text, column = mutation_covering.position(worktree, m)
            record.update(path=m.path, line=m.line, kind=m.kind, old=m.old, new=m.new, language=m.language,
                          seconds=round(time.time() - t0, 1), line_text=line_text, column=column, commit=commit[:10])
            results.write(json.dumps(record) + "\n")
            results.flush()
            done[m.name] = record
            print(f"{m.name}: {record['verdict']} ({record['seconds']:.0f} s) {m.describe()}", flush=True)
    if built_for:
        build_cpp_tests(worktree)
        build_python_module(worktree)
    report_generated([done[m.name] for m in mutants if m.name in done], args.markdown)


def latest_records(results_path):
    """name -> the last record of each mutant in a results file (a later tier's record replaces the earlier one)."""
    done = {}
    for line in results_path.read_text().splitlines():
        record = json.loads(line)
        done[record["name"]] = record
    return done


def run_covering(args, worktree, commit):
    """Tier 3 (mutation_covering.py): each survivor in args.results against the tests that run its line."""
    if not args.results or not args.results.exists():
        sys.exit("--covering needs --results FILE: the results of an earlier --generated run")
    done = latest_records(args.results)
    map_path = args.coverage_map or Path(tempfile.gettempdir()) / f"qd-mutants-map-{commit[:10]}.json"
    cache = str(args.kernel_cache or tempfile.mkdtemp(prefix="qd-mut-cache-"))  # content-addressed: safe to share
    if not map_path.exists():
        tests = mutation_covering.MAP_TOPIC_TESTS if args.map_tests == ["topics"] else args.map_tests or \
            sorted(str(p.relative_to(worktree)) for p in (worktree / "tests/python").glob("test_*.py"))
        print(f"building the coverage map over {len(tests)} test files into {map_path} (once per commit)", flush=True)
        mutation_covering.build_coverage_map(worktree, tests, map_path, test_env(worktree, "cpu", cache), run, nice)
    coverage_map = json.loads(map_path.read_text())
    mutants = mutation_generate.generate(args.globs, worktree)
    by_name = {m.name: m for m in mutants}
    todo = [r for r in done.values() if r["verdict"] == "survived" and (r.get("tier", 0) < 3 or args.recheck)
            and (not args.only or r["name"] in args.only or r["language"] in args.only)]
    todo.sort(key=lambda r: (r["language"] != "python", r["name"]))
    print(f"{len(todo)} survivors to run against their covering tests", flush=True)
    built_for = None
    with open(args.results, "a") as results:
        for r in todo:
            t0 = time.time()
            m = mutation_covering.relocate(r, worktree, by_name, mutants)
            if m is None:
                record = dict(r, verdict="stale", tier=3, detail=f"its line is gone at {commit[:10]}")
            else:
                path = worktree / m.path
                original = path.read_text()
                line_text = original.splitlines()[m.line - 1]
                path.write_text(m.apply(original))
                try:
                    verdict, detail, extra = judge_covering(worktree, m, coverage_map, cache, args, line_text)
                finally:
                    path.write_text(original)
                if m.language == "cpp":
                    built_for = m.path
                record = dict(r, verdict=verdict, tier=3, detail=detail, **extra)
            record.update(seconds=round(time.time() - t0, 1), checked_at=commit[:10])
            results.write(json.dumps(record) + "\n")
            results.flush()
            done[r["name"]] = record
            print(f"{r['name']}: {record['verdict']} ({record['seconds']:.0f} s) {record['detail'][:150]}", flush=True)
    if built_for:
        build_cpp_tests(worktree)
        build_python_module(worktree)
    report_generated(list(done.values()), args.markdown)


def judge_covering(worktree, m, coverage_map, cache, args, line_text):
    """(verdict, detail, extra fields) of one mutant, applied in the worktree, against the tests covering it."""
    python = str(worktree / ".venv" / "bin" / "python")
    env = mutation_covering.quiet_env(test_env(worktree, "cpu", cache))
    if m.language == "cpp":
        code, out = build_cpp_tests(worktree)
        if code:
            return "stillborn", "does not build", {}
        binary = worktree / "build" / "cpp" / "qd_cpp_tests"
        code, out = run(nice([str(binary), "--gtest_brief=1"]), worktree, env=env, timeout=2 * args.timeout)
        if code:
            failed = [line for line in out.splitlines() if "FAILED" in line]
            return "killed", "all C++ tests: " + _failure_detail(code, failed, out), {}
        files = [f"tests/python/{name}" for name in mutation_covering.CPP_PASS_TESTS.get(Path(m.path).stem, [])]
        if not files:
            return "survived", "all C++ tests passed; no Python tests are named for this pass", {}
        code, out = build_python_module(worktree)
        if code:
            return "stillborn", "the Python module does not build", {}
        killed, detail = run_slice(worktree, files, cache, 2 * args.timeout, env=env)
        return ("killed" if killed else "survived"), detail if killed else \
            f"all C++ tests and {' '.join(Path(f).name for f in files)} passed", {"tests": files}
    tests, count = mutation_covering.covering_tests(coverage_map, m, args.covering_limit, worktree, line_text)
    if not tests:
        return "survived", "no test in the coverage map runs this line", {"covering": 0}
    data_file = Path(tempfile.gettempdir()) / f"qd-mut-coverage-{m.name.replace(':', '-')}"
    command = nice([python, "-m", "coverage", "run", f"--data-file={data_file}", f"--include=*/{m.path}", "-m",
                    "pytest", "-q", "-x", "-p", "no:cacheprovider", "-W", "ignore::RuntimeWarning", *tests])
    code, out = run(command, worktree, env=env, timeout=2 * args.timeout)
    extra = {"covering": count, "ran": len(tests)}
    if code:
        failed = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]
        return "killed", _failure_detail(code, failed, out), extra
    extra["reached"] = mutation_covering.reached(worktree, data_file, m.path, m.line, run)
    for leftover in (data_file, Path(str(data_file) + ".json")):
        leftover.unlink(missing_ok=True)
    return "survived", f"{len(tests)} of {count} covering tests passed", extra


def report_generated(records, markdown):
    counts = collections.Counter(r["verdict"] for r in records)
    judged = counts["killed"] + counts["survived"]
    rate = 100.0 * counts["killed"] / judged if judged else 0.0
    lines = [f"Generated mutants: {counts['killed']} killed / {judged} = {rate:.1f}% ({counts['stillborn']} did not "
             f"build and {counts['stale']} were stale: not counted)", ""]
    by_tier = collections.Counter(r.get("tier") for r in records if r["verdict"] == "killed")
    if by_tier:
        lines.append("- killed by: " + ", ".join(f"tier {tier} {by_tier[tier]}" for tier in sorted(by_tier)))
    for language in ("python", "cpp"):
        mine = [r for r in records if r["language"] == language and r["verdict"] in ("killed", "survived")]
        if mine:
            killed = sum(r["verdict"] == "killed" for r in mine)
            by_kind = collections.Counter((r["kind"], r["verdict"]) for r in mine)
            kinds = ", ".join(f"{k} {by_kind[(k, 'killed')]}/{by_kind[(k, 'killed')] + by_kind[(k, 'survived')]}"
                              for k in sorted({r["kind"] for r in mine}))
            lines.append(f"- {language}: {killed}/{len(mine)} killed ({kinds})")
    lines += ["", "Survivors (`why`: scripts/mutation_survivors.py):", "",
              "| mutant | where | edit | covering tests | why it survives |", "| --- | --- | --- | --- | --- |"]
    for r in sorted(records, key=lambda r: (r["language"], r["path"], r["line"])):
        if r["verdict"] == "survived":
            old, new = (t.strip().replace("\n", " ").replace("|", "\\|")[:50] for t in (r["old"], r["new"]))
            covering = "" if r.get("tier", 0) < 3 else r["detail"] if r["language"] == "cpp" else \
                f"{r.get('ran', 0)} of {r.get('covering', 0)} run" + ("" if not r.get("ran") else
                                                                        ", line reached" if r.get("reached") else
                                                                        ", line not reached")
            why = mutation_survivors.EXPLAINED.get(r["name"], "not yet explained")
            lines.append(f"| {r['name']} | {r['path']}:{r['line']} | {r['kind']}: `{old}` -> `{new}` | {covering} | "
                         f"{why} |")
    print("\n".join(lines))
    if markdown:
        markdown.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worktree", default="/tmp/wt-mut", type=Path)
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--only", nargs="*", help="names of the mutants to run (default: all); with --covering also "
                        "a language, python or cpp")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--markdown", type=Path, help="also write the result table to this file")
    parser.add_argument("--skip-baseline", action="store_true", help="do not run the chosen tests unmutated first")
    parser.add_argument("--generated", type=int, metavar="N",
                        help="instead of the hand-picked mutants: a sample of N generated ones (mutation_generate.py)")
    parser.add_argument("--globs", nargs="+", default=mutation_generate.DEFAULT_GLOBS,
                        help="files to generate mutants of, relative to the repository root")
    parser.add_argument("--seed", type=int, default=34, help="the sample's random seed")
    parser.add_argument("--results", type=Path, help="JSON lines of the generated mutants' results (resumable)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test slice (a timeout is a kill)")
    parser.add_argument("--covering", action="store_true",
                        help="tier 3: run each survivor in --results against the tests that run its line")
    parser.add_argument("--recheck", action="store_true", help="with --covering: also survivors tier 3 judged")
    parser.add_argument("--coverage-map", type=Path, help="with --covering: the map file (built when missing)")
    parser.add_argument("--map-tests", nargs="+", help="test files the map is built from (default: tests/python; "
                        "`topics`: mutation_covering.MAP_TOPIC_TESTS)")
    parser.add_argument("--covering-limit", type=int, default=10, help="most covering tests run per mutant")
    parser.add_argument("--kernel-cache", type=Path, help="with --covering: a compiled-kernel cache to reuse (the "
                        "map's run warms it; keyed by the generated source, so a mutant that changes it misses)")
    args = parser.parse_args()
    mutants = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for m in mutants:
            print(f"{m.name:38} {m.path}: {m.why}\n{'':38} tests ({'/'.join(m.modes)}): {' '.join(m.tests)}")
        return 0
    commit = run(["git", "rev-parse", args.commit], REPO)[1].strip()
    started = time.time()
    worktree = args.worktree.resolve()
    prepare_worktree(worktree, commit)
    code, out = build(worktree)
    if code:
        sys.exit(f"the unmutated build fails:\n{out[-4000:]}")
    if args.generated:
        run_generated(args, worktree, commit)
        return 0
    if args.covering:
        run_covering(args, worktree, commit)
        return 0
    if not args.skip_baseline:
        seen = set()
        for m in mutants:  # each distinct test set once
            key = (m.modes, tuple(m.tests))
            if key in seen:
                continue
            seen.add(key)
            passed, summary = run_tests(worktree, m)
            if not passed:
                sys.exit(f"baseline: the tests chosen for {m.name} fail without any mutant: {summary}")
        print(f"baseline passed ({time.time() - started:.0f} s)", flush=True)
    rows = []
    try:
        for m in mutants:
            t0 = time.time()
            original, problem = apply(worktree, m)
            if original is None:
                rows.append((m, "STALE", problem, 0.0))
                print(f"{m.name}: STALE: {problem}", flush=True)
                continue
            try:
                code, out = build(worktree)
                if code:
                    verdict, detail = "CAUGHT", "the build fails"
                else:
                    passed, detail = run_tests(worktree, m)
                    verdict = "MISSED" if passed else "CAUGHT"
            finally:
                (worktree / m.path).write_text(original)
            rows.append((m, verdict, detail, time.time() - t0))
            print(f"{m.name}: {verdict} ({time.time() - t0:.0f} s): {detail}", flush=True)
    finally:
        build(worktree)  # leave the worktree built as committed
    caught = sum(1 for _, verdict, _, _ in rows if verdict == "CAUGHT")
    total = sum(1 for _, verdict, _, _ in rows if verdict != "STALE")
    lines = [f"Mutation check of {commit[:10]}: {caught}/{total} caught, {time.time() - started:.0f} s in all.", "",
             "| mutant | where | planted bug | tests run | result | s |", "| --- | --- | --- | --- | --- | --- |"]
    for m, verdict, detail, seconds in rows:
        tests = " ".join(t.removeprefix("tests/python/") for t in m.tests) + f" ({'+'.join(m.modes)})"
        lines.append(f"| {m.name} | {m.path} | {m.why} | {tests} | {verdict} | {seconds:.0f} |")
    print("\n".join(lines))
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")
    return 0 if caught == total else 1


if __name__ == "__main__":
    sys.exit(main())
