# python/quadrants/runtime/compiler.py: tells the C++ core which compiler to fall back on when the system has none.
import importlib.util
import os

from quadrants.runtime import _core

_NOTICE = ("quadrants: no C++ compiler on this system (CXX unset, no c++ in PATH); compiling CPU kernels with the "
           "clang from the ziglang package. Its first compile on a machine takes about a minute while zig builds "
           "its runtime libraries; later ones take well under a second.")


def ziglang_command():
    """The argument words that run ziglang's clang as a C++ compiler, or None when ziglang is not installed."""
    spec = importlib.util.find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    # The zig binary itself rather than `python -m ziglang`: no Python start per compile, and the
    # cache key's compiler fingerprint then follows zig's binary (a ziglang upgrade changes it).
    zig = os.path.join(list(spec.submodule_search_locations)[0], "zig")
    return [zig, "c++"] if os.access(zig, os.X_OK) else None


def install_fallback_compiler():
    """Hands ziglang's clang (when installed) to the core as the compiler for a system without one."""
    command = ziglang_command()
    _core.set_fallback_compiler(command or [], _NOTICE if command else "")
