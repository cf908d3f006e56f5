# tests/python/test_review_regressions.py: regressions for bugs found by reviewing the runtime and bindings.
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core


@pytest.fixture(autouse=True)
def cpu_runtime():
    qd.init(arch=qd.cpu)


def test_each_variant_keeps_the_fields_it_was_compiled_with():
    old = qd.field(qd.f32, 4)

    @qd.kernel
    def k(a: qd.types.ndarray()):
        for i in range(4):
            field_x[i] = a[0]

    globals()["field_x"] = old
    k(np.full(1, 2.0, np.float32))
    new = qd.field(qd.f64, 4)
    globals()["field_x"] = new
    k(np.full(1, 3.0, np.float64))  # a new variant: it captures the new f64 field
    k(np.full(1, 5.0, np.float32))  # the old variant still writes the old f32 field, never the f64 one
    assert old.to_numpy().tolist() == [5.0] * 4
    assert new.to_numpy().tolist() == [3.0] * 4


def test_reset_while_a_kernel_runs_in_another_thread_waits_for_it():
    script = textwrap.dedent("""
        import threading, time
        import numpy as np
        import quadrants as qd
        qd.init(arch=qd.cpu)

        @qd.kernel
        def slow(x: qd.types.ndarray()) -> None:
            for i in range(x.shape[0]):
                v = 0.0
                for k in range(2000):
                    v += qd.sin(v + k)
                x[i] = v

        a = qd.ndarray(qd.f32, 4000)
        t = threading.Thread(target=slow, args=(a,))
        t.start()
        time.sleep(0.05)
        qd.reset()          # frees `a` and drops the compiled kernel: must wait for the launch
        qd.init(arch=qd.cpu, cpu_max_num_threads=1)  # and resizing the pool too
        t.join()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.cpu_only
def test_copies_between_overlapping_views_read_before_writing():
    x = qd.ndarray(qd.i64, 6)
    x.from_numpy(np.arange(6))
    x.from_numpy(np.from_dlpack(x)[::-1])
    assert x.to_numpy().tolist() == [5, 4, 3, 2, 1, 0]
    y = qd.ndarray(qd.f32, 6)
    y.from_numpy(np.arange(6, dtype=np.float32))
    y.from_numpy(np.from_dlpack(y)[::-1].astype(np.float64, copy=False))
    assert y.to_numpy().tolist() == [5, 4, 3, 2, 1, 0]


def test_u64_return_values_are_unsigned():
    @qd.kernel
    def biggest() -> qd.u64:
        return qd.u64(0) - qd.u64(1)

    assert biggest() == 2**64 - 1


def test_integers_beyond_int64_are_a_value_error():
    @qd.kernel
    def take(out: qd.types.ndarray(), v: qd.i32) -> None:
        out[0] = v

    with pytest.raises(ValueError, match=r"argument 'v': 9223372036854775808 does not fit in i32"):
        take(np.zeros(1, np.int32), 2**63)


def test_arrays_too_large_to_address_are_refused():
    # A field's storage is sized in C++, which refuses a byte count past 64 bits; an ndarray's extents stop at
    # 2**31 - 1 before that, as upstream's do.
    with pytest.raises(ValueError, match=r"shape \(4294967296, 4294967296\) and dtype f32 is too large"):
        qd.field(qd.f32, (2**32, 2**32)).fill(0)
    with pytest.raises(ValueError, match=r"extent over 2\*\*31 - 1"):
        qd.ndarray(qd.f32, (2**32, 2**32))


def test_fake_mode_is_per_thread():
    @qd.kernel
    def inc(x: qd.types.ndarray()) -> None:
        for i in range(x.shape[0]):
            x[i] += 1

    x = np.zeros(3, np.float32)
    inc(x)
    _core.enter_fake_mode()
    try:
        worker = threading.Thread(target=inc, args=(x,))
        worker.start()
        worker.join()
        inc(x)  # skipped: this thread is tracing
    finally:
        _core.exit_fake_mode()
    assert x.tolist() == [2.0] * 3


def test_implicit_float_vector_dtype_follows_a_later_init():
    @qd.kernel
    def scale(v: qd.types.ndarray(dtype=qd.types.vector(3), ndim=1)) -> None:
        for i in range(v.shape[0]):
            v[i] = v[i] * 2

    qd.init(arch=qd.cpu, default_fp=qd.f64)
    v = qd.Vector.ndarray(3, float, 2)
    v.fill(1.5)
    scale(v)
    assert v.dtype is qd.f64 and v.to_numpy().tolist() == [[3.0] * 3] * 2


def test_integer_powers_wrap_like_numpy_when_they_overflow():
    @qd.kernel
    def truthy_power(v: qd.i64) -> qd.i32:
        return v and (v ** v)  # 32 ** 32 wraps to 0 in 64 bits, so the `and` is 0

    @qd.kernel
    def power32(b: qd.i32, e: qd.i32) -> qd.i32:
        return b ** e

    assert truthy_power(32) == 0
    assert power32(3, 21) == int(np.array([3], np.int32)[0] ** np.int32(21))
    assert power32(-7, 13) == int(np.power(np.int32(-7), np.int32(13)))
