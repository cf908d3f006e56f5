# tests/python/test_fast_caching_compat.py: upstream's fast-cache key and records (quadrants.lang._fast_caching),
# _wrap_inspect, and what fastcache kernels report of the translation cache (src_ll_cache_observations).
import dataclasses
import importlib
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd
from quadrants.kernels import fastcache_key, translation_cache
from quadrants.kernels.translation_inputs import source_fingerprint
from quadrants.lang import _wrap_inspect
from quadrants.lang._fast_caching import args_hasher, config_hasher, function_hasher, src_hasher
from quadrants.lang._fast_caching.args_hasher import FastcacheSkip, hash_args
from quadrants.lang.kernel_arguments import ArgMetadata

TEMPLATE = ArgMetadata(qd.template(), "t")


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    """write(text) puts a module in tmp_path and imports it afresh; returns the module."""
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "fastcache_subject.py"

    def write(text):
        path.write_text(textwrap.dedent(text))
        sys.modules.pop("fastcache_subject", None)
        importlib.invalidate_caches()
        return importlib.import_module("fastcache_subject")

    yield write, path
    sys.modules.pop("fastcache_subject", None)


SUBJECT = """
    import quadrants as qd


    @qd.func
    def helper(x):
        return x + 1


    @qd.kernel
    def k(a: qd.types.ndarray(qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = helper(a[i])
"""


def test_template_values_are_keyed_and_runtime_numbers_by_type():
    qd.init(arch=qd.cpu)
    assert hash_args(False, [3], [TEMPLATE]) != hash_args(False, [4], [TEMPLATE])
    scalar = ArgMetadata(qd.i32, "s")
    assert hash_args(False, [3], [scalar]) == hash_args(False, [7], [scalar])
    assert hash_args(False, [3], [scalar]) != hash_args(False, [np.int64(3)], [scalar])  # upstream: by Python type
    assert hash_args(False, [3], [None]) != hash_args(False, [3.0], [None])


def test_arrays_by_kind_dtype_ndim_and_fields_are_not_fast_cacheable():
    qd.init(arch=qd.cpu)
    one = hash_args(False, [qd.ndarray(qd.f32, (4,))], [None])
    assert one == hash_args(False, [qd.ndarray(qd.f32, (9,))], [None])  # the shape is not keyed
    assert one != hash_args(False, [qd.ndarray(qd.f64, (4,))], [None])
    assert one != hash_args(False, [qd.ndarray(qd.f32, (4, 1))], [None])
    assert one != hash_args(False, [qd.Vector.ndarray(1, qd.f32, (4,))], [None])
    # A field stops the fast cache: with a warning under a template annotation, silently under qd.Tensor.
    assert hash_args(False, [qd.field(qd.f32, (4,))], [TEMPLATE]) is FastcacheSkip.WARN
    assert hash_args(False, [qd.field(qd.f32, (4,))], [ArgMetadata(qd.Tensor, "t")]) is FastcacheSkip.FIELD_VIA_TENSOR


def test_dataclasses_by_member_names_marked_members_by_value_and_objects_warn(caplog):
    qd.init(arch=qd.cpu)

    @dataclasses.dataclass
    class A:
        x: int

    @dataclasses.dataclass
    class B:
        y: int

    @dataclasses.dataclass
    class Marked:
        x: int = dataclasses.field(metadata={args_hasher.FIELD_METADATA_CACHE_VALUE: True})

    assert hash_args(False, [A(1)], [None]) == hash_args(False, [A(2)], [None])
    assert hash_args(False, [A(1)], [None]) != hash_args(False, [B(1)], [None])
    assert hash_args(False, [Marked(1)], [None]) != hash_args(False, [Marked(2)], [None])
    with caplog.at_level("WARNING", logger="quadrants"):
        assert hash_args(False, [object()], [TEMPLATE]) is FastcacheSkip.WARN
    assert "[FASTCACHE][PARAM_INVALID]" in caplog.text and "object" in caplog.text


def test_data_oriented_members_by_value_unless_lifted_to_runtime():
    qd.init(arch=qd.cpu)

    @qd.data_oriented
    class Baked:
        def __init__(self, k):
            self.k = k

    @qd.data_oriented(template_primitives=False)
    class Lifted:
        def __init__(self, k):
            self.k = k

    assert hash_args(False, [Baked(3)], [TEMPLATE]) != hash_args(False, [Baked(4)], [TEMPLATE])
    assert hash_args(False, [Lifted(3)], [TEMPLATE]) == hash_args(False, [Lifted(4)], [TEMPLATE])


def test_raise_on_templated_floats_and_mismatched_lengths():
    qd.init(arch=qd.cpu)
    with pytest.raises(ValueError, match="Floats should not be used in template parameters: 0 is 1.5"):
        hash_args(True, [1.5], [TEMPLATE])
    assert isinstance(hash_args(False, [1.5], [TEMPLATE]), str)
    with pytest.raises(ValueError, match="same length, got 2 and 1"):
        hash_args(False, [1, 2], [None])


def test_source_info_hashes_upstreams_lines_and_records_validate(module_file, tmp_path):
    write, path = module_file
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path / "cache"))
    mod = write(SUBJECT)
    info, src = _wrap_inspect.get_source_info_and_src(mod.k)
    filename, first, last, _ = source_fingerprint(mod.k.fn)
    assert (info.filepath, info.start_lineno, info.end_lineno) == (filename, first, last)
    assert src[0] == "@qd.kernel\n" and src[-1].strip() == "a[i] = helper(a[i])"
    # Upstream's digest reads the range counted from 0: one line later than the 1-based range.
    assert function_hasher._read_file(info) == path.read_text().splitlines(keepends=True)[first:last + 1]
    assert function_hasher._read_file(info)[0] == src[1]

    helper_info = _wrap_inspect.get_source_info_and_src(mod.helper)[0]
    hashed = function_hasher.hash_functions([info, helper_info])
    key = src_hasher.create_cache_key(False, info, [], [])
    assert function_hasher.validate_hashed_function_infos(hashed)
    src_hasher.store("compiled-key", key, [info, helper_info], {"__qd_s"})
    assert src_hasher.load(key).frontend_cache_key == "compiled-key"
    path.write_text(textwrap.dedent(SUBJECT).replace("x + 1", "x + 2"))
    assert not function_hasher.validate_hashed_function_infos(hashed)
    assert src_hasher.load(key) is None  # a function it inlined changed
    assert src_hasher.create_cache_key(False, info, [], []) == key  # the kernel's own lines did not change
    path.write_text(textwrap.dedent(SUBJECT).replace("a[i] = helper(a[i])", "a[i] = helper(a[i]) * 2"))
    assert src_hasher.create_cache_key(False, info, [], []) != key
    path.unlink()
    assert not function_hasher.validate_hashed_function_infos(hashed)


def test_a_corrupted_record_is_a_miss(tmp_path):
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    src_hasher.store("compiled-key", "somekey", [], set())
    assert src_hasher.load("somekey").used_py_dataclass_parameters == set()
    (tmp_path / "python_side_cache" / "somekey.cache.txt").write_bytes(b"\x00\xe2\xff JUNK")
    with pytest.warns(UserWarning, match="fast-cache record"):
        assert src_hasher.load("somekey") is None


def test_config_hash_follows_upstreams_options_and_device_caps():
    qd.init(arch=qd.cpu)
    base = config_hasher.hash_compile_config()
    qd.init(arch=qd.cpu)
    assert config_hasher.hash_compile_config() == base
    qd.init(arch=qd.cpu, random_seed=5)
    assert config_hasher.hash_compile_config() != base  # upstream bakes the seed into compiled kernels
    qd.init(arch=qd.cpu, print_ir_dbg_info=True, offline_cache_max_size_of_files=1 << 20)
    assert config_hasher.hash_compile_config() == base  # output and cache placement are left out
    caps = config_hasher.hash_device_caps()
    assert caps.startswith("T") and caps == qd.lang.impl.get_runtime().prog.get_device_caps().hashed_key()


def test_an_unfast_cacheable_argument_has_no_key(module_file, caplog):
    write, _ = module_file
    qd.init(arch=qd.cpu)
    info, _ = _wrap_inspect.get_source_info_and_src(write(SUBJECT).k)
    with caplog.at_level("WARNING", logger="quadrants"):
        assert src_hasher.create_cache_key(False, info, [object()], [TEMPLATE]) is None
    assert "[FASTCACHE][INVALID_FUNC] The pure function k could not be fast cached" in caplog.text
    assert src_hasher.create_cache_key(False, info, [qd.field(qd.f32, 3)], [ArgMetadata(qd.Tensor, "t")]) is None


