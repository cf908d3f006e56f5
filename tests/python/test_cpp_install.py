# tests/python/test_cpp_install.py: C++ users build examples/cpp/ with find_package(quadrants), from a
# `cmake --install` prefix and from the installed Python package (quadrants.get_cmake_dir()), and run it.
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import quadrants as qd

pytestmark = [pytest.mark.cpu_only,  # builds and runs a host program; nothing differs on CUDA
              pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cpp"
BUILD_TREE = ROOT / "build" / "cpp"  # scripts/build.sh's C++ build


def run(command, **kwargs):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def build_and_run_example(tmp_path, cmake_arg):
    build = tmp_path / "example-build"
    run(["cmake", "-S", EXAMPLE, "-B", build, "-DCMAKE_BUILD_TYPE=Release", cmake_arg])
    run(["cmake", "--build", build])
    env = {**os.environ, "QD_CACHE_DIR": str(tmp_path / "kernel-cache")}
    return run([build / "run_saxpy", EXAMPLE / "saxpy.qdir"], env=env)


@pytest.mark.skipif(not (BUILD_TREE / "CMakeCache.txt").is_file(), reason="no build/cpp (run scripts/build.sh)")
def test_example_builds_against_a_cmake_install_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", BUILD_TREE, "--prefix", prefix])
    assert (prefix / "include" / "quadrants" / "jit.h").is_file()
    assert (prefix / "lib" / "libquadrants_core.a").is_file()
    assert (prefix / "lib" / "cmake" / "quadrants" / "quadrantsConfigVersion.cmake").is_file()
    out = build_and_run_example(tmp_path, f"-DCMAKE_PREFIX_PATH={prefix}")
    assert "saxpy from C++: y[999] = 1999.0" in out


def test_example_builds_against_the_installed_package(tmp_path):
    out = build_and_run_example(tmp_path, f"-Dquadrants_DIR={qd.get_cmake_dir()}")
    assert "saxpy from C++: y[999] = 1999.0" in out


def test_get_include_holds_the_public_headers():
    include = Path(qd.get_include())
    for header in ("jit.h", "launch.h", "array.h", "dlpack.h", "interop.h"):
        assert (include / "quadrants" / header).is_file(), header


def test_config_version_rejects_another_minor_version(tmp_path):
    # find_package(quadrants 0.99) must fail against 0.1.x: 0.x releases may change the C++ API.
    project = tmp_path / "wants_other_version"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\nfind_package(quadrants 0.99 REQUIRED)\n")
    done = subprocess.run(["cmake", "-S", str(project), "-B", str(tmp_path / "b"), f"-Dquadrants_DIR={qd.get_cmake_dir()}"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "quadrantsConfigVersion.cmake" in done.stderr or "version" in done.stderr.lower()
