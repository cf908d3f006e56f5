# tests/python/test_first_call_init.py: a kernel called before qd.init() initializes the runtime itself; when
# that picks CUDA (QD_ARCH=cuda), the first call's host arrays must still be staged to the device.
import os
import subprocess
import sys
import textwrap

import pytest

from quadrants.runtime import _core

if _core.cuda_status() != "":
    pytest.skip(f"CUDA is not usable: {_core.cuda_status()}", allow_module_level=True)

SCRIPT = textwrap.dedent("""
    import warnings
    import numpy as np
    import quadrants as qd

    @qd.kernel
    def double(x: qd.types.ndarray()):
        for i in x:
            x[i] = 2 * x[i]

    x = np.array([1.5, -2.0, 3.0], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        double(x)  # no qd.init() before: this call initializes, for CUDA
    from quadrants.runtime import init as _runtime
    assert _runtime.config().is_cuda
    assert x.tolist() == [3.0, -4.0, 6.0], x
    assert any("is in host memory but the kernel runs on cuda" in str(w.message) for w in caught), caught
    print("ok")
""")


def test_first_call_before_init_stages_host_arrays_for_cuda(tmp_path):
    script = tmp_path / "first_call.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, QD_ARCH="cuda", QD_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
