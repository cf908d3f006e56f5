# tests/python/test_clock_counter.py: qd.clock_counter(), the cycle counter read inside kernels (IR `(clock_counter)`).
"""Each read gives the counter at that moment: reads later in a serialized loop are larger, two reads with work
between them differ (no pass merges or hoists them), and on CUDA the ticks of a timed loop agree in magnitude with
qd.clock_freq_hz()."""
import os
import time

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _on_cuda():
    return qd.lang.impl.current_cfg().arch == qd.cuda  # QD_TEST_ARCH=cuda runs the suite on CUDA


def test_reads_increase_along_a_serialized_loop():
    stamps = qd.field(qd.i64, shape=16)

    @qd.kernel
    def stamp():
        qd.loop_config(serialize=True)
        for i in range(16):
            x = 1.0
            for j in range(200 * (i + 1)):
                x = qd.sin(x) + 1.0
            if x < 10.0:  # always: the read waits for the loop's result
                stamps[i] = qd.clock_counter()

    stamp()
    values = stamps.to_numpy()
    assert (values > 0).all()
    assert (np.diff(values) > 0).all(), values


def test_two_reads_around_work_are_not_merged():
    @qd.kernel
    def elapsed(n: qd.i32) -> qd.i64:
        start = qd.clock_counter()
        x = 1.0
        qd.loop_config(serialize=True)  # a top-level loop is parallel otherwise: x would be raced on
        for j in range(n):
            x = qd.sin(x) + 1.0
        end = qd.i64(0)
        if x < 10.0:  # always; the branch orders the read after the loop (a compiler may move work past a read
            end = qd.clock_counter()  # that does not depend on it, as with upstream's readcyclecounter)
        return end - start

    short, long = elapsed(10), elapsed(200000)
    assert 0 < short < long


def test_a_read_inside_a_loop_is_not_hoisted():
    out = qd.field(qd.i64, shape=())

    @qd.kernel
    def distinct_reads() -> qd.i32:
        previous = qd.clock_counter()
        increases = 0
        qd.loop_config(serialize=True)
        for j in range(1000):
            x = 1.0
            for k in range(50):
                x = qd.sin(x) + 1.0
            if x < 10.0:  # always: the read waits for the work
                now = qd.clock_counter()
                if now > previous:
                    increases += 1
                previous = now
        out[None] = previous
        return increases

    assert distinct_reads() == 1000


def test_the_counter_is_an_i64_and_takes_no_arguments():
    @qd.kernel
    def read() -> qd.i64:
        return qd.clock_counter()

    assert isinstance(read(), int) and read() > 0

    @qd.kernel
    def bad() -> qd.i64:
        return qd.clock_counter(1)

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.clock_counter\(\) takes no arguments, but got 1"):
        bad()
    with pytest.raises(RuntimeError):
        qd.clock_counter()  # kernels only


def test_cuda_ticks_follow_the_nominal_clock():
    if not _on_cuda():
        with pytest.raises(NotImplementedError, match="clock_freq_hz not implemented for arch"):
            qd.clock_freq_hz()
        return
    if "emulated" in os.environ.get("QD_CUDA_DRIVER_PATH", ""):
        pytest.skip("needs a real CUDA GPU: the driver emulation counts host ticks against a made-up clock rate")

    @qd.kernel
    def ticks(n: qd.i32) -> qd.i64:
        start = qd.clock_counter()
        x = 1.0
        qd.loop_config(serialize=True)  # a top-level loop is parallel otherwise: x would be raced on
        for j in range(n):
            x = qd.sin(x) + 1.0
        end = qd.i64(0)
        if x < 10.0:
            end = qd.clock_counter()
        return end - start

    ticks(10)  # compile
    qd.sync()
    begin = time.perf_counter()
    counted = ticks(2_000_000)
    qd.sync()
    seconds = time.perf_counter() - begin
    # The SM clock boosts above and idles below the nominal rate, and the wall time includes the launch; the
    # ticks still come to the same order of magnitude as nominal Hz x seconds.
    assert 0.05 < counted / (qd.clock_freq_hz() * seconds) < 5.0
