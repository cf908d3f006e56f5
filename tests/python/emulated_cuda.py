# tests/python/emulated_cuda.py: runs a script in a child process on the CUDA driver emulation that the C++ build
# makes (build/cpp/cuda_emulator), for tests that check what a CUDA launch does without a GPU.
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EMULATOR = ROOT / "build" / "cpp" / "cuda_emulator"


def run_on_cuda_emulation(script, cache_dir):
    """The script's stdout; skips the test when the emulation is not built, fails it when the script fails."""
    driver = EMULATOR / "libqd_emulated_driver.so"
    if not driver.exists():
        pytest.skip("the CUDA driver emulation is not built")
    env = dict(os.environ, QD_CUDA_DRIVER_PATH=str(driver), QD_NVRTC_PATH=str(EMULATOR / "libqd_emulated_nvrtc.so"),
               QD_CACHE_DIR=str(cache_dir), PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests" / "python")]))
    path = os.path.join(str(cache_dir), "emulated_cuda_script.py")  # a file, so kernels defined in it have source
    with open(path, "w") as out:
        out.write(script)
    proc = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout
