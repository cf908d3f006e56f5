# tests/python/test_fast_caching_compat.py: upstream's fast-cache hashers (quadrants.lang._fast_caching) and
# _wrap_inspect, answered by the translation cache: they must hash what it keys on and checks.
import dataclasses
import importlib
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd
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


def test_template_values_are_keyed_and_runtime_scalars_by_dtype():
    qd.init(arch=qd.cpu)
    assert hash_args(False, [3], [TEMPLATE]) != hash_args(False, [4], [TEMPLATE])
    scalar = ArgMetadata(qd.i32, "s")
    assert hash_args(False, [3], [scalar]) == hash_args(False, [np.int64(7)], [scalar])
    assert hash_args(False, [3], [None]) != hash_args(False, [3.0], [None])  # no annotation: the value's type


def test_arrays_by_specialization_and_fields_by_description():
    qd.init(arch=qd.cpu)
    one = hash_args(False, [qd.ndarray(qd.f32, (4,))], [None])
    assert one == hash_args(False, [qd.ndarray(qd.f32, (9,))], [None])  # the shape is not specialized
    assert one != hash_args(False, [qd.ndarray(qd.f64, (4,))], [None])
    assert one != hash_args(False, [qd.ndarray(qd.f32, (4, 1))], [None])
    field = hash_args(False, [qd.field(qd.f32, (4,))], [TEMPLATE])
    assert isinstance(field, str)  # a field is baked in by description, so it is cacheable here
    assert field != hash_args(False, [qd.field(qd.f32, (5,))], [TEMPLATE])
    assert field != one


def test_dataclasses_by_member_names_and_an_undescribable_argument():
    qd.init(arch=qd.cpu)

    @dataclasses.dataclass
    class A:
        x: int

    @dataclasses.dataclass
    class B:
        y: int

    assert hash_args(False, [A(1)], [None]) == hash_args(False, [A(2)], [None])
    assert hash_args(False, [A(1)], [None]) != hash_args(False, [B(1)], [None])
    assert hash_args(False, [np.array([object()])], [TEMPLATE]) is FastcacheSkip.WARN


def test_raise_on_templated_floats_and_mismatched_lengths():
    qd.init(arch=qd.cpu)
    with pytest.raises(ValueError, match="template argument 't' is a float"):
        hash_args(True, [1.5], [TEMPLATE])
    assert isinstance(hash_args(False, [1.5], [TEMPLATE]), str)
    with pytest.raises(ValueError, match="same length, got 2 and 1"):
        hash_args(False, [1, 2], [None])


def test_source_info_and_hash_are_the_translation_caches_fingerprint(module_file):
    write, path = module_file
    qd.init(arch=qd.cpu)
    mod = write(SUBJECT)
    info, src = _wrap_inspect.get_source_info_and_src(mod.k)
    filename, first, last, digest = source_fingerprint(mod.k.fn)
    assert (info.filepath, info.start_lineno, info.end_lineno) == (filename, first, last)
    assert src[0] == "@qd.kernel\n" and src[-1].strip() == "a[i] = helper(a[i])"
    assert function_hasher.hash_kernel(info) == digest

    hashed = function_hasher.hash_functions([info, _wrap_inspect.get_source_info_and_src(mod.helper)[0]])
    key = src_hasher.create_cache_key(False, info, [], [])
    assert function_hasher.validate_hashed_function_infos(hashed)
    path.write_text(textwrap.dedent(SUBJECT).replace("x + 1", "x + 2"))
    assert not function_hasher.validate_hashed_function_infos(hashed)
    assert src_hasher.create_cache_key(False, info, [], []) == key  # the kernel's own lines did not change
    path.write_text(textwrap.dedent(SUBJECT).replace("a[i] = helper(a[i])", "a[i] = helper(a[i]) * 2"))
    assert src_hasher.create_cache_key(False, info, [], []) != key
    path.unlink()
    assert not function_hasher.validate_hashed_function_infos(hashed)


def test_config_hash_follows_the_options_a_translation_reads():
    qd.init(arch=qd.cpu)
    base = config_hasher.hash_compile_config()
    qd.init(arch=qd.cpu, random_seed=5)
    assert config_hasher.hash_compile_config() == base  # a field's value here, not part of any translation
    qd.init(arch=qd.cpu, fast_math=not qd.cfg.fast_math)
    assert config_hasher.hash_compile_config() != base


def test_an_undescribable_argument_has_no_key(module_file):
    write, _ = module_file
    qd.init(arch=qd.cpu)
    info, _ = _wrap_inspect.get_source_info_and_src(write(SUBJECT).k)
    assert src_hasher.create_cache_key(False, info, [np.array([object()])], [TEMPLATE]) is None
    assert args_hasher.FastcacheSkip.WARN.value == "warn"


OBSERVED = """
    import quadrants as qd

    SCALE = 2


    @qd.kernel
    def k(a: qd.types.ndarray(qd.i32, ndim=1)):
        a[0] = SCALE
"""


def test_src_ll_cache_observations_report_the_translation_cache(module_file):
    write, _ = module_file
    qd.init(arch=qd.cpu)
    mod = write(OBSERVED)

    def observed():
        o = mod.k._primal.src_ll_cache_observations
        return o.cache_key_generated, o.cache_validated, o.cache_loaded, o.cache_stored

    assert observed() == (False, False, False, False)  # not translated yet

    def run():
        a = qd.ndarray(qd.i32, (1,))
        mod.k(a)
        return a[0]

    assert run() == 2 and observed() == (True, False, False, True)
    qd.init(arch=qd.cpu)  # compiled kernels are dropped; the translation is found again
    assert run() == 2 and observed() == (True, True, True, False)
    mod.SCALE = 5  # a recorded read no longer holds: translated and stored again
    qd.init(arch=qd.cpu)
    assert run() == 5 and observed() == (True, False, False, True)
    qd.init(arch=qd.cpu, offline_cache=False)
    assert run() == 5 and observed() == (False, False, False, False)
