# tests/python/test_translation_cache.py: the cache in front of the frontend (kernels/translation_cache.py).
"""Every process here is new and shares one QD_CACHE_DIR with the others of its test. A program of several kernels,
each depending on one kind of input (its own source, a func's, a func's func's in another module, a global number,
a global field's shape and dtype, a template argument, a qd.init option, a closure value, a module attribute, a
data_oriented member, the package version), runs once cold and then again with one input changed: the kernels that
read that input must run the translator again and give the new result, and every other kernel must come from the
cache without the translator (the child counts translate_kernel calls per kernel)."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import quadrants as qd
from quadrants.kernels import translation_cache
from quadrants.runtime import kernel_store

HELPERS = textwrap.dedent("""
    import quadrants as qd

    @qd.func
    def deep(x):
        return x + DEEP_OFFSET

    DEEP_OFFSET = 100
""")

FUNCS = textwrap.dedent("""
    import quadrants as qd
    import helpers

    @qd.func
    def shallow(x):
        return helpers.deep(x) * 2

    @qd.func
    def plain(x):
        return x + 1
""")

PROGRAM = textwrap.dedent("""
    import json, os, sys
    settings = json.loads(os.environ["SETTINGS"])
    import quadrants as qd
    if settings.get("version"):
        qd.__version__ = settings["version"]  # what a new release looks like to the cache
    import numpy as np
    from quadrants.kernels import definition, translation_cache
    translated = []
    real_translate = definition.translate_kernel

    def counting(fn, *args, **kwargs):
        translated.append(fn.__name__)
        return real_translate(fn, *args, **kwargs)

    definition.translate_kernel = counting
    options = {name: settings[name] for name in ("debug", "fast_math") if name in settings}
    qd.init(arch=qd.cpu, default_fp=getattr(qd, settings.get("fp", "f32")), offline_cache=settings.get("offline", True),
            **options)
    import funcs, config_module

    SCALE = settings.get("scale", 3)
    table = qd.field(getattr(qd, settings.get("dtype", "f32")), shape=settings.get("shape", 4))

    @qd.kernel
    def own_source(out: qd.types.ndarray()):
        out[0] = OWN_EXPRESSION

    @qd.kernel
    def calls_func(out: qd.types.ndarray()):
        out[0] = funcs.plain(1)

    @qd.kernel
    def calls_func_of_func(out: qd.types.ndarray()):
        out[0] = funcs.shallow(1)

    @qd.kernel
    def reads_global(out: qd.types.ndarray()):
        out[0] = SCALE * 2

    @qd.kernel
    def reads_field(out: qd.types.ndarray()):
        for i in table:
            table[i] = 0.5
        out[0] = table.shape[0] + table[0]

    @qd.kernel
    def takes_template(out: qd.types.ndarray(), n: qd.template()):
        out[0] = n * 10

    @qd.kernel
    def uses_default_fp(out: qd.types.ndarray()):
        out[0] = 1.0 / 3.0 - qd.cast(1.0 / 3.0, qd.f32)

    @qd.kernel
    def reassociates(out: qd.types.ndarray(), b: qd.f32):
        out[0] = (b + 1e8) - 1e8  # 0 in f32 as written; b where fast_math lets the compiler reassociate

    @qd.kernel
    def asserts(out: qd.types.ndarray()):
        assert out[0] > 1.0, "out[0] is small"  # checked under debug=True only
        out[0] = 1.0

    def make(k):
        @qd.kernel
        def closure_kernel(out: qd.types.ndarray()):
            out[0] = k
        return closure_kernel

    closure_kernel = make(settings.get("closure", 7))

    @qd.kernel
    def reads_module_attribute(out: qd.types.ndarray()):
        out[0] = config_module.LIMIT

    @qd.data_oriented
    class Solver:
        def __init__(self, gain):
            self.gain = gain

        @qd.kernel
        def run(self, out: qd.types.ndarray()):
            out[0] = self.gain

    solver = Solver(settings.get("gain", 5))
    results = {}
    for kernel, extra in [(own_source, ()), (calls_func, ()), (calls_func_of_func, ()), (reads_global, ()),
                          (reads_field, ()), (takes_template, (settings.get("template", 2),)),
                          (uses_default_fp, ()), (closure_kernel, ()), (reads_module_attribute, ()),
                          (solver.run, ()), (reassociates, (0.5,)), (asserts, ())]:
        out = np.zeros(1, np.float64)
        try:
            kernel(out, *extra)
        except AssertionError:
            if kernel is not asserts:
                raise
            out[0] = -1.0
        results[getattr(kernel, "__name__", "run")] = float(out[0])
    print(json.dumps({"results": results, "translated": sorted(translated), "stats": translation_cache.stats}))
