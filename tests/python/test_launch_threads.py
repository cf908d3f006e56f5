# tests/python/test_launch_threads.py: the launch thread pool: thread counts, exact reductions, concurrent calls.
import os
import threading
import time

import numpy as np
import pytest

import quadrants as qd
import quadrants.runtime._core as core

N = 1 << 20


@pytest.fixture(autouse=True)
def cpu(monkeypatch):
    monkeypatch.delenv("QD_NUM_THREADS", raising=False)
    qd.init(arch=qd.cpu)
    yield
    qd.init(arch=qd.cpu)  # back to the default pool for the files that follow


@qd.kernel
def wave(out: qd.types.ndarray(ndim=1)):
    for i in out:
        x = qd.cast(i, qd.f64) * 0.001
        out[i] = qd.sin(x) * qd.exp(-x * 0.01) + i % 7


@qd.kernel
def atomic_total(x: qd.types.ndarray(ndim=1), total: qd.types.ndarray(ndim=1)):
    for i in x:
        qd.atomic_add(total[0], x[i])


@qd.kernel
def augmented_total(x: qd.types.ndarray(ndim=1), total: qd.types.ndarray(ndim=1)):
    for i in x:
        total[0] += x[i]


@qd.kernel
def scaled_copy(src: qd.types.ndarray(ndim=1), dst: qd.types.ndarray(ndim=1), factor: qd.i64):
    for i in src:
        dst[i] = src[i] * factor


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_num_threads_reflects_the_setting(threads):
    qd.init(arch=qd.cpu, cpu_max_num_threads=threads)
    assert core.num_threads() == threads


def test_num_threads_defaults_to_every_core_and_follows_the_environment(monkeypatch):
    assert core.num_threads() == os.cpu_count()
    monkeypatch.setenv("QD_NUM_THREADS", "1")
    qd.init(arch=qd.cpu)
    assert core.num_threads() == 1


def test_one_and_two_threads_give_identical_results():
    results = []
    for threads in (1, 2):
        qd.init(arch=qd.cpu, cpu_max_num_threads=threads)
        out = np.zeros(N, dtype=np.float64)
        wave(out)
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])
    i = np.arange(N, dtype=np.float64)
    np.testing.assert_allclose(results[0], np.sin(i * 0.001) * np.exp(-i * 0.001 * 0.01) + i % 7, rtol=1e-12)


@pytest.mark.parametrize("kernel", [atomic_total, augmented_total], ids=["atomic_add", "augmented_assignment"])
@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_integer_reductions_over_a_million_elements_are_exact(kernel, threads):
    qd.init(arch=qd.cpu, cpu_max_num_threads=threads)
    x = np.random.default_rng(3).integers(-1000, 1000, size=1_000_000, dtype=np.int64)
    x[::1000] = 2**40  # partial sums beyond 32 bits
    total = np.zeros(1, dtype=np.int64)
    kernel(x, total)
    assert total[0] == int(x.sum())
    count = np.zeros(1, dtype=np.int32)
    kernel(np.ones(1_000_000, dtype=np.int32), count)
    assert count[0] == 1_000_000


def test_concurrent_calls_from_two_python_threads():
    qd.init(arch=qd.cpu, cpu_max_num_threads=2)
    src = np.arange(100_000, dtype=np.int64)
    scaled_copy(src, np.zeros_like(src), 1)  # compile once before the threads race
    atomic_total(src, np.zeros(1, dtype=np.int64))
    barrier = threading.Barrier(2)
    failures = []

    def worker(factor):
        barrier.wait()
        for _ in range(20):
            dst = np.zeros_like(src)
            scaled_copy(src, dst, factor)
            total = np.zeros(1, dtype=np.int64)
            atomic_total(dst, total)
            if not np.array_equal(dst, src * factor) or total[0] != factor * int(src.sum()):
                failures.append(factor)

    threads = [threading.Thread(target=worker, args=(factor,)) for factor in (3, -5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_two_python_threads_compiling_new_specializations_at_once():
    barrier = threading.Barrier(2)
    results = {}

    def worker(dtype):
        src = np.arange(1000, dtype=dtype)
        dst = np.zeros_like(src)
        barrier.wait()
        scaled_copy(src, dst, 2)
        results[np.dtype(dtype).name] = dst

    threads = [threading.Thread(target=worker, args=(dtype,)) for dtype in (np.int16, np.float32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["float32", "int16"]
    for name, dst in results.items():
        np.testing.assert_array_equal(dst, np.arange(1000, dtype=name) * 2)


@qd.kernel
def spin(out: qd.types.ndarray(ndim=1), rounds: qd.i32):
    for i in out:
        acc = qd.f64(0.0)
        for k in range(rounds):
            acc += qd.sin(acc + k * 1e-3)
        out[i] = acc


def test_a_long_kernel_after_short_ones_lets_other_python_threads_run():
    # A specialization whose last run was short keeps the GIL (src/launch/specialization.h); once a run is
    # long, the next run releases it, so another Python thread makes progress while the kernel computes.
    out = np.zeros(64)
    for _ in range(3):
        spin(out, 1)
    rounds = 20_000
    start = time.perf_counter()
    spin(out, rounds)  # the one long run that may hold the GIL
    while time.perf_counter() - start < 0.2:  # aim for a run of about 0.2 s or more
        rounds *= 2
        start = time.perf_counter()
        spin(out, rounds)
    ticks, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    time.sleep(0.02)
    begin = time.perf_counter()
    spin(out, rounds)
    end = time.perf_counter()
    stop.set()
    thread.join()
    middle = [t for t in ticks if begin + 0.25 * (end - begin) < t < begin + 0.75 * (end - begin)]
    assert middle, f"no other thread ran during the middle half of a {end - begin:.3f} s kernel run"