OBSERVED = """
    import quadrants as qd


    @qd.kernel(fastcache=True)
    def k(a: qd.types.ndarray(qd.i32, ndim=1), scale: qd.template()):
        a[0] = scale


    @qd.kernel
    def plain(a: qd.types.ndarray(qd.i32, ndim=1), scale: qd.template()):
        a[0] = scale


    @qd.kernel(fastcache=True)
    def from_field(a: qd.types.ndarray(qd.i32, ndim=1), x: qd.template()):
        a[0] = x[0]
"""


def test_src_ll_cache_observations_report_fastcache_calls_of_the_translation_cache(module_file, tmp_path, caplog):
    write, _ = module_file
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    mod = write(OBSERVED)

    def observed(kernel):
        o = kernel._primal.src_ll_cache_observations
        return o.cache_key_generated, o.cache_validated, o.cache_loaded, o.cache_stored

    assert observed(mod.k) == (False, False, False, False)  # not translated yet

    def run(kernel, scale):
        a = qd.ndarray(qd.i32, (1,))
        kernel(a, scale)
        return a[0]

    assert run(mod.k, 2) == 2 and observed(mod.k) == (True, False, False, True)
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))  # compiled kernels dropped; translation found
    assert run(mod.k, 2) == 2 and observed(mod.k) == (True, True, True, False)
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    assert run(mod.k, 5) == 5 and observed(mod.k) == (True, False, False, True)  # a new template value
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path), src_ll_cache=False)
    assert run(mod.k, 5) == 5 and observed(mod.k) == (False, False, False, False)
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path), offline_cache=False)
    assert run(mod.k, 5) == 5 and observed(mod.k) == (True, False, False, False)  # keyed; no translation cache

    # A kernel that is not fastcache reports nothing, as upstream's, though the translation cache serves it.
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    assert run(mod.plain, 3) == 3
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    hits = translation_cache.stats["hits"]
    assert run(mod.plain, 3) == 3 and observed(mod.plain) == (False, False, False, False)
    assert translation_cache.stats["hits"] == hits + 1

    # A field argument: upstream's fast cache skips the call (with its warning under a template annotation); the
    # translation cache still caches the kernel.
    field = qd.field(qd.i32, (1,))
    with caplog.at_level("WARNING", logger="quadrants"):
        assert run(mod.from_field, field) == 0
    assert "[FASTCACHE][INVALID_FUNC] The pure function from_field" in caplog.text
    assert observed(mod.from_field) == (False, False, False, False)
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    field = qd.field(qd.i32, (1,))
    hits = translation_cache.stats["hits"]
    run(mod.from_field, field)
    assert translation_cache.stats["hits"] == hits + 1


def test_a_calls_key_is_the_public_key(module_file):
    # A call keys on the kernel's lines as the process first read them (no file read per compile): the same digest
    # as src_hasher.create_cache_key's, which reads the file now.
    write, _ = module_file
    qd.init(arch=qd.cpu)
    mod = write(OBSERVED)
    info, _ = _wrap_inspect.get_source_info_and_src(mod.k.fn)
    args = [qd.ndarray(qd.i32, (1,)), 4]
    assert fastcache_key.observe_call(mod.k.definition, args) == src_hasher.create_cache_key(
        False, info, args, mod.k.definition.params)
    assert mod.k._primal.src_ll_cache_observations.cache_key_generated


def test_compiled_kernel_data_by_key_and_the_last_one(module_file, tmp_path):
    write, _ = module_file
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))
    mod = write(OBSERVED)
    primal = mod.k._primal
    assert primal._last_compiled_kernel_data is None and len(primal.compiled_kernel_data_by_key) == 0
    a = qd.ndarray(qd.i32, (1,))
    mod.k(a, 2)
    mod.k(a, 2)
    assert len(primal.compiled_kernel_data_by_key) == 1
    dump = primal._last_compiled_kernel_data._debug_dump_to_string()
    assert "generated by quadrants for kernel k" in dump
    mod.k(a, 3)
    assert len(primal.compiled_kernel_data_by_key) == 2
    qd.init(arch=qd.cpu, offline_cache_file_path=str(tmp_path))  # compiled kernels are dropped with the session
    assert primal._last_compiled_kernel_data is None and len(primal.compiled_kernel_data_by_key) == 0
    mod.k(qd.ndarray(qd.i32, (1,)), 2)  # loaded from the disk cache: the same code
    assert primal._last_compiled_kernel_data._debug_dump_to_string() == dump
