# tests/python/test_cfg_writes.py: writes to qd.cfg after qd.init() hold for kernels compiled afterwards, as upstream's.
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.kernels import translation_cache
from quadrants.lang import impl
from quadrants.lang._fast_caching import config_hasher
from quadrants.runtime import _core, options as _init_options, init as _runtime


@pytest.fixture(autouse=True)
def fresh_runtime(monkeypatch):
    monkeypatch.setattr(_init_options, "_warned", set())
    qd.init(arch=qd.cpu)
    yield
    qd.reset()
    qd.set_logging_level("info")


def test_debug_written_after_init_bounds_checks_kernels_compiled_afterwards():
    data = qd.ndarray(qd.i32, shape=(4,))

    @qd.kernel
    def write_past_the_end(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(1):
            a[i + 7] = 1

    qd.cfg.debug = True
    assert qd.cfg.debug is True and _runtime.config().debug and _runtime.config().check_out_of_bound
    with pytest.raises(IndexError, match=r"index \(7,\) is out of bounds for 'a' of shape \(4,\)"):
        write_past_the_end(data)


def test_fast_math_write_changes_the_cache_keys_and_dump_path_does_not():
    config = _runtime.config()
    key, digest = translation_cache.config_part(config), config_hasher.hash_compile_config()
    qd.cfg.debug_dump_path = "/tmp/elsewhere/"  # where QD_DUMP_IR=1 writes: no part of any cache key
    qd.cfg.cuda_stack_limit = 32768
    assert (translation_cache.config_part(config), config_hasher.hash_compile_config()) == (key, digest)
    qd.cfg.fast_math = not qd.cfg.fast_math
    assert config.fast_math is qd.cfg.fast_math
    assert translation_cache.config_part(config) != key
    assert config_hasher.hash_compile_config() != digest


def test_default_types_written_through_cfg_reach_the_runtime_and_default_up():
    qd.cfg.default_ip = qd.i64
    qd.cfg.default_fp = qd.f64
    assert (qd.cfg.default_up, impl.get_runtime().default_ip, impl.get_runtime().default_fp) == (qd.u64, qd.i64, qd.f64)

    @qd.kernel
    def third() -> float:
        return 1.0 / 3.0

    assert third() == 1.0 / 3.0  # an f64 result: an f32 one would differ in the 8th digit


def test_runtime_options_written_after_init_are_applied():
    qd.cfg.kernel_profiler = True
    assert _core.kernel_profiling()
    qd.cfg.print_ir = False
    qd.cfg.log_level = "error"
    assert not qd._logging.is_logging_effective("warn")
    qd.cfg.cpu_max_num_threads = 1
    assert _core.num_threads() == 1 and qd.cfg.cpu_max_num_threads == 1
    qd.cfg.cpu_max_num_threads = 0
    assert qd.cfg.cpu_max_num_threads == _core.num_threads() >= 1
    qd.cfg.offline_cache = False
    assert not _core.disk_cache_enabled()
    qd.cfg.offline_cache = True
    assert _core.disk_cache_enabled()


def test_bad_writes_are_errors_that_name_the_option():
    with pytest.raises(TypeError, match=r"qd.cfg.debug = ... expects a bool, but got 'yes' \(str\)"):
        qd.cfg.debug = "yes"
    with pytest.raises(AttributeError, match=r"qd.cfg.arch cannot be set after qd.init\(\)"):
        qd.cfg.arch = qd.cuda
    with pytest.raises(ValueError, match=r"qd.cfg.default_fp = ... expects one of qd.f16, qd.f32, qd.f64, but got "
                                         r"qd.i32"):
        qd.cfg.default_fp = qd.i32
    with pytest.raises(ValueError, match=r"qd.cfg.cpu_max_num_threads = ... expects a non-negative int"):
        qd.cfg.cpu_max_num_threads = -2
    assert qd.cfg.debug is False  # a refused write leaves the option as it was


def test_an_ignored_option_written_warns_once_naming_why():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.cfg.opt_level = 3
        qd.cfg.opt_level = 2
    assert [str(w.message) for w in caught] == [
        "qd.cfg.opt_level = 3 is ignored: quadrants has its own compiler pipeline and no such setting."]
    assert caught[0].filename == __file__
    assert qd.cfg.opt_level == 2


def test_test_mode_init_returns_the_submodule_options():
    options = qd.init(arch=qd.cpu, _test_mode=True, log_level="error")
    assert (options.log_level, options.gdb_trigger, options.unrolling_limit) == ("error", False, 32)
    assert qd.init(arch=qd.cpu) is None


def test_random_seed_written_before_the_first_random_call_seeds_it():
    @qd.kernel
    def draw() -> qd.f32:
        return qd.random(qd.f32)

    qd.init(arch=qd.cpu, random_seed=5)
    expected = draw()
    qd.init(arch=qd.cpu)
    qd.cfg.random_seed = 5
    assert draw() == expected
    with pytest.warns(UserWarning, match=r"qd.cfg.random_seed = 6 takes effect at the next qd.init\(\)"):
        qd.cfg.random_seed = 6
    assert np.isfinite(draw())


@pytest.mark.parametrize("dtype,value", [(qd.u32, 0xFFFFFFFF), (qd.u64, 0xFFFFFFFFFFFFFFFF)])
def test_an_unsigned_default_ip_set_through_the_runtime_is_taken(dtype, value):
    # get_runtime().default_ip writes qd.cfg.default_ip; upstream's test_uint_max sets u32 and u64 there.
    impl.get_runtime().default_ip = dtype
    assert qd.cfg.default_ip == dtype
    f = qd.field(dtype, shape=4)

    @qd.kernel
    def fill():
        for i in f:
            f[i] = value

    fill()
    assert f.to_numpy().tolist() == [value] * 4
    with pytest.raises(ValueError, match="qd.cfg.default_ip = ... expects one of"):
        qd.cfg.default_ip = qd.f32