""")

ALL = ["asserts", "calls_func", "calls_func_of_func", "closure_kernel", "own_source", "reads_field", "reads_global",
       "reads_module_attribute", "reassociates", "run", "takes_template", "uses_default_fp"]


class Program:
    """The files of one test's program, its cache directory, and a way to run it in a new process."""

    def __init__(self, root):
        self.root = root
        self.cache = root / "cache"
        self.write("helpers.py", HELPERS)
        self.write("funcs.py", FUNCS)
        self.write("config_module.py", "LIMIT = 11\n")
        self.write("program.py", PROGRAM.replace("OWN_EXPRESSION", "(1 +\n                  1 * 1)"))

    def write(self, name, text):
        (self.root / name).write_text(text)

    def edit(self, name, old, new):
        path = self.root / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new))

    def run(self, mode=None, fails=False, **settings):
        """The child's JSON report; mode: QD_TRANSLATION_CACHE for the child; fails: return its stderr instead."""
        env = dict(os.environ, QD_CACHE_DIR=str(self.cache), SETTINGS=json.dumps(settings), PYTHONDONTWRITEBYTECODE="1")
        env.pop("QD_TRANSLATION_CACHE", None)
        if mode is not None:
            env["QD_TRANSLATION_CACHE"] = mode
        done = subprocess.run([sys.executable, "program.py"], cwd=self.root, env=env, capture_output=True, text=True,
                              timeout=600)
        if fails:
            assert done.returncode != 0, done.stdout
            return done.stderr
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    @property
    def records(self):
        """The folder of the kernel records (runtime/kernel_store.py), in the cache directory."""
        return self.cache / kernel_store.FOLDER

    def entry(self, kernel):
        """The record holding `kernel`'s translations (one per kernel in these programs)."""
        found = list(self.records.glob(f"{kernel}-*{kernel_store.SUFFIX}"))
        assert len(found) == 1, found
        return found[0]

    def plant(self, entry, data):
        """Writes `data` as `entry`'s record with an index that vouches for it, as a planted file could be (under
        this package's version: the child's cleaning drops records of other versions)."""
        key = entry.stem.rsplit("-", 1)[1]
        store = kernel_store.KernelStore(str(self.records))
        store.write(key, entry.stem.rsplit("-", 1)[0], data, translation_cache._version())
        assert store.flush()


@pytest.fixture
def warm_program(tmp_path):
    """A program run once cold (every kernel translated) and once warm (none)."""
    program = Program(tmp_path)
    cold = program.run()
    assert cold["translated"] == ALL
    assert cold["results"] == {"own_source": 2.0, "calls_func": 2.0, "calls_func_of_func": 202.0, "reads_global": 6.0,
                               "reads_field": 4.5, "takes_template": 20.0, "uses_default_fp": 0.0,
                               "closure_kernel": 7.0, "reads_module_attribute": 11.0, "run": 5.0,
                               "reassociates": 0.0, "asserts": 1.0}
    warm = program.run()
    assert warm["translated"] == [], "a warm process ran the translator"
    assert warm["results"] == cold["results"]
    assert warm["stats"]["hits"] == len(ALL) and warm["stats"]["translated"] == 0
    program.cold = cold["results"]
    return program


