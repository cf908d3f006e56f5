# tests/python/test_simt_emulation.py: the CUDA emulation's block/warp intrinsics: fibers, poison, misuse reports.
"""Runs only on the driver emulation (tests/cuda_emulator/, selected with QD_CUDA_DRIVER_PATH): there a
block's threads are fibers, so barriers and shuffles work, and uses of them that CUDA leaves undefined
fail. Each failure ends the (emulated) CUDA context for good, so those run in a fresh interpreter."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

EMULATED = "emulated" in os.environ.get("QD_CUDA_DRIVER_PATH", "")
pytestmark = pytest.mark.skipif(not EMULATED or _core.cuda_status() != "",
                                reason="needs the CUDA driver emulation (QD_CUDA_DRIVER_PATH)")


def launch_failure(folder, kernel_source, argument):
    """Runs the kernel `k` of kernel_source on `argument` (both source text) in a fresh process on the emulation;
    a launch error is printed as 'ERROR: ...'. The completed process, which must have exited cleanly."""
    script = folder / "script.py"  # kernels need a source file
    prelude = "import numpy as np\nimport quadrants as qd\nqd.init(arch=qd.cuda)\n"
    launch = f"try:\n    k({argument})\n    qd.sync()\nexcept RuntimeError as e:\n    print('ERROR:', e)\n"
    script.write_text(prelude + textwrap.dedent(kernel_source) + launch)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def test_threads_at_a_warp_intrinsic_and_a_barrier_fail_the_launch(tmp_path):
    result = launch_failure(tmp_path, """
        @qd.kernel
        def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            qd.loop_config(block_dim=32)
            for i in range(32):
                if i < 16:
                    out[i] = qd.simt.subgroup.shuffle(i, qd.u32(0))
                else:
                    qd.simt.block.sync()
    """, 'np.zeros(32, np.int32)')
    assert "CUDA_ERROR_LAUNCH_FAILED" in result.stdout
    assert "waited for each other at different scopes" in result.stderr


def test_lanes_at_different_warp_intrinsics_fail_the_launch(tmp_path):
    # on the CPU the ballot's lanes and the shuffle's lanes would meet; CUDA does not define it
    result = launch_failure(tmp_path, """
        @qd.kernel
        def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
            qd.loop_config(block_dim=32)
            for i in range(32):
                if i < 16:
                    out[i] = qd.simt.subgroup.shuffle(i, qd.u32(0))
                else:
                    out[i] = qd.cast(qd.simt.subgroup.ballot(i), qd.i32)
    """, 'np.zeros(32, np.int32)')
    assert "CUDA_ERROR_LAUNCH_FAILED" in result.stdout
    assert "met at different intrinsics: __" in result.stderr


def test_a_fault_inside_a_block_of_fibers_is_an_illegal_address(tmp_path):
    result = launch_failure(tmp_path, """
        @qd.kernel
        def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            qd.loop_config(block_dim=64)
            for i in range(64):
                qd.simt.block.sync()
                x[qd.cast(i, qd.i64) + 1099511627776] = 1.0  # 4 TiB past the array
    """, 'qd.ndarray(qd.f32, shape=(4,))')
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in result.stdout


def test_a_shuffle_from_a_lane_that_exited_reads_poison():
    # 40 iterations in blocks of 64: lanes 8..31 of the second warp have exited. The CPU gives the
    # reader its own value; CUDA leaves it undefined, and the emulation gives a NaN so no test can pass by luck.
    qd.init(arch=qd.cuda)

    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        qd.loop_config(block_dim=64)
        for i in range(40):
            out[i] = qd.simt.subgroup.shuffle_down(qd.cast(i, qd.f32), qd.u32(4))

    out = np.zeros(40, np.float32)
    k(out)
    np.testing.assert_array_equal(out[:28], np.arange(4, 32))
    np.testing.assert_array_equal(out[28:32], np.arange(28, 32))  # past lane 31: their own value, as CUDA defines
    np.testing.assert_array_equal(out[32:36], np.arange(36, 40))
    assert np.isnan(out[36:]).all()  # lanes 4..7 of the second warp read lanes 8..11, which exited
