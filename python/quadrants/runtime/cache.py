# python/quadrants/runtime/cache.py: control of the on-disk kernel cache: clearing it, and its size cap.
#
# The cap and the eviction live in the C++ core (src/jit/cache_eviction.cpp); this maps qd.init()'s
# upstream options onto it: offline_cache_max_size_of_files (bytes), offline_cache_cleaning_policy
# ('lru', 'fifo', 'never'; 'version' acts as 'lru', see below) and offline_cache_cleaning_factor.
import os

from quadrants.runtime import _core, options as _init_options

_CAP_OPTIONS = ("offline_cache_max_size_of_files", "offline_cache_cleaning_policy", "offline_cache_cleaning_factor")
_POLICIES = ("never", "version", "lru", "fifo")


def clear_cache():
    """Removes every compiled kernel from the disk cache (QD_CACHE_DIR, else $XDG_CACHE_HOME/quadrants or
    ~/.cache/quadrants). Kernels this process already loaded keep running; the next process compiles
    afresh. Safe while other processes use the cache: one loading an entry being removed recompiles it.
    Returns the number of entries removed."""
    return _core.clear_disk_cache()


def _given(kwargs, name):
    return name in kwargs or os.environ.get(f"QD_{name.upper()}") not in (None, "")


def apply_init_options(values, kwargs):
    """Sets the size cap from qd.init()'s options when any is given, else back to the default
    (QD_CACHE_MAX_MB, else 1024 MB). Returns the three options as they are now in force, for qd.cfg."""
    if not any(_given(kwargs, name) for name in _CAP_OPTIONS):
        _core.reset_cache_limit()
        return _in_force(values["offline_cache_cleaning_policy"], values["offline_cache_cleaning_factor"])
    policy = values["offline_cache_cleaning_policy"]
    if policy not in _POLICIES:
        raise ValueError(f"qd.init(offline_cache_cleaning_policy=...) expects one of {', '.join(map(repr, _POLICIES))},"
                         f" but got {policy!r}.")
    if policy == "version":
        _init_options.warn_once("offline_cache_cleaning_policy", (
            "qd.init(offline_cache_cleaning_policy='version') acts as 'lru': quadrants' cache keys include its "
            "version, so entries of other versions are never loaded and are the least recently used."))
        policy = "lru"
    factor = values["offline_cache_cleaning_factor"]
    if not 0.0 <= factor <= 1.0:
        raise ValueError(f"qd.init(offline_cache_cleaning_factor=...) expects a fraction in [0, 1], but got {factor!r}.")
    if _given(kwargs, "offline_cache_max_size_of_files"):
        max_bytes = values["offline_cache_max_size_of_files"]
        if max_bytes < 0:
            raise ValueError(f"qd.init(offline_cache_max_size_of_files=...) expects a size in bytes >= 0 (0: no cap), "
                             f"but got {max_bytes!r}.")
    else:
        _core.reset_cache_limit()
        max_bytes = _core.cache_limit_bytes()
    _core.set_cache_limit(int(max_bytes), policy, float(factor))
    return _in_force(policy, factor)


def _in_force(policy, factor):
    """qd.cfg's cache options: the cap the core applies (bytes, 0: none), its policy and its cleaning factor."""
    return {"offline_cache_max_size_of_files": _core.cache_limit_bytes(), "offline_cache_cleaning_policy": policy,
            "offline_cache_cleaning_factor": float(factor)}
