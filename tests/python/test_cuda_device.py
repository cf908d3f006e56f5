# tests/python/test_cuda_device.py: the CUDA backend without torch or CuPy: faults, fallbacks, threads, staging, exports.
"""Runs wherever CUDA is usable: on a GPU, or here on the driver emulation (tests/cuda_emulator/, which
scripts/run_tests.sh selects with QD_CUDA_DRIVER_PATH and QD_NVRTC_PATH); skips otherwise."""

import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

pytestmark = pytest.mark.skipif(_core.cuda_status() != "", reason=f"CUDA is not usable: {_core.cuda_status()}")
EMULATED = "emulated" in os.environ.get("QD_CUDA_DRIVER_PATH", "")


@pytest.fixture(autouse=True)
def cuda_runtime():
    qd.init(arch=qd.cuda)
    yield
    qd.reset()


def run_script(folder, body, **env):
    """Runs body in a fresh interpreter (a fault ends the CUDA context for good); returns the result."""
    script = folder / "script.py"  # kernels need a source file
    script.write_text("import numpy as np\nimport quadrants as qd\nqd.init(arch=qd.cuda)\n" + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_a_fault_in_a_kernel_is_an_exception_naming_it(tmp_path):
    result = run_script(tmp_path, """
        @qd.kernel
        def wild_write(x: qd.types.ndarray()) -> None:
            for i in range(1):
                x[qd.cast(i, qd.i64) + 1099511627776] = 1.0  # 4 TiB past the array

        x = qd.ndarray(qd.f32, shape=(4,))
        wild_write(x)
        try:
            qd.sync()
        except RuntimeError as e:
            print("ERROR:", e)
    """)
    assert result.returncode == 0, result.stderr
    assert "ERROR: cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS" in result.stdout
    assert "most likely 'wild_write' (the last one launched)" in result.stdout


@pytest.mark.skipif(not EMULATED, reason="the emulation's device properties are set by environment variables")
@pytest.mark.parametrize("env", [{"QD_EMULATED_CC": "100"}, {"QD_EMULATED_MEMORY_POOLS": "0"}],
                         ids=["ptx-fallback", "no-memory-pools"])
def test_kernels_run_on_the_ptx_fallback_and_without_memory_pools(tmp_path, env):
    # With compute capability 10.0, which the emulated NVRTC does not know, the kernel can only run
    # from PTX for compute_90 (the emulated NVRTC refuses a CUBIN for a virtual architecture).
    result = run_script(tmp_path, """
        @qd.kernel
        def total(x: qd.types.ndarray()) -> qd.f32:
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s

        x = qd.ndarray(qd.f32, shape=(1000,))
        x.from_numpy(np.arange(1000, dtype=np.float32))
        print("TOTAL", total(x))
    """, **env)
    assert result.returncode == 0, result.stderr
    assert "TOTAL 499500.0" in result.stdout


def test_kernels_launch_from_other_threads():
    @qd.kernel
    def scale(x: qd.types.ndarray(), k: qd.f32) -> None:
        for i in range(x.shape[0]):
            x[i] *= k

    arrays = [qd.ndarray(qd.f32, shape=(256,)) for _ in range(4)]
    for a in arrays:
        a.fill(1.0)
    errors = []

    def work(a, k):
        try:
            for _ in range(5):
                scale(a, k)
        except Exception as e:  # reported below, so a failure names its thread's error
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a, float(k + 2))) for k, a in enumerate(arrays)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k, a in enumerate(arrays):
        np.testing.assert_array_equal(a.to_numpy(), np.full(256, float(k + 2) ** 5, np.float32))


def test_host_arrays_are_staged_and_only_writable_ones_written_back():
    @qd.kernel
    def axpy(y: qd.types.ndarray(), x: qd.types.ndarray(), a: qd.f64) -> None:
        for i in range(y.shape[0]):
            y[i] += a * x[i]

    x = np.arange(8.0)
    x.flags.writeable = False
    y = np.ones(8)  # host memory: staged to the device, and written back since it is writable
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        axpy(y, x, 2.0)
        axpy(y, x, 2.0)
    np.testing.assert_array_equal(y, 1 + 4 * np.arange(8.0))
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2  # one per parameter, not per call
    assert "Kernel 'axpy' argument 'y' is in host memory but the kernel runs on cuda:0" in messages[0]
    assert "(64 bytes each way)" in messages[0]


def test_fields_and_python_scope_access_live_on_the_device():
    f = qd.Vector.field(3, qd.f32, shape=(5,))

    @qd.kernel
    def fill():
        for i in f:
            f[i] = qd.Vector([i, 2 * i, 3 * i])

    fill()
    assert f.to_numpy().tolist() == [[i, 2 * i, 3 * i] for i in range(5)]
    assert f[4][2] == 12.0
    f[0] = [7, 8, 9]
    assert f.to_numpy()[0].tolist() == [7, 8, 9]
    assert f.__dlpack_device__() == (2, 0)


def test_dlpack_export_checks_the_stream_argument():
    x = qd.ndarray(qd.f32, shape=(4,))
    with pytest.raises(BufferError, match=r"__dlpack__\(stream=0\) is ambiguous for CUDA"):
        x.__dlpack__(stream=0, max_version=(1, 0))
    x.__dlpack__(stream=1, max_version=(1, 0))  # the legacy stream: already ordered after our work


def test_block_dim_beyond_a_cuda_block_is_refused():
    @qd.kernel
    def wide(x: qd.types.ndarray()) -> None:
        qd.loop_config(block_dim=2048)
        for i in range(x.shape[0]):
            x[i] = 1

    with pytest.raises(Exception, match=r"qd.loop_config\(block_dim=2048\) is more than a CUDA block can hold"):
        wide(qd.ndarray(qd.i32, shape=(4,)))


def test_explicit_stream_argument_is_used():
    @qd.kernel
    def inc(x: qd.types.ndarray()) -> None:
        for i in range(x.shape[0]):
            x[i] += 1

    x = qd.ndarray(qd.i32, shape=(10,))
    inc(x, qd_stream=0)
    qd.sync()
    assert x.to_numpy().tolist() == [1] * 10


def test_cpp_kernels_stay_on_the_host_under_cuda():
    @qd.cpp_kernel("""
        void twice(qd::Ndarray<float, 1> x) { for (int64_t i = 0; i < x.shape(0); ++i) x(i) *= 2; }
    """)
    def twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> None:
        ...

    host = np.arange(4, dtype=np.float32)
    twice(host)  # host memory, used in place: no staging for host code
    assert host.tolist() == [0, 2, 4, 6]
    with pytest.raises(ValueError, match=r"argument 'x': the array is on cuda:0, but the kernel runs on the CPU; "
                                         r"move it with \.cpu\(\) \(C\+\+ kernels are host code\)\."):
        twice(qd.ndarray(qd.f32, shape=(4,)))


def test_to_torch_defaults_to_the_cpu_as_in_quadrants():
    pytest.importorskip("torch")
    f = qd.field(qd.f32, shape=(3,))
    f.fill(2.0)
    out = f.to_torch()
    assert out.device.type == "cpu" and out.tolist() == [2.0, 2.0, 2.0]
