# tests/python/test_packaging.py: the installed distribution's metadata (pyproject.toml) matches the package.
from importlib import metadata
from pathlib import Path

import pytest

import quadrants as qd

try:
    _dist = metadata.distribution("quadrants")
except metadata.PackageNotFoundError:  # a bare source tree on sys.path, not pip-installed
    _dist = None

needs_install = pytest.mark.skipif(_dist is None, reason="quadrants is not installed (pip install -e .)")


@needs_install
def test_version_comes_from_the_distribution_metadata():
    assert qd.__version__ == _dist.version


@needs_install
def test_extras_are_declared():
    extras = set(_dist.metadata.get_all("Provides-Extra") or [])
    assert {"torch", "cupy", "cuda", "compiler", "test"} <= extras
    requires = _dist.requires or []
    assert any(r.startswith("ziglang") and 'extra == "compiler"' in r for r in requires)
    assert any(r.startswith("nvidia-cuda-nvrtc") and 'extra == "cuda"' in r for r in requires)


@needs_install
def test_genesis_extra_installs_genesis_requirements_but_never_quadrants():
    # `pip install "quadrants[genesis]"` must not pull any quadrants (Genesis pins upstream's 1.3.3, which would
    # replace this package); scripts/genesis_install_check.sh compares the list with Genesis' own metadata.
    from packaging.requirements import Requirement

    genesis = [Requirement(r) for r in _dist.requires or [] if 'extra == "genesis"' in r]
    names = {req.name.lower() for req in genesis}
    assert {"mujoco", "trimesh", "numba", "pydantic"} <= names, names
    assert "quadrants" not in names and "genesis-world" not in names


@needs_install
def test_license_readme_and_classifiers_are_declared_and_no_project_url():
    md = _dist.metadata
    assert md["License-Expression"] == "Apache-2.0"
    assert any(f.endswith("LICENSE") for f in md.get_all("License-File") or [])
    assert any(str(f).endswith("LICENSE") for f in _dist.files or [])
    assert md["Description-Content-Type"] == "text/markdown"
    assert "Typing :: Typed" in (md.get_all("Classifier") or [])
    # This project has no public URL; upstream's repository and tracker are another project's (issue 34).
    assert not md.get_all("Project-URL"), md.get_all("Project-URL")
    assert "Home-page" not in md


def test_license_and_py_typed_are_in_the_tree():
    root = Path(__file__).resolve().parents[2]
    assert "Apache License" in (root / "LICENSE").read_text()
    assert (Path(qd.__file__).parent / "py.typed").is_file()


def test_uninstalled_tree_reads_the_version_from_pyproject(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", not_installed)
    root = Path(__file__).resolve().parents[2]
    import re
    declared = re.search(r'^version\s*=\s*"([^"]+)"', (root / "pyproject.toml").read_text(), re.M).group(1)
    assert qd._package_version() == declared
