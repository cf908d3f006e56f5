# tests/python/test_runtime_lifecycle.py: qd.init / qd.reset, architectures, dtypes, use-after-reset and leaks.
import gc
import os
import warnings

import numpy as np
import pytest
import torch

import quadrants as qd
from quadrants.runtime import init as _runtime


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _has_cuda_device():
    return _runtime._cuda_device_count() > 0


# --- qd.init ---------------------------------------------------------------------------------------
@pytest.mark.cpu_only
def test_init_defaults_match_quadrants():
    qd.init()
    config = _runtime.config()
    assert config.arch is qd.cpu
    assert config.default_fp is qd.f32
    assert config.default_ip is qd.i32
    assert config.debug is False


def test_init_records_its_arguments():
    qd.init(arch=qd.cpu, default_fp=qd.f64, default_ip=qd.i64, debug=True, cpu_max_num_threads=3)
    config = _runtime.config()
    assert (config.default_fp, config.default_ip, config.debug, config.cpu_max_num_threads) == (qd.f64, qd.i64, True, 3)


def test_arch_objects_are_distinct_and_named():
    assert len({id(qd.cpu), id(qd.cuda), id(qd.gpu)}) == 3
    assert (repr(qd.cpu), repr(qd.cuda), repr(qd.gpu)) == ("qd.cpu", "qd.cuda", "qd.gpu")


@pytest.mark.skipif(_has_cuda_device(), reason="qd.gpu only falls back when there is no CUDA device")
def test_gpu_falls_back_to_cpu_with_one_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qd.init(arch=qd.gpu)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    assert "\n" not in messages[0] and "falling back to qd.cpu" in messages[0]
    assert _runtime.config().arch is qd.cpu
    # Containers work normally after the fallback.
    f = qd.field(qd.f32, shape=2)
    f.fill(1.5)
    assert f.to_numpy().tolist() == [1.5, 1.5]


@pytest.mark.skipif(_has_cuda_device(), reason="the message names the missing CUDA device")
def test_cuda_without_a_device_falls_back_to_the_cpu_with_a_warning():
    # As upstream: enable_fallback (on by default) runs a program written for CUDA on the CPU.
    with pytest.warns(RuntimeWarning, match=r"qd.init\(arch=qd.cuda\): CUDA is not usable here \(.+\), falling back "
                      r"to qd.cpu; pass enable_fallback=False"):
        qd.init(arch=qd.cuda)
    assert _runtime.config().arch is qd.cpu
    f = qd.field(qd.f32, shape=2)
    f.fill(2.5)
    assert f.to_numpy().tolist() == [2.5, 2.5]


@pytest.mark.skipif(_has_cuda_device(), reason="the message names the missing CUDA device")
def test_cuda_without_a_device_and_without_fallback_is_a_clear_runtime_error():
    with pytest.raises(RuntimeError, match=r"qd.init\(arch=qd.cuda, enable_fallback=False\): CUDA is not usable "
                       r"here: .+ Use qd.cpu"):
        qd.init(arch=qd.cuda, enable_fallback=False)


def test_unknown_arch_is_a_value_error():
    with pytest.raises(ValueError, match=r"expects qd.cpu, qd.cuda, qd.gpu or qd.python, but got 'vulkan'"):
        qd.init(arch="vulkan")


def test_negative_thread_count_is_a_value_error():
    with pytest.raises(ValueError, match=r"cpu_max_num_threads=.*got -1"):
        qd.init(cpu_max_num_threads=-1)


def test_unknown_init_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unexpected keyword argument.*bogus_option"):
        qd.init(bogus_option=1)


def test_quadrants_only_init_options_are_accepted():
    qd.init(arch=qd.cpu, offline_cache=False, log_level="warn", random_seed=1, kernel_profiler=False)


