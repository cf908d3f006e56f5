# tests/python/test_init_options.py: qd.init() takes every upstream option; applied ones act, ignored ones warn once.
import logging
import platform
import re
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core, options as _init_options, init as _runtime
from quadrants.lang import impl

_UPSTREAM_ENV = ("QD_ARCH", "QD_DEBUG", "QD_RANDOM_SEED", "QD_DEFAULT_FP", "QD_DEFAULT_IP", "QD_LOG_LEVEL",
                 "QD_DEVICE_MEMORY_GB", "QD_CPU_MAX_NUM_THREADS")


@pytest.fixture(autouse=True)
def fresh_runtime(monkeypatch):
    for name in _UPSTREAM_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_init_options, "_warned", set())
    yield
    qd.reset()
    qd.set_logging_level("info")


def init_warnings(**kwargs):
    """The messages of the warnings qd.init(arch=qd.cpu, **kwargs) gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.init(arch=qd.cpu, **kwargs)
    return [str(w.message) for w in caught]


@qd.kernel
def write_at(data: qd.types.ndarray(dtype=qd.i32, ndim=1), i: qd.i32):
    data[i] = 1


# --- every option is accepted ---------------------------------------------------------------------
def test_every_upstream_option_at_its_default_is_accepted_without_a_warning():
    defaults = {name: default for name, (default, _, _) in _init_options.OPTIONS.items()}
    defaults["cpu_max_num_threads"] = 2  # its default (None) means the hardware's count
    assert init_warnings(**defaults) == []


def _dynamic_loop_kernel():
    x = qd.field(qd.f32, shape=2, needs_grad=True)
    y = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.func
    def repeat(v, n: qd.i32):
        for _ in range(n):
            v = v * v * 0.5 + 0.25
        return v

    @qd.kernel
    def compute(n: qd.i32, through_func: qd.template()):
        for i in x:
            v = x[i]
            if qd.static(through_func):
                v = repeat(v, n)
            else:
                for _ in range(n):
                    v = v * v * 0.5 + 0.25
            y[None] += v

    x.from_numpy(np.array([0.5, 0.25], np.float32))
    y.grad[None] = 1.0
    return x, compute


@pytest.mark.parametrize("given", [{}, {"ad_stack_experimental_enabled": False}])
@pytest.mark.parametrize("through_func", [False, True])
def test_ad_stack_experimental_enabled_false_rejects_a_nested_dynamic_range_in_reverse_mode(through_func, given):
    # As upstream, and by default: without AD stacks a range() loop inside another loop (here or in a func called
    # there) cannot be differentiated; the primal still runs.
    assert init_warnings(**given) == []
    assert qd.cfg.ad_stack_experimental_enabled is False
    assert not qd.is_extension_enabled(qd.extension.adstack)
    x, compute = _dynamic_loop_kernel()
    compute(2, through_func)
    with pytest.raises(qd.QuadrantsCompilationError, match=r"Cannot use non static range in Backwards mode") as e:
        compute.grad(2, through_func)
    assert "ad_stack_experimental_enabled=True" in str(e.value)


def test_ad_stack_experimental_enabled_differentiates_a_dynamic_loop():
    assert init_warnings(ad_stack_experimental_enabled=True) == []
    assert qd.cfg.ad_stack_experimental_enabled is True
    assert qd.is_extension_enabled(qd.extension.adstack)
    x, compute = _dynamic_loop_kernel()
    compute(2, True)
    compute.grad(2, True)
    # d/dx of g(g(x)) with g(v) = v*v/2 + 1/4: g'(g(x)) * g'(x) = g(x) * x
    expected = [(v * v * 0.5 + 0.25) * v for v in (0.5, 0.25)]
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("name", [n for n, (_, status, _) in _init_options.OPTIONS.items()
                                  if status == _init_options.IGNORED])
def test_each_ignored_option_warns_once_naming_itself_and_why(name):
    default = _init_options.OPTIONS[name][0]
    other = {bool: lambda: not default, int: lambda: default + 1, float: lambda: default + 0.5,
             str: lambda: default + "x"}[type(default)]()
    first = init_warnings(**{name: other})
    assert len(first) == 1 and first[0].startswith(f"qd.init({name}={other!r}) is ignored: ")
    assert init_warnings(**{name: other}) == []  # once per process
    assert getattr(qd.cfg, name) == other  # qd.cfg shows what was given, as upstream


def test_genesis_init_call_is_accepted():
    # The options genesis-world 1.4.5 passes to qd.init() on the CPU.
    messages = init_warnings(enable_fallback=False, debug=False, check_out_of_bound=False,
                             force_scalarize_matrix=True, advanced_optimization=True, cfg_optimization=False,
                             fast_math=True, default_ip=qd.i32, default_fp=qd.f64,
                             ad_stack_sparse_threshold_bytes=200_000_000, ad_stack_experimental_enabled=True,
                             offline_cache_max_size_of_files=2**31 - 1, log_level=qd.WARN, cpu_max_num_threads=1,
                             random_seed=0)
    warned = sorted(re.match(r"qd.init\((\w+)=", m).group(1) for m in messages)
    assert warned == ["ad_stack_sparse_threshold_bytes", "cfg_optimization",
                      "force_scalarize_matrix"]  # offline_cache_max_size_of_files is the disk cache's size cap
    assert (qd.cfg.default_fp, qd.cfg.fast_math, qd.cfg.cpu_max_num_threads) == (qd.f64, True, 1)


# --- bad options ------------------------------------------------------------------------------------
def test_unknown_option_is_a_type_error_and_upstreams_key_error_naming_it():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'random_sed'\. Did you mean 'random_seed'\?"):
        qd.init(random_sed=1)
    with pytest.raises(KeyError) as info:
        qd.init(not_an_option=True)
    assert str(info.value) == "qd.init() got an unexpected keyword argument 'not_an_option'."


def test_default_up_cannot_be_set():
    with pytest.raises(KeyError, match="always the unsigned type of default_ip"):
        qd.init(default_up=qd.u64)


@pytest.mark.parametrize("kwargs, message", [
    ({"debug": "yes"}, "qd.init(debug=...) expects a bool, but got 'yes' (str)."),
    ({"random_seed": 1.5}, "qd.init(random_seed=...) expects a int, but got 1.5 (float)."),
    ({"device_memory_GB": "4"}, "qd.init(device_memory_GB=...) expects a float, but got '4' (str)."),
])
def test_a_value_of_the_wrong_type_names_the_option_and_the_type(kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        qd.init(**kwargs)


def test_default_dtypes_must_be_float_and_int_types():
    with pytest.raises(ValueError, match=r"default_fp=...\) expects one of qd.f16, qd.f32, qd.f64, but got qd.i32"):
        qd.init(default_fp=qd.i32)
    with pytest.raises(ValueError, match=r"qd.init\(default_ip=...\) expects one of qd.i32, qd.i64, but got qd.u8"):
        qd.init(default_ip=qd.u8)
    with pytest.raises(ValueError, match=r"default_fp=...\) expects one of .*, but got 'decimal'"):
        qd.init(default_fp="decimal")


# --- applied options --------------------------------------------------------------------------------
def test_cfg_reports_the_disk_cache_cap_in_force(monkeypatch):
    monkeypatch.delenv("QD_CACHE_MAX_MB", raising=False)
    qd.init(arch=qd.cpu)
    assert qd.cfg.offline_cache_max_size_of_files == _core.cache_limit_bytes() == 1024 * 1024 * 1024
    assert (qd.cfg.offline_cache_cleaning_policy, qd.cfg.offline_cache_cleaning_factor) == ("lru", 0.25)
    qd.init(arch=qd.cpu, offline_cache_max_size_of_files=5 * 2**20, offline_cache_cleaning_factor=0.5)
    assert qd.cfg.offline_cache_max_size_of_files == _core.cache_limit_bytes() == 5 * 2**20
    assert qd.cfg.offline_cache_cleaning_factor == 0.5
    init_warnings(offline_cache_cleaning_policy="version")  # the libraries' cap acts as 'lru' (a warning says so)
    assert qd.cfg.offline_cache_cleaning_policy == "lru"
    assert qd.cfg.offline_cache_max_size_of_files == 1024 * 1024 * 1024
    monkeypatch.setenv("QD_CACHE_MAX_MB", "3")
    qd.init(arch=qd.cpu)
    assert qd.cfg.offline_cache_max_size_of_files == 3 * 2**20


def test_check_out_of_bound_alone_checks_kernel_indices_while_debug_stays_off():
    qd.init(arch=qd.cpu, check_out_of_bound=True)
    assert (qd.cfg.debug, qd.cfg.check_out_of_bound) == (False, True)
    with pytest.raises(IndexError, match=r"index \(3,\) is out of bounds for 'data' of shape \(3,\)"):
        write_at(np.zeros(3, np.int32), 3)


def test_debug_implies_check_out_of_bound_as_upstream():
    qd.init(arch=qd.cpu, debug=True)
    assert (qd.cfg.debug, qd.cfg.check_out_of_bound) == (True, True)
    assert impl.current_cfg().debug is True


def test_without_checks_an_in_bounds_kernel_runs():
    qd.init(arch=qd.cpu)
    assert qd.cfg.check_out_of_bound is False
    data = np.zeros(3, np.int32)
    write_at(data, 2)
    assert data.tolist() == [0, 0, 1]


def test_random_seed_is_recorded_for_the_generator():
    qd.init(arch=qd.cpu, random_seed=1234)
    assert _runtime.config().random_seed == 1234 and qd.cfg.random_seed == 1234


def test_cpu_max_num_threads_sizes_the_pool_and_is_reported():
    qd.init(arch=qd.cpu, cpu_max_num_threads=2)
    assert _core.num_threads() == 2 and qd.cfg.cpu_max_num_threads == 2
    qd.init(arch=qd.cpu)
    assert qd.cfg.cpu_max_num_threads == _core.num_threads() >= 1


def test_fast_math_is_off_unless_asked_for():
    qd.init(arch=qd.cpu)
    assert _runtime.config().fast_math is False
    qd.init(arch=qd.cpu, fast_math=True)
    assert _runtime.config().fast_math is True and qd.cfg.fast_math is True


def test_log_level_sets_the_quadrants_logger():
    qd.init(arch=qd.cpu, log_level=qd.ERROR)
    assert not qd.is_logging_effective("warn") and qd.is_logging_effective("error")
    qd.init(arch=qd.cpu, log_level="TRACE")  # upstream lower-cases it
    assert qd.is_logging_effective("trace")
    with pytest.raises(ValueError, match=r"qd.set_logging_level\(\) expects one of 'debug', .*, but got 'loud'"):
        qd.init(arch=qd.cpu, log_level="loud")


def test_print_ir_prints_each_compiled_kernels_ir_until_turned_off(monkeypatch, capfd):
    monkeypatch.delenv("QD_DUMP_IR", raising=False)
    qd.init(arch=qd.cpu, print_ir=True)
    assert qd.lang.impl.current_cfg().print_ir is True

    @qd.kernel
    def shown(x: qd.types.ndarray()):
        for i in x:
            x[i] += 1

    shown(np.zeros(3, np.float32))
    out = capfd.readouterr().out  # stdout, as upstream's
    assert "// IR after" in out and "(kernel shown" in out
    qd.init(arch=qd.cpu)
    assert qd.lang.impl.current_cfg().print_ir is False

    @qd.kernel
    def hidden(x: qd.types.ndarray()):
        for i in x:
            x[i] += 2

    hidden(np.zeros(3, np.float32))
    captured = capfd.readouterr()
    assert "(kernel hidden" not in captured.out + captured.err


def test_require_version_is_checked_against_the_upstream_api_level():
    qd.init(arch=qd.cpu, require_version="1.3.0")
    qd.init(arch=qd.cpu, require_version="1.3.3.post1")
    with pytest.raises(RuntimeError, match=r"require_version='1.4.0'\): quadrants provides the API of Quadrants 1.3.3"):
        qd.init(arch=qd.cpu, require_version="1.4.0")
    with pytest.raises(RuntimeError, match="2.0"):
        qd.init(arch=qd.cpu, require_version="2.0")
    with pytest.raises(ValueError, match=r"expects 'major.minor\[.patch\]', but got 'latest'"):
        qd.init(arch=qd.cpu, require_version="latest")


# --- environment variables --------------------------------------------------------------------------
def test_options_come_from_qd_environment_variables_when_not_given(monkeypatch):
    monkeypatch.setenv("QD_DEBUG", "1")
    monkeypatch.setenv("QD_RANDOM_SEED", "7")
    monkeypatch.setenv("QD_DEFAULT_FP", "64")
    qd.init(arch=qd.cpu)
    assert (qd.cfg.debug, qd.cfg.random_seed, qd.cfg.default_fp) == (True, 7, qd.f64)
    qd.init(arch=qd.cpu, debug=False)  # a keyword wins over the environment
    assert qd.cfg.debug is False


@pytest.mark.parametrize("variable, value, message", [
    ("QD_DEBUG", "yes", "Environment variable QD_DEBUG='yes' must be 0 or 1 for qd.init(debug=...)."),
    ("QD_DEFAULT_IP", "16", "Environment variable QD_DEFAULT_IP='16' must be 32 or 64."),
    ("QD_ARCH", "tpu", "QD_ARCH='tpu' names no architecture; expected one of "),
])
def test_a_bad_environment_variable_names_itself(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=re.escape(message)):
        qd.init(arch=qd.cpu)


# --- architectures ----------------------------------------------------------------------------------
@pytest.mark.cpu_only
@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="the host CPU is not x86-64")
def test_the_host_cpu_name_is_qd_cpu():
    assert qd.x64 is qd.cpu and qd.x86_64 is qd.cpu and qd.arm64 is not qd.cpu
    qd.init(arch=qd.x64)
    assert qd.cfg.arch is qd.cpu


@pytest.mark.cpu_only
@pytest.mark.parametrize("name", ["vulkan", "metal", "amdgpu"])  # qd.python: test_python_backend.py
def test_a_backend_quadrants_lacks_falls_back_to_the_cpu_with_one_warning(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.init(arch=getattr(qd, name))
    assert [str(w.message) for w in caught] == [f"qd.{name}: quadrants has no {name} backend, falling back to qd.cpu."]
    assert caught[0].category is RuntimeWarning and caught[0].filename == __file__
    assert qd.cfg.arch is qd.cpu


def test_without_fallback_a_missing_backend_is_a_runtime_error():
    with pytest.raises(RuntimeError, match=r"\(arch=qd.vulkan, enable_fallback=False\): qd.vulkan is not available"):
        qd.init(arch=qd.vulkan, enable_fallback=False)
    qd.init(arch=qd.cpu, enable_fallback=False)


@pytest.mark.cpu_only
def test_an_arch_list_picks_its_first_available_entry():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qd.init(arch=[qd.vulkan, qd.cpu])
    assert qd.cfg.arch is qd.cpu


@pytest.mark.cpu_only
def test_qd_arch_overrides_the_argument(monkeypatch):
    monkeypatch.setenv("QD_ARCH", "metal")
    with pytest.warns(RuntimeWarning, match="qd.metal: quadrants has no metal backend"):
        qd.init(arch=qd.cpu)


# --- qd.cfg -----------------------------------------------------------------------------------------
def test_cfg_is_none_before_init_and_names_only_known_options_after():
    qd.reset()
    assert qd.cfg is None
    qd.init(arch=qd.cpu, default_ip=qd.i64)
    assert (qd.cfg.default_ip, qd.cfg.default_up) == (qd.i64, qd.u64)
    assert qd.cfg is impl.current_cfg() is impl.get_runtime().prog.config()
    with pytest.raises(AttributeError, match="qd.cfg has no option 'no_such_option'"):
        qd.cfg.no_such_option
    with pytest.raises(AttributeError, match="qd.cfg has no option 'fast_maths', so it cannot be set. Did you mean "
                                             "'fast_math'?"):
        qd.cfg.fast_maths = True  # writes: tests/python/test_cfg_writes.py


def test_compiles_are_logged_with_their_time_at_debug_level(caplog):
    qd.init(arch=qd.cpu, log_level=qd.DEBUG)
    try:
        @qd.kernel
        def logged_compile(a: qd.types.ndarray()):
            for i in range(a.shape[0]):
                a[i] += 1

        with caplog.at_level(logging.DEBUG, logger="quadrants"):
            logged_compile(np.zeros(3, np.float32))
        assert re.search(r"kernel .logged_compile.: compiled for (cpu|cuda) in [0-9.]+ ms", caplog.text)
    finally:
        qd.set_logging_level(qd.INFO)
