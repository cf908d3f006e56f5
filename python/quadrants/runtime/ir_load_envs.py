# python/quadrants/runtime/ir_load_envs.py: upstream's QD_LOAD_IR / QUADRANTS_LOAD_PTX debug variables, which
# quadrants does not read, checked against caching the way upstream's qd.init checks them.
#
# Upstream's LLVM code generator (CPU, CUDA, AMDGPU) reads replacement IR from debug_dump_path when QD_LOAD_IR is
# set, and its CUDA JIT reads replacement PTX when QUADRANTS_LOAD_PTX is; a cached kernel is never generated again,
# so upstream refuses either variable while a cache is on. Quadrants generates C++, not LLVM IR or PTX, and reads
# neither: with caching on it raises upstream's error (a program relying on the variables fails the same way on
# both), with caching off it warns once that the variable has no effect here.
import os

from quadrants.runtime import options as _init_options

# The archs whose upstream backend reads each variable, by upstream's arch names (qd.cpu is x64 or arm64 here).
_READS_LOAD_IR = frozenset({"x64", "x86_64", "arm64", "cpu", "cuda", "amdgpu"})
_READS_LOAD_PTX = frozenset({"cuda"})


def _set(name):
    """Upstream parses both variables as ints, so '0' and '' leave them off."""
    return os.environ.get(name, "0") not in ("", "0")


def active_variables(arch):
    """The load variables that are set and that upstream's backend for `arch` would read."""
    name = getattr(arch, "name", None)
    active = []
    if _set("QD_LOAD_IR") and name in _READS_LOAD_IR:
        active.append("QD_LOAD_IR")
    if _set("QUADRANTS_LOAD_PTX") and name in _READS_LOAD_PTX:
        active.append("QUADRANTS_LOAD_PTX")
    return active


def check(arch, offline_cache, src_ll_cache):
    """Raises ValueError when a load variable `arch` would read is set and a cache (offline_cache or src_ll_cache)
    is on; with both off, warns once that quadrants ignores the variable. qd.init calls it after picking the arch."""
    active = active_variables(arch)
    if not active:
        return
    names = " and ".join(active)
    if offline_cache or src_ll_cache:
        raise ValueError(
            f"Caching must be disabled when using {names}: a cached kernel is not generated again, so replacement "
            f"IR/PTX could never be read for it. Pass offline_cache=False and src_ll_cache=False to qd.init, or "
            f"unset {names}. (Quadrants generates C++ and reads no replacement IR/PTX in any case.)")
    _init_options.warn_once("ir_load_envs", (
        f"{names} is set, but quadrants generates C++ rather than LLVM IR or PTX and reads no replacement IR/PTX "
        f"from debug_dump_path; kernels compile from their Python source as usual."))


def check_against_caching(cfg, src_ll_cache):
    """check() on a configuration object (.arch, .offline_cache): upstream's lang.misc helper of that name."""
    check(cfg.arch, bool(cfg.offline_cache), bool(src_ll_cache))