@pytest.mark.cpu_only
def test_containers_initialize_the_runtime_when_init_was_not_called():
    qd.reset()
    f = qd.field(qd.i32, shape=3)
    assert _runtime.config().arch is qd.cpu
    assert f.to_numpy().tolist() == [0, 0, 0]


# --- dtypes ----------------------------------------------------------------------------------------
DTYPES = [
    (qd.u1, np.bool_, torch.bool),
    (qd.i8, np.int8, torch.int8),
    (qd.i16, np.int16, torch.int16),
    (qd.i32, np.int32, torch.int32),
    (qd.i64, np.int64, torch.int64),
    (qd.u8, np.uint8, torch.uint8),
    (qd.u16, np.uint16, torch.uint16),
    (qd.u32, np.uint32, torch.uint32),
    (qd.u64, np.uint64, torch.uint64),
    (qd.f16, np.float16, torch.float16),
    (qd.f32, np.float32, torch.float32),
    (qd.f64, np.float64, torch.float64),
]


@pytest.mark.parametrize("dtype, numpy_dtype, torch_dtype", DTYPES, ids=[d[0].name for d in DTYPES])
def test_dtype_names_and_library_equivalents(dtype, numpy_dtype, torch_dtype):
    assert repr(dtype) == f"qd.{dtype.name}"
    assert dtype.numpy == np.dtype(numpy_dtype)
    assert dtype.torch is torch_dtype
    # Containers accept the dtype object, its name, the numpy dtype and the torch dtype alike.
    for spelling in (dtype, dtype.name, numpy_dtype, torch_dtype):
        assert qd.ndarray(spelling, shape=2).dtype is dtype


def test_calling_a_dtype_in_python_scope_points_to_numpy():
    with pytest.raises(RuntimeError, match=r"qd.f32\(x\) casts a value inside a @qd.kernel.*np.float32"):
        qd.f32(1.0)


def test_unsupported_dtype_lists_the_supported_ones():
    with pytest.raises(TypeError, match=r"Unsupported dtype .*complex64.*u1, i8, i16.*f64"):
        qd.field(np.complex64, shape=3)


def test_python_float_and_int_dtypes_follow_init_defaults():
    qd.init(arch=qd.cpu)
    assert qd.field(float, shape=2).dtype is qd.f32
    assert qd.field(int, shape=2).dtype is qd.i32
    qd.init(arch=qd.cpu, default_fp=qd.f64, default_ip=qd.i64)
    assert qd.field(float, shape=2).dtype is qd.f64


# --- qd.reset --------------------------------------------------------------------------------------
def _containers():
    return {
        "field": qd.field(qd.f32, shape=(2, 3)),
        "vector field": qd.Vector.field(3, qd.f32, shape=(2,)),
        "matrix field": qd.Matrix.field(2, 2, qd.i32, shape=(2,)),
        "ndarray": qd.ndarray(qd.f32, shape=(2, 3)),
        "vector ndarray": qd.Vector.ndarray(2, qd.f64, shape=(4,)),
    }


# A reset ndarray's shape is None, as upstream's, so the indices are made from the shape it had (_shape).
USES_AFTER_RESET = {
    "read": lambda x: x[(0,) * len(x._shape)],
    "write": lambda x: x.__setitem__((0,) * len(x._shape), np.ones(x._element_shape).tolist() or 1),
    "fill": lambda x: x.fill(2),
    "to_numpy": lambda x: x.to_numpy(),
    "from_numpy": lambda x: x.from_numpy(np.zeros(x._numpy_shape, x.dtype.numpy)),
    "to_torch": lambda x: x.to_torch(),
    "from_torch": lambda x: x.from_torch(torch.zeros(x._numpy_shape, dtype=x.dtype.torch)),
    "dlpack": lambda x: x.__dlpack__(),
    "dlpack_versioned": lambda x: x.__dlpack__(max_version=(1, 0)),
    "torch.from_dlpack": lambda x: torch.from_dlpack(x),
    "dlpack_device": lambda x: x.__dlpack_device__(),
}


