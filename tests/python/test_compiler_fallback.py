# tests/python/test_compiler_fallback.py: CPU kernels without a system C++ compiler (issue 15): ziglang's
# clang as the fallback, a warm cache that needs no compiler, and the error that says what to install.
#
# Each scenario runs in a fresh process whose PATH is an empty folder, so `c++` cannot be found.
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

pytestmark = pytest.mark.cpu_only

KERNEL = textwrap.dedent("""
    import sys
    import numpy as np
    import quadrants as qd
    from quadrants.runtime import _core
    if "--no-fallback" in sys.argv:
        _core.set_fallback_compiler([], "")
    qd.init(arch=qd.cpu)

    @qd.kernel
    def scale(a: qd.types.ndarray(dtype=qd.f32, ndim=1), s: qd.f32):
        for i in range(a.shape[0]):
            a[i] *= s

    a = np.arange(4, dtype=np.float32)
    try:
        scale(a, 2.0)
    except _core.KernelCompileError as e:
        print("CompileError:", e)
        raise SystemExit(3)
    print(a.tolist())
""")
_SCRIPTS = tempfile.mkdtemp(prefix="qd-fallback-test-")


def run(cache_dir, *args, hide_compiler=True, expect=0):
    """Runs KERNEL in a fresh process with CXX unset and, when hide_compiler, a PATH without c++."""
    path = os.path.join(_SCRIPTS, "kernel.py")
    with open(path, "w") as f:
        f.write(KERNEL)
    env = {k: v for k, v in os.environ.items() if k != "CXX"}
    env["QD_CACHE_DIR"] = str(cache_dir)
    if hide_compiler:
        env["PATH"] = tempfile.mkdtemp(prefix="qd-empty-path-")  # zig needs no tools from PATH
    start = time.perf_counter()
    done = subprocess.run([sys.executable, path, *args], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == expect, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip(), done.stderr, time.perf_counter() - start


def test_without_any_compiler_the_error_says_what_to_install(tmp_path):
    out, _, _ = run(tmp_path, "--no-fallback", expect=3)
    assert "No C++ compiler to compile kernel 'scale' for the CPU: CXX is not set and there is no c++ in PATH" in out
    assert "`pip install quadrants[compiler]`" in out
    assert "install g++ or clang" in out
    assert "set CXX" in out


def test_a_warm_cache_loads_without_any_compiler(tmp_path):
    out, _, _ = run(tmp_path, hide_compiler=False)  # the system's c++ fills the cache
    assert out == "[0.0, 2.0, 4.0, 6.0]"
    out, _, _ = run(tmp_path, "--no-fallback")  # no c++, no ziglang: only the cache can answer
    assert out == "[0.0, 2.0, 4.0, 6.0]"


@pytest.mark.skipif(importlib.util.find_spec("ziglang") is None, reason="needs pip install quadrants[compiler]")
def test_ziglang_compiles_when_the_system_has_no_compiler(tmp_path):
    # Zig's first use on a machine builds its runtime (about 45 s); later processes reuse it.
    out, err, _ = run(tmp_path)
    assert out == "[0.0, 2.0, 4.0, 6.0]"
    assert err.count("compiling CPU kernels with the clang from the ziglang package") == 1
    assert "first compile on a machine takes about a minute" in err
    out, err, _ = run(tmp_path)  # warm: the cached kernel, and zig's identity from the cache, no notice
    assert out == "[0.0, 2.0, 4.0, 6.0]"
    assert "ziglang" not in err


def test_compiler_messages_never_mention_our_own_headers():
    """A user's C++ error shows only the user's problem: no "#pragma once in main file" from our pasted headers."""
    from quadrants.runtime import _core
    source = "void broken(qd::Ndarray<float, 1> x) {\n    x(0) = undefined_name;\n}\n"
    with pytest.raises(RuntimeError) as info:
        _core.compile_cpp_kernel("broken_pragma", source, [("array", "x", "f32", 1, [])], None)
    message = str(info.value)
    assert "undefined_name" in message
    assert "pragma once" not in message
    assert "warning" not in message