def _changed(program, kernels, expected=None, **settings):
    """Runs the program; only `kernels` were translated again, each giving `expected`'s values."""
    run = program.run(**settings)
    assert run["translated"] == sorted(kernels)
    results = dict(program.cold, **(expected or {}))
    assert run["results"] == results
    again = program.run(**settings)  # and now they come from the cache too
    assert again["translated"] == [] and again["results"] == results
    return run


def test_a_warm_process_runs_no_translator_and_an_edit_of_the_kernel_retranslates_it(warm_program):
    # On the expression's second line, which CPython folds into a constant positioned at its first.
    warm_program.edit("program.py", "1 * 1)", "1 * 2)")
    _changed(warm_program, ["own_source"], {"own_source": 3.0})


def test_an_edit_of_a_func_and_of_a_func_it_calls_in_another_module(warm_program):
    warm_program.edit("funcs.py", "return x + 1", "return x + 4")
    _changed(warm_program, ["calls_func"], {"calls_func": 5.0})
    warm_program.edit("helpers.py", "return x + DEEP_OFFSET", "return x - DEEP_OFFSET")
    warm_program.cold["calls_func"] = 5.0
    _changed(warm_program, ["calls_func_of_func"], {"calls_func_of_func": -198.0})
    warm_program.edit("helpers.py", "DEEP_OFFSET = 100", "DEEP_OFFSET = 10")  # a global the deep func reads
    _changed(warm_program, ["calls_func_of_func"], {"calls_func_of_func": -18.0})


def test_captured_values_template_arguments_and_closures(warm_program):
    _changed(warm_program, ["reads_global"], {"reads_global": 10.0}, scale=5)
    _changed(warm_program, ["takes_template"], {"takes_template": 30.0}, template=3)
    _changed(warm_program, ["closure_kernel"], {"closure_kernel": 8.0}, closure=8)
    _changed(warm_program, ["run"], {"run": 6.0}, gain=6)
    warm_program.write("config_module.py", "LIMIT = 12\n")
    _changed(warm_program, ["reads_module_attribute"], {"reads_module_attribute": 12.0})


def test_a_global_fields_shape_and_dtype(warm_program):
    _changed(warm_program, ["reads_field"], {"reads_field": 6.5}, shape=6)
    _changed(warm_program, ["reads_field"], {"reads_field": 4.0}, dtype="i32")  # 0.5 stored in an i32 is 0


def test_fast_math_and_debug(warm_program):
    # Both are in every kernel's IR; fast_math=True lets (b + 1e8) - 1e8 be b, debug=True checks the assert.
    _changed(warm_program, ALL, {"reassociates": 0.5}, fast_math=True)
    _changed(warm_program, ALL, {"asserts": -1.0}, debug=True)


def test_init_options_and_the_package_version(warm_program):
    # default_fp=f64: 1/3 computed in f64 differs from its f32 rounding; every kernel's IR names default_fp.
    run = warm_program.run(fp="f64")
    assert run["translated"] == ALL and run["results"]["uses_default_fp"] != 0.0
    run = warm_program.run(version="99.0.0")
    assert run["translated"] == ALL and run["results"] == warm_program.cold


def test_a_corrupted_entry_is_ignored_and_offline_cache_false_writes_none(tmp_path):
    program = Program(tmp_path)
    program.run()
    entry = program.entry("own_source")
    text = entry.read_text()
    assert "(const" in text
    entry.write_text(text.replace("(const", "(konst"))  # same length, wrong bytes: never used
    run = program.run()
    assert run["translated"] == ["own_source"] and run["results"]["own_source"] == 2.0
    shutil.rmtree(program.cache)
    run = program.run(offline=False)
    assert run["translated"] == ALL
    assert not program.records.exists() or not any(program.records.iterdir())
    assert program.run()["translated"] == ALL


OPTIMIZED = textwrap.dedent("""
    import quadrants as qd
    import numpy as np
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def checks(out: qd.types.ndarray()):
        out[0] = 1.0
        assert out[0] > 2.0, "out[0] is small"

    try:
        checks(np.zeros(1, np.float64))
        print("passed")
    except AssertionError:
        print("failed")
""")


def test_a_kernels_last_line_counts_when_python_o_leaves_it_no_bytecode(tmp_path):
    """Under `python -O` a trailing assert compiles to nothing, yet the frontend translates it (debug=True checks it):
    an edit to it must translate the kernel again."""
    program = Program(tmp_path)
    program.write("optimized.py", OPTIMIZED)

    def run():
        env = dict(os.environ, QD_CACHE_DIR=str(program.cache), PYTHONDONTWRITEBYTECODE="1")
        env.pop("QD_TRANSLATION_CACHE", None)
        done = subprocess.run([sys.executable, "-O", "optimized.py"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.split()[-1]

    assert run() == "failed" and run() == "failed"
    program.edit("optimized.py", "out[0] > 2.0", "out[0] > 0.5")
    assert run() == "passed"


def test_a_truncated_entry_a_damaged_index_or_an_entry_of_another_shape_is_a_miss(tmp_path):
    program = Program(tmp_path)
    program.run()
    entry = program.entry("own_source")
    data = entry.read_bytes()
    entry.write_bytes(data[:len(data) // 2])
    run = program.run()
    assert run["translated"] == ["own_source"] and run["results"]["own_source"] == 2.0
    assert run["stats"]["hits"] == len(ALL) - 1
    assert program.run()["translated"] == []  # the miss stored the entry again
    index = program.records / kernel_store.INDEX
    records = json.loads(index.read_text())
    records["records"][entry.stem.rsplit("-", 1)[1]]["sha256"] = "0" * 64  # the index no longer vouches for it
    index.write_text(json.dumps(records))
    assert program.run()["translated"] == ["own_source"]
    index.write_text("not an index")  # every record is a miss
    assert program.run()["translated"] == ALL
    # Bytes the index vouches for but that are no entry of this format (as a planted or future file would be):
    # the reader takes them as a miss, never as IR, and the store after the miss replaces them.
    key = entry.stem.rsplit("-", 1)[1]
    for text in ['{"format": 1, "key": "%s", "variants": [{"reads": 5}]}' % key, "not json", "",
                 '{"format": 1, "key": "%s", "variants": [{"reads": [], "identities": [], "containers": [7]}]}' % key,
                 '{"format": 0, "key": "%s", "variants": []}' % key]:
        program.plant(entry, text.encode())
        run = program.run()
        assert run["translated"] == ["own_source"] and run["results"]["own_source"] == 2.0, text


def test_verify_mode_finds_a_stale_entry(tmp_path):
    """QD_TRANSLATION_CACHE=verify, with which the suite is run warm to look for inputs the key misses, does find
    an entry whose IR is not what the kernel translates to now (planted here with an index that vouches for it)."""
    program = Program(tmp_path)
    program.run()
    entry = program.entry("own_source")
    stored = json.loads(entry.read_text())
    ir = stored["variants"][0]["ir"]
    assert "2.0" in ir or " 2" in ir, ir
    stored["variants"][0]["ir"] = ir.replace("2.0", "5.0") if "2.0" in ir else ir.replace(" 2", " 5")
    program.plant(entry, json.dumps(stored).encode())
    assert program.run()["results"]["own_source"] == 5.0  # the cache trusts a verified entry: why verify exists
    error = program.run(mode="verify", fails=True)
    assert "cached translation of kernel 'own_source'" in error and "is stale" in error, error
    program.plant(entry, json.dumps(dict(stored, variants=[])).encode())
    program.run()  # stores the true translation again
    run = program.run(mode="verify")  # every kernel a hit, translated again, and found the same
    assert run["stats"]["hits"] == len(ALL) and run["results"]["own_source"] == 2.0


def test_clear_cache_removes_translations_too(tmp_path, monkeypatch):
    program = Program(tmp_path)
    program.run()
    assert program.entry("own_source").exists()
    monkeypatch.setenv("QD_CACHE_DIR", str(program.cache))
    qd.clear_cache()
    assert sorted(p.name for p in program.records.iterdir()) == []
    assert program.run()["translated"] == ALL


def test_a_translation_that_folds_an_address_is_not_cached():
    """qd.get_addr() puts this process's address of the field into the IR: two fields of one description share a
    cache key, so a cached translation would give the second the first one's address (QD_TRANSLATION_CACHE=verify
    found this in tests/python/test_field_layout.py)."""
    from quadrants.kernels import translation_cache

    qd.init(arch=qd.cpu)
    f = qd.field(qd.f32, shape=(4,))
    g = qd.field(qd.f32, shape=(4,))

    @qd.kernel
    def address(x: qd.template(), i: qd.i32) -> qd.u64:
        return qd.get_addr(x, [i])

    assert address(f, 2) - address(f, 1) == 4
    assert address(g, 0) not in (address(f, 0), 0)
    assert any("qd.get_addr()" in reason for reason in translation_cache.stats["refused"])


TWO_PROCESSES = textwrap.dedent("""
    import sys
    import numpy as np
    import quadrants as qd

    qd.init(arch=qd.cpu)
    FUNCTIONS = [lambda x: x * x, lambda x: x + 10.0]
    f = FUNCTIONS[int(sys.argv[1])]

    @qd.kernel
    def apply(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in x:
            y[i] = f(x[i])

    y = np.zeros(3)
    apply(np.array([1.0, 2.0, 3.0]), y)
    print(y.tolist())

    lazy = qd.field(qd.i32)
    builder = qd.FieldsBuilder()
    builder.dense(qd.i, 4).place(lazy)

    @qd.kernel
    def fill():
        for i in lazy:
            lazy[i] = i

    if sys.argv[2] == "finalize":
        builder.finalize()
        fill()
        print(lazy.to_numpy().tolist())
    else:
        try:
            fill()
        except qd.QuadrantsCompilationError as exc:
            print("not finalized" if "not finalized yet" in str(exc) else exc)
""")


def test_lambdas_of_one_line_and_a_field_without_storage_in_a_later_process(tmp_path):
    """The second process finds the first one's entries: a lambda from the same line is another lambda (the entry
    must not serve it), and a field that the first process had finalized has no storage yet (the frontend's error,
    not the cache's)."""
    (tmp_path / "program.py").write_text(TWO_PROCESSES)
    env = dict(os.environ, QD_CACHE_DIR=str(tmp_path / "cache"), QD_TRANSLATION_CACHE="1")

    def run(*args):
        done = subprocess.run([sys.executable, str(tmp_path / "program.py"), *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.split("\n")[:2]

    assert run("0", "finalize") == ["[1.0, 4.0, 9.0]", "[0, 1, 2, 3]"]
    assert run("1", "wait") == ["[11.0, 12.0, 13.0]", "not finalized"]
    assert run("0", "wait") == ["[1.0, 4.0, 9.0]", "not finalized"]


def test_members_of_two_dtypes_under_one_template_key_are_both_kept(tmp_path):
    """Two data_oriented objects whose ndarray member differs only in dtype read alike (the member is a leaf); their
    variants differ in the leaves' specializations, so a later process finds both (the second store once replaced
    the first, and every warm process translated both again)."""

    @qd.data_oriented
    class State:
        def __init__(self, x):
            self.x = x

    @qd.kernel
    def bump(s: qd.template()):
        for i in range(4):
            s.x[i] = s.x[i] + 1

    hits = []
    for _ in range(2):
        qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path), offline_cache=True)
        before = translation_cache.stats["hits"]
        for dtype in (qd.i32, qd.f32):
            state = State(qd.ndarray(dtype, shape=(4,)))
            bump(state)
            assert state.x.to_numpy().tolist() == [1, 1, 1, 1]
        hits.append(translation_cache.stats["hits"] - before)
    assert hits == [0, 2]
