# python/quadrants/runtime/cache.py: control of the on-disk kernel cache: where it is, clearing it, and its size cap.
#
# The compiled libraries' cap and eviction live in the C++ core (src/jit/cache_eviction.cpp); this maps qd.init()'s
# upstream options onto it: offline_cache_max_size_of_files (bytes), offline_cache_cleaning_policy
# ('lru', 'fifo', 'never'; 'version' acts as 'lru' there, see below) and offline_cache_cleaning_factor. The kernel
# records (kernel_store.py) apply the same options with upstream's per-kernel semantics when a session ends.
# offline_cache_file_path moves the whole cache: the C++ core finds its directory in QD_CACHE_DIR, read on each use,
# so the option sets that variable for the process (and its children, which then share the cache) until a later
# qd.init() without the option restores what it was.
import os

from quadrants.runtime import _core, kernel_store as _kernel_store, options as _init_options

CAP_OPTIONS = ("offline_cache_max_size_of_files", "offline_cache_cleaning_policy", "offline_cache_cleaning_factor")
_POLICIES = ("never", "version", "lru", "fifo")


def clear_cache():
    """Removes every compiled kernel and recorded translation from the disk cache (QD_CACHE_DIR, else
    $XDG_CACHE_HOME/quadrants or ~/.cache/quadrants). Kernels this process already loaded keep running; the
    next process translates and compiles afresh. Safe while other processes use the cache: one loading an entry being removed recompiles it.
    Returns the number of entries removed."""
    records = _kernel_store.clear(os.path.join(_core.cache_dir_in_use(), _kernel_store.FOLDER))
    return _core.clear_disk_cache() + records


_UNSET = object()
_path_set = None  # (the QD_CACHE_DIR we set, what it was before), while offline_cache_file_path is in force


def apply_cache_path(path):
    """Points the cache at `path` (qd.init(offline_cache_file_path=...)); '' restores the directory it had."""
    global _path_set
    path = os.fspath(path)  # options.resolve() checked that it is a str
    if _path_set is not None:
        ours, before = _path_set
        if os.environ.get("QD_CACHE_DIR") == ours:  # unless the program changed it since
            if before is _UNSET:
                os.environ.pop("QD_CACHE_DIR", None)
            else:
                os.environ["QD_CACHE_DIR"] = before
        _path_set = None
    if path:
        path = os.path.abspath(os.path.expanduser(path))
        _path_set = (path, os.environ.get("QD_CACHE_DIR", _UNSET))
        os.environ["QD_CACHE_DIR"] = path


def open_records(values, in_force):
    """Starts this session's kernel records (kernel_store.py) when the cache is on, with upstream's cleaning options:
    the requested policy ('version' included) and the cap in force."""
    _kernel_store.close_session()
    if not values["offline_cache"]:
        return
    policy = values["offline_cache_cleaning_policy"]
    max_bytes = in_force["offline_cache_max_size_of_files"]
    # A given path is resolved now, so that a session that compiles nothing still cleans it when it ends.
    where = _core.cache_dir_in_use() if values["offline_cache_file_path"] else _core.cache_dir_in_use
    _kernel_store.open_session(where, policy, max_bytes, in_force["offline_cache_cleaning_factor"])


def _given(kwargs, name):
    return name in kwargs or os.environ.get(f"QD_{name.upper()}") not in (None, "")


def apply_init_options(values, kwargs):
    """Sets the size cap from qd.init()'s options when any is given, else back to the default
    (QD_CACHE_MAX_MB, else 1024 MB). Returns the three options as they are now in force, for qd.cfg."""
    if not any(_given(kwargs, name) for name in CAP_OPTIONS):
        _core.reset_cache_limit()
        return _in_force(values["offline_cache_cleaning_policy"], values["offline_cache_cleaning_factor"])
    policy = values["offline_cache_cleaning_policy"]
    if policy not in _POLICIES:
        raise ValueError(f"qd.init(offline_cache_cleaning_policy=...) expects one of {', '.join(map(repr, _POLICIES))},"
                         f" but got {policy!r}.")
    if policy == "version":
        _init_options.warn_once("offline_cache_cleaning_policy", (
            "qd.init(offline_cache_cleaning_policy='version') drops the kernel records of other versions, as "
            "upstream's does, but caps the compiled libraries as 'lru' does: their keys include quadrants' version, "
            "so libraries of other versions are never loaded and are the least recently used."))
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
