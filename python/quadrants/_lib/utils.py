# python/quadrants/_lib/utils.py: upstream's loader helpers (quadrants._lib.utils), which its tests and some
# programs call to reach the compiled core. quadrants' core needs no loading tricks; these answer with it.
import platform

from quadrants._lib.core import quadrants_python as _core_queries


def import_qd_python_core():
    """Upstream's compiled core module; here the module that answers the queries programs make of it."""
    return _core_queries


def get_os_name():
    """'linux', 'osx', 'win' or 'unix', as upstream names the host."""
    name = platform.platform().lower()
    if name.startswith(("darwin", "macos")):
        return "osx"
    if name.startswith("windows"):
        return "win"
    if name.startswith("linux"):
        return "linux"
    if "bsd" in name:
        return "unix"
    raise RuntimeError(f"get_os_name(): unknown platform {platform.platform()!r}.")
