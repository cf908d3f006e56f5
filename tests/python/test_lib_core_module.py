# tests/python/test_lib_core_module.py: upstream's compiled-core module path, quadrants._lib.core.quadrants_python.
import importlib.util
import os
import subprocess
import sys

import pytest

import quadrants as qd


def test_quadrants_python_is_importable_and_is_the_core_queries_module():
    import quadrants._lib.core.quadrants_python as core_module
    from quadrants._lib import core, utils

    assert utils.import_qd_python_core() is core_module
    assert core.quadrants_python is core_module
    assert core.get_max_num_indices() == core_module.get_max_num_indices()
    assert core_module.arch_from_name("x64") is qd.cpu


@pytest.mark.skipif(importlib.util.find_spec("pyright") is None, reason="pyright is not installed")
def test_static_checkers_resolve_quadrants_python(tmp_path):
    """Upstream's test_pyi_stubs: a type checker must resolve the module, not call it Unknown."""
    probe = tmp_path / "probe.py"
    probe.write_text("import quadrants._lib.core.quadrants_python\n"
                     "reveal_type(quadrants._lib.core.quadrants_python)\n")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(qd.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "pyright", str(probe)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert 'is "Module("quadrants._lib.core.quadrants_python")"' in done.stdout, done.stdout + done.stderr
    assert "unknown" not in done.stdout.lower()
