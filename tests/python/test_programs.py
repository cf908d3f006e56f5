# tests/python/test_programs.py: real example programs (tests/programs/) run on our quadrants, their final
# states compared with what quadrants 1.3.3 computed for the same programs (tests/programs/references/).
#
# Each program runs in its own interpreter (they call qd.init and keep module state), through
# tests/programs/run_program.py; the selected programs are started together on a small pool when the first
# of their tests runs, so that they overlap on a machine's cores, and each test waits for its own. The
# tolerances, and how they were measured against 1.3.3 itself, are in tests/programs/manifest.py. Programs
# marked slow run only with QD_PROGRAMS=all, to keep CI to a couple of minutes; scripts/programs_check.py
# runs them all, and against a live 1.3.3.
import concurrent.futures
import os
import sys
import tempfile

import pytest

PROGRAMS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs")
sys.path.insert(0, PROGRAMS_DIR)

import compare  # noqa: E402
import manifest  # noqa: E402

# Programs that fail on ours today, with the construct that breaks (issue 29). Strict: when a fix makes
# one pass, its test fails until the entry is removed here.
_STRUCT_LIST = ("a dynamic struct field's append()/length()/deactivate() inside a kernel: "
                "lang/sparse_access.py field_attribute() serves scalar fields only, so the StructField has no "
                "such attribute")
_WALRUS = "the walrus operator := (ast.NamedExpr): lang/translator.py visit() has no visitor for it"
_DEACTIVATE_ALL = "qd.deactivate_all_snodes() does not exist (quadrants/__init__.py)"
XFAIL = {
    "taichi/print_offset": "qd.get_addr(a.snode, [i, j]) with an SNode, as upstream allows: "
                           "lang/field_address.py _get_addr() takes fields only",
    "taichi/taichi_bitmasked": _DEACTIVATE_ALL,
    "taichi/explicit_activation": _DEACTIVATE_ALL,
    "taichi/mandelbrot_zoom": "quadrants.math.cmul does not exist (lang/math.py has no complex helpers)",
    "taichi/waterwave": "Python's builtin pow() on kernel values: lang/calls.py only runs non-operator "
                        "builtins on compile-time values",
    "taichi/comet": "qd.no_activate() does not exist",
    "taichi/marching_squares": _STRUCT_LIST,
    "taichi/marching_squares_real_func": _STRUCT_LIST,
    "taichi/poisson_disk_sampling": _WALRUS,
    "taichi/poisson_disk_sampling_real_func": _WALRUS,
    "taichi/mgpcg_advanced": "qd.Vector.unit(n, i) in a kernel is f32: lang/vector_ops.py vector_unit() "
                             "defaults dt to default_fp (upstream: int), so x[I + unit] is a float index",
    "taichi/cornell_box_real_func": "qd.random() inside a @qd.real_func: lang/random_numbers.py call_random() "
                                    "rejects it",
    "quadrants/docs_streams": "qd.stream_parallel, qd.create_stream and qd.create_event do not exist",
}


def _params():
    params = []
    for program in manifest.PROGRAMS:
        marks = [pytest.mark.cpu_only]
        if program.name in XFAIL:
            marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[program.name]))
        params.append(pytest.param(program, id=program.name, marks=marks))
    return params


def _runs_slow():
    return os.environ.get("QD_PROGRAMS") == "all"


@pytest.fixture(scope="session")
def program_runs(request):
    """name -> a future of that program's saved arrays, for every program selected in this session."""
    selected = []
    for item in request.session.items:
        spec = getattr(item, "callspec", None)
        program = spec.params.get("program") if spec is not None else None
        if program is not None and (_runs_slow() or not program.slow):
            selected.append(program)
    scratch = tempfile.TemporaryDirectory()
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {program.name: pool.submit(compare.run_program, program,
                                             os.path.join(scratch.name, program.name.replace("/", "__") + ".npz"),
                                             timeout=600)
                   for program in selected}
        yield futures
        for future in futures.values():
            future.cancel()
    scratch.cleanup()


@pytest.mark.parametrize("program", _params())
def test_program_matches_quadrants_1_3_3(program, program_runs):
    if program.slow and not _runs_slow():
        pytest.skip("slow: QD_PROGRAMS=all or scripts/programs_check.py runs it")
    arrays = program_runs[program.name].result()
    rows = compare.compare(program, arrays, compare.load_reference(program))
    failed = [f"{key}: ratio {ratio:.3g}, {detail}" for key, ratio, detail in rows if not ratio <= 1]
    assert not failed, f"{program.name} differs from quadrants 1.3.3:\n" + "\n".join(failed)


def test_every_program_has_a_reference():
    on_disk = {
        os.path.relpath(os.path.join(folder, name), PROGRAMS_DIR)
        for group in ("taichi", "quadrants")
        for folder, _, names in os.walk(os.path.join(PROGRAMS_DIR, group))
        for name in names
        if name.endswith(".py") and name != "patterns.py"
    }
    listed = {program.path for program in manifest.PROGRAMS}
    assert on_disk == listed, f"not in manifest.py: {on_disk - listed}; missing files: {listed - on_disk}"
    missing = [program.name for program in manifest.PROGRAMS if not os.path.exists(program.reference)]
    assert not missing, f"no stored reference (scripts/programs_check.py --update-references): {missing}"


def test_checks_tell_apart_what_they_should():
    import numpy as np

    ref = np.linspace(0, 1, 1000, dtype=np.float32)
    assert compare.Close(atol=1e-6).ratio(ref, ref)[0] == 0
    assert compare.Close(atol=1e-6).ratio(ref + 1e-5, ref)[0] > 1
    flipped = ref.copy()
    flipped[:5] += 1
    assert compare.Close(atol=1e-6, mismatch_fraction=0.01).ratio(flipped, ref)[0] <= 1  # 0.5% flipped
    assert compare.Close(atol=1e-6, mismatch_fraction=0.001).ratio(flipped, ref)[0] > 1
    rng = np.random.default_rng(0)
    sample, other = rng.normal(size=(20000, 2)), rng.normal(size=(20000, 2))
    assert compare.Stats(0.1, 1).ratio(other, sample)[0] <= 1  # another draw of the same distribution
    assert compare.Stats(0.1, 1).ratio(other * 1.3, sample)[0] > 1  # a wider one
    assert compare.Stats(0.1, 1).ratio(other + [0, 0.2], sample)[0] > 1  # one component shifted
    assert compare.Within(0, 1).ratio(ref, ref)[0] == 0
    assert compare.Within(0, 1).ratio(ref + 0.5, ref)[0] > 1
    lines = np.array(["b", "a"])
    assert compare.Lines().ratio(np.array(["a", "b"]), lines)[0] == 0
    assert compare.Lines().ratio(np.array(["a", "a"]), lines)[0] > 1
    program = compare.Program("taichi/none.py", {}, why="-")
    rows = compare.compare(program, {"x": ref.astype(np.float64), "y": ref[:10]}, {"x": ref, "y": ref})
    assert [key for key, ratio, _ in rows if ratio > 1] == ["x", "y"]  # dtype, then shape
