# tests/python/test_compiler_fingerprint.py: the disk cache notices which C++ compiler `c++` in PATH is, without
# running it in a warm process (src/jit/compiler.cpp's compiler_fingerprint, kept as compiler-<hash>.txt).
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cpu_only  # the CPU library cache

KERNEL = textwrap.dedent("""
    import numpy as np
    import quadrants as qd
    qd.init(arch=qd.cpu)

    @qd.kernel
    def add_one(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 1

    a = np.zeros(4, dtype=np.int32)
    add_one(a)
    print(a.tolist())
""")


def _wrapper(folder, name, marker):
    """A compiler that is the real c++ but for what `--version` prints: `marker` on a line of its own."""
    real = shutil.which("c++")
    if real is None:
        pytest.skip("no c++ in PATH to wrap")
    path = folder / name
    path.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then "{real}" --version; echo "{marker}"; exit 0; fi\n'
                    f'exec "{real}" "$@"\n')
    path.chmod(0o755)
    return path


def _run(tmp_path, path_value):
    program = tmp_path / "program.py"
    program.write_text(KERNEL)
    env = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "cache"), "PATH": path_value}
    env.pop("CXX", None)
    done = subprocess.run([sys.executable, str(program)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "[1, 1, 1, 1]"


def _identities(tmp_path):
    return sorted((p.read_text().strip().splitlines()[-1]) for p in (tmp_path / "cache").glob("compiler-*.txt"))


def _libraries(tmp_path):
    return sorted(p.name for p in (tmp_path / "cache").glob("add_one-*.so"))


def test_c_plus_plus_link_moved_to_another_compiler_is_asked_again(tmp_path):
    """`c++` is a symlink (as Debian's alternatives make it): pointed at another compiler, the next process asks that
    compiler for its version and compiles the kernel again, instead of serving the first compiler's library."""
    tools = tmp_path / "tools"
    tools.mkdir()
    first, second = _wrapper(tools, "cxx-a", "compiler A"), _wrapper(tools, "cxx-b", "compiler B")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "c++").symlink_to(first)
    path_value = f"{bin_dir}:{os.environ.get('PATH', '')}"
    _run(tmp_path, path_value)
    _run(tmp_path, path_value)  # warm: the compiler is not asked again
    assert _identities(tmp_path) == ["compiler A"]
    assert len(_libraries(tmp_path)) == 1
    (bin_dir / "c++").unlink()
    (bin_dir / "c++").symlink_to(second)
    _run(tmp_path, path_value)
    assert _identities(tmp_path) == ["compiler A", "compiler B"]
    assert len(_libraries(tmp_path)) == 2  # compiled again by compiler B


def test_empty_path_entries_are_skipped_when_looking_for_c_plus_plus(tmp_path):
    """PATH's empty entries (a leading, doubled or trailing `:`) name no folder: c++ is found in the others."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "c++").symlink_to(_wrapper(tools, "cxx-a", "compiler A"))
    _run(tmp_path, f":{tmp_path / 'missing'}::{tools}:{os.environ.get('PATH', '')}:")
    assert _identities(tmp_path) == ["compiler A"]