@pytest.mark.parametrize("use", sorted(USES_AFTER_RESET))
def test_every_use_after_reset_is_a_runtime_error(use):
    containers = _containers()
    qd.reset()
    for name, container in containers.items():
        with pytest.raises(RuntimeError, match=r"freed by qd.reset\(\).*qd.init\(\)"):
            USES_AFTER_RESET[use](container)


def test_copy_from_a_reset_container_is_a_runtime_error():
    old = qd.ndarray(qd.f32, shape=3)
    qd.reset()
    new = qd.ndarray(qd.f32, shape=3)
    with pytest.raises(RuntimeError, match="freed by qd.reset"):
        new.copy_from(old)
    with pytest.raises(RuntimeError, match="freed by qd.reset"):
        old.copy_from(new)


def test_init_again_releases_earlier_containers():
    f = qd.field(qd.f32, shape=3)
    qd.init(arch=qd.cpu)
    with pytest.raises(RuntimeError, match="freed by qd.reset"):
        f.to_numpy()
    assert qd.field(qd.f32, shape=3).to_numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.cpu_only
def test_dlpack_consumers_keep_the_memory_alive_across_reset():
    a = qd.ndarray(qd.f32, shape=4)
    a.fill(2.5)
    alias = torch.from_dlpack(a)
    numpy_alias = np.from_dlpack(a)
    qd.reset()
    gc.collect()
    assert alias.tolist() == [2.5] * 4
    alias[0] = 1.0
    assert numpy_alias.tolist() == [1.0, 2.5, 2.5, 2.5]


def test_reset_twice_is_harmless():
    qd.reset()
    qd.reset()
    assert qd.ndarray(qd.i8, shape=1).to_numpy().tolist() == [0]


# --- leaks -----------------------------------------------------------------------------------------
def _rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _rss_growth(churn, rounds):
    churn(rounds // 10)  # warm the allocator and Python's caches before the baseline
    gc.collect()
    baseline = _rss_bytes()
    churn(rounds)
    gc.collect()
    return _rss_bytes() - baseline


# Each iteration allocates 4 KiB of array memory, so a leak of even one buffer per iteration adds
# about 40 MiB over 10,000 rounds; allocator noise stays well under the 8 MiB tolerance.
LEAK_TOLERANCE = 8 << 20


def test_creating_and_dropping_ndarrays_does_not_leak():
    def churn(rounds):
        for i in range(rounds):
            a = qd.ndarray(qd.f32, shape=(1024,))
            a[i % 1024] = 1.0
            v = qd.Vector.ndarray(4, qd.f32, shape=(256,))
            del a, v

    assert _rss_growth(churn, 10_000) < LEAK_TOLERANCE


@pytest.mark.cpu_only
def test_exporting_dlpack_capsules_does_not_leak():
    def churn(rounds):
        for i in range(rounds):
            a = qd.ndarray(qd.f32, shape=(1024,))
            unconsumed = a.__dlpack__(max_version=(1, 0)) if i % 2 else a.__dlpack__()
            consumed = np.from_dlpack(a) if i % 2 else torch.from_dlpack(a)
            del a, unconsumed, consumed

    assert _rss_growth(churn, 10_000) < LEAK_TOLERANCE


def test_importing_dlpack_producers_does_not_leak():
    def churn(rounds):
        for _ in range(rounds):
            wrapped = qd.from_dlpack(np.empty(1024, np.float32))
            del wrapped

    assert _rss_growth(churn, 10_000) < LEAK_TOLERANCE


def test_sync_returns_after_cpu_kernels():
    qd.init(arch=qd.cpu)
    f = qd.field(qd.i32, shape=3)
    f.fill(2)
    qd.sync()  # CPU kernels and copies are synchronous: a no-op that must not fail
    assert f.to_numpy().tolist() == [2, 2, 2]
