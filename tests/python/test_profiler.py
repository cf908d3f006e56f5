# tests/python/test_profiler.py: qd.init(kernel_profiler=True) and qd.profiler's upstream API.
import time

import numpy as np
import pytest

import quadrants as qd


def _kernels():
    @qd.kernel
    def busy(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            x = a[i]
            for _ in range(200):
                x = qd.sin(x) + 1.0
            a[i] = x

    @qd.kernel
    def quick(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 1.0

    return busy, quick


def test_launches_are_counted_and_timed_per_kernel(capsys):
    qd.init(arch=qd.cpu, kernel_profiler=True)
    busy, quick = _kernels()
    a = np.zeros(20000, np.float32)
    start = time.perf_counter()
    for _ in range(3):
        busy(a)
    quick(a)
    wall = time.perf_counter() - start
    info = qd.profiler.query_kernel_profiler_info("busy")
    assert info.counter == 3 and 0 < info.min <= info.avg <= info.max
    assert qd.profiler.query_kernel_profiler_info("quick").counter == 1
    assert qd.profiler.query_kernel_profiler_info("never_ran").counter == 0
    total = qd.profiler.get_kernel_profiler_total_time()
    assert 0 < total <= wall  # seconds; the kernels ran inside the measured wall time
    assert total == pytest.approx((info.avg * 3 + qd.profiler.query_kernel_profiler_info("quick").avg) / 1000)
    qd.profiler.print_kernel_profiler_info()
    out = capsys.readouterr().out
    assert "3x" in out and "busy" in out and "quick" in out and "Total execution time" in out
    qd.profiler.clear_kernel_profiler_info()
    assert qd.profiler.get_kernel_profiler_total_time() == 0.0


def test_profiler_is_off_by_default_and_says_so():
    qd.init(arch=qd.cpu)
    _, quick = _kernels()
    quick(np.zeros(4, np.float32))
    with pytest.warns(RuntimeWarning, match=r"qd.init\(kernel_profiler=True\)"):
        assert qd.profiler.get_kernel_profiler_total_time() == 0.0


def test_reinit_starts_a_fresh_table():
    qd.init(arch=qd.cpu, kernel_profiler=True)
    _, quick = _kernels()
    quick(np.zeros(4, np.float32))
    qd.init(arch=qd.cpu, kernel_profiler=True)
    assert qd.profiler.query_kernel_profiler_info("quick").counter == 0


def test_cuda_launches_are_timed_too():
    qd.init(arch=qd.cpu, kernel_profiler=True)  # QD_TEST_ARCH=cuda runs this on CUDA
    _, quick = _kernels()
    x = qd.ndarray(qd.f32, shape=1000)
    for _ in range(4):
        quick(x)
    info = qd.profiler.query_kernel_profiler_info("quick")
    assert info.counter == 4 and info.min > 0
    assert x.to_numpy()[0] == 4.0
