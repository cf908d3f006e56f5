# python/quadrants/backends/libraries.py: lazy imports of the optional array libraries (torch, CuPy).
"""Lazy imports, so `import quadrants.backends` works with numpy alone installed."""

import importlib
import sys

# Install hints for the ImportError raised when an optional library is missing.
_INSTALL_HINTS = {
    "torch": "install it with `pip install torch`",
    "cupy": "install the CuPy wheel matching your CUDA toolkit, e.g. `pip install cupy-cuda12x`",
}

LIBRARY_NAMES = ("numpy", "cupy", "torch")


def import_library(name, caller):
    """Import array library `name` ('numpy', 'cupy' or 'torch') on behalf of `caller`."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ImportError(
            f"{caller} needs the '{name}' package, which could not be imported ({error}); "
            f"{_INSTALL_HINTS.get(name, f'install it with `pip install {name}`')}."
        ) from error


def import_compat_namespace(name):
    """The array_api_compat namespace wrapping library `name`."""
    return importlib.import_module(f"array_api_compat.{name}")


def library_name(lib):
    """'numpy', 'cupy' or 'torch' for the module `lib`; TypeError for anything else."""
    name = getattr(lib, "__name__", None)
    if name not in LIBRARY_NAMES or sys.modules.get(name) is not lib:
        raise TypeError(
            "Backend() expected lib to be one of the modules numpy, cupy or torch, "
            f"got {lib!r}."
        )
    return name
