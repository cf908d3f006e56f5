# python/quadrants/runtime/paths.py: where the installed C++ headers and CMake package config are, for C++ users.
#
# The wheel (and `pip install -e .`) installs them in the package folder (quadrants/, above the compiled module quadrants.runtime._core), under
# include/ and lib/cmake/quadrants/ (cmake/install.cmake). An uninstalled source tree has the headers in
# its include/ folder but no CMake config until `cmake --install` runs.
from pathlib import Path

from quadrants.runtime import _core


def _installed_root():
    return Path(_core.__file__).resolve().parents[1]


def get_include():
    """The folder to add to a C++ compiler's include path for `#include "quadrants/jit.h"` and the other public headers."""
    installed = _installed_root() / "include"
    if (installed / "quadrants" / "jit.h").is_file():
        return str(installed)
    source_tree = Path(__file__).resolve().parents[3] / "include"
    if (source_tree / "quadrants" / "jit.h").is_file():
        return str(source_tree)
    raise FileNotFoundError(f"quadrants.get_include(): the C++ headers are not installed (looked in {installed} "
                            f"and {source_tree}); reinstall the quadrants wheel.")


def get_cmake_dir():
    """The folder holding quadrantsConfig.cmake: pass it as `-Dquadrants_DIR=...` (or put it on CMAKE_PREFIX_PATH)
    so that CMake's `find_package(quadrants)` finds the imported target quadrants::core."""
    cmake_dir = _installed_root() / "lib" / "cmake" / "quadrants"
    if (cmake_dir / "quadrantsConfig.cmake").is_file():
        return str(cmake_dir)
    raise FileNotFoundError(f"quadrants.get_cmake_dir(): no quadrantsConfig.cmake in {cmake_dir}; the package was "
                            "not installed from a wheel or with pip. From a source tree, run `cmake --install` "
                            "on a build folder and point CMake at that prefix.")
