# tests/python/test_compiled_index.py: the compiled-kernel index (src/jit/compiled_index.cpp) as a user meets it, one
# process after another; tests/cpp/test_compiled_index.cpp covers its entries, their checks and the fallbacks.
import os
import subprocess
import sys

import pytest

from quadrants.runtime import _core

pytestmark = pytest.mark.cpu_only  # the CPU library cache

PROGRAM = """
import numpy as np
import quadrants as qd
qd.init(arch=qd.cpu)

@qd.kernel
def add_three(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in range(a.shape[0]):
        a[i] += 3

a = np.zeros(4, dtype=np.int32)
add_three(a)
assert a.tolist() == [3] * 4, a
print("ok")
"""


def _run(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "cache"), "QD_CHECK_CUDA": "0", "QD_TRANSLATION_CACHE": "0"}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr


def _index_entries(tmp_path):
    return sorted(p.name for p in (tmp_path / "cache").glob("compiled_index-*.bin"))


def test_another_build_of_the_core_is_not_served_the_last_builds_entries(tmp_path):
    # An entry stands for the passes and code generation that made it, which the IR text does not name: a rebuilt
    # or upgraded core (here: its file's modification time moved) must take the full path and index anew, or it
    # would run libraries and assert messages of the build before (a stale pass result, found by a mutant).
    _run(tmp_path)
    first = _index_entries(tmp_path)
    assert len(first) == 1
    _run(tmp_path)
    assert _index_entries(tmp_path) == first  # the same build: served from the index, nothing new written
    core = _core.__file__
    before = os.stat(core)
    try:
        os.utime(core, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
        _run(tmp_path)
        assert len(_index_entries(tmp_path)) == 2 and set(first) < set(_index_entries(tmp_path))
    finally:
        os.utime(core, ns=(before.st_atime_ns, before.st_mtime_ns))


SOURCE_PROGRAM = """
import hashlib
import numpy as np
import quadrants as qd
from quadrants.runtime import _core
qd.init(arch=qd.cpu)

@qd.kernel
def add_three(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in range(a.shape[0]):
        a[i] += 3

a = np.zeros(4, dtype=np.int32)
add_three(a)
ir = add_three.ir([("array", "i32", 1, (), True, True)])
compiled = _core.compile_kernel(ir)
print(hashlib.sha256(compiled.source.encode()).hexdigest(), "QD_RUNTIME_H" in compiled.source, compiled.source == compiled.source)
"""


def test_a_kernel_served_from_the_index_still_shows_its_generated_source(tmp_path):
    # The index leaves the generated C++ in the cache until `source` is read (a warm first call need not read it):
    # reading it then gives the text a compile gives.
    script = tmp_path / "source.py"
    script.write_text(SOURCE_PROGRAM)
    env = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "cache"), "QD_CHECK_CUDA": "0", "QD_TRANSLATION_CACHE": "0"}
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split())
    assert outputs[0][1:] == ["True", "True"]
    assert outputs[1] == outputs[0]  # the second process is served from the index: the same text, read when asked
    assert len(_index_entries(tmp_path)) == 1
