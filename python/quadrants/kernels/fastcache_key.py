# python/quadrants/kernels/fastcache_key.py: upstream's fast-cache key of a kernel call (its src_hasher and
# config_hasher), and what a @qd.kernel(fastcache=True) call reports of it (src_ll_cache_observations).
"""The key hashes: the package version, the kernel's own source lines (not the functions it calls: a record lists
those, fastcache_records.py), the arguments (fastcache_args.py), the qd.init options (all of qd.cfg but those that
only choose where output goes or set runtime limits), the device's capabilities, the kernel's file and first line,
and the record schema. A call whose arguments are not fast-cacheable has no key, and warns
[FASTCACHE][INVALID_FUNC] unless only fields given through qd.Tensor annotations stopped it.

How the key is used here: every kernel's translation is cached by the translation cache (translation_cache.py),
whatever its arguments and whether or not it is declared fastcache, so nothing is looked up under this key. A
fastcache kernel's call (with qd.init(src_ll_cache=True), the default) makes it to report upstream's observations:
cache_key_generated when the call has a key, and then validated/loaded/stored as the translation cache found or
stored the translation. Other kernels report nothing, as upstream's do, though they are cached the same."""
import os
import sys

from quadrants.base import log as _logging
from quadrants.frontend.purity import is_pure
from quadrants.kernels.fastcache_args import FastcacheSkip, hash_args, hash_iterable_strings
from quadrants.kernels.fastcache_records import FunctionSourceInfo, hash_function
from quadrants.kernels.launch_records import SrcLlCacheObservations
from quadrants.kernels.translation_inputs import file_lines, source_lines
from quadrants.runtime import init as _runtime
from quadrants.runtime.device_caps import current_device_caps

SCHEMA = "cachevalue-v4-intenum-qualnames"  # upstream's record schema, part of its key

# qd.cfg options upstream leaves out of the key: by prefix (private, cache placement, printing, verbosity) and by
# name (where IR dumps go, a CUDA stack limit set at run time, a Metal queue handle read live).
EXCLUDED_PREFIXES = ("_", "offline_cache", "print_", "verbose_")
EXCLUDED_OPTIONS = frozenset({"debug_dump_path", "cuda_stack_limit", "external_metal_command_queue"})


_config_hash = (None, None)  # ((options object, default_fp, default_ip, qd.cfg's write count), its hash)


def hash_compile_config():
    """The hex digest of the current qd.init()'s options, but the excluded ones (random_seed is in: upstream bakes
    the seed into compiled kernels). Memoized per qd.init() and per write to qd.cfg (runtime/option_writes.py);
    get_runtime().default_fp/_ip may change after it."""
    global _config_hash
    options = _runtime.config().options
    memo = (options, options.default_fp, options.default_ip, getattr(options, "_revision", 0))
    if _config_hash[0] is None or any(a is not b and a != b for a, b in zip(_config_hash[0], memo)):
        parts = [f"{name}={getattr(options, name)}" for name in dir(options)
                 if name not in EXCLUDED_OPTIONS and not name.startswith(EXCLUDED_PREFIXES)]
        _config_hash = (memo, hash_iterable_strings(parts, separator="\n"))
    return _config_hash[1]


def hash_device_caps():
    """The device capabilities' fingerprint (runtime/device_caps.py), 'T' and a hex digest."""
    return current_device_caps().hashed_key()


def create_cache_key(raise_on_templated_floats, kernel_info, args, arg_metas, config_hash=None, caps_hash=None,
                     kernel_hash=None):
    """The key of a call of the kernel at `kernel_info` (a FunctionSourceInfo) with these arguments, or None when an
    argument is not fast-cacheable (then [FASTCACHE][INVALID_FUNC] is logged unless only qd.Tensor fields stopped
    it). config_hash/caps_hash/kernel_hash: the current ones (the kernel's lines read now) when not given."""
    args_hash = hash_args(raise_on_templated_floats, args, arg_metas)
    if isinstance(args_hash, FastcacheSkip):
        if args_hash is FastcacheSkip.WARN:
            _logging.warn(f"[FASTCACHE][INVALID_FUNC] The pure function {kernel_info.function_name} could not be fast "
                          "cached, because one or more parameter types were invalid.")
        return None
    return hash_iterable_strings((
        str(getattr(sys.modules.get("quadrants"), "__version__", "?")),  # the package, imported by now
        kernel_hash if kernel_hash is not None else hash_function(kernel_info),
        args_hash,
        config_hash if config_hash is not None else hash_compile_config(),
        caps_hash if caps_hash is not None else hash_device_caps(),
        kernel_info.filepath,
        str(kernel_info.start_lineno),
        "pruned",
        "kcov" if os.environ.get("QD_KERNEL_COVERAGE") == "1" else "",
        SCHEMA,
    ))


def kernel_source_info(fn):
    """The FunctionSourceInfo of a kernel's function (from its first decorator to its last line)."""
    filename, first, last, _ = source_lines(fn)
    return FunctionSourceInfo(fn.__name__, filename, first, last)


def _memoized_kernel_hash(info):
    """hash_function(info) over the file as this process first read it (translation_inputs.file_lines, which the
    frontend translates too), so a call does not read the kernel's file again: the same digest while the file is
    unchanged. OSError when it cannot be read as UTF-8."""
    lines = file_lines(info.filepath)
    ends_with_newline = bool(lines) and lines[-1] == b""  # split() leaves an empty last item after a final newline
    real = lines[:-1] if ends_with_newline else lines
    chosen = real[info.start_lineno:info.end_lineno + 1]
    try:
        texts = [line.decode("utf-8") + "\n" for line in chosen]
    except UnicodeDecodeError as exc:
        raise OSError(f"{info.filepath} is not UTF-8: {exc}") from exc
    if texts and not ends_with_newline and info.end_lineno + 1 >= len(real):
        texts[-1] = texts[-1][:-1]  # the file's last line, which has no newline
    return hash_iterable_strings(texts)


def observe_call(definition, args):
    """Before a call of the kernel compiles: fresh observations, keyed when the kernel is fastcache (or pure), the
    qd.init allows it (src_ll_cache) and the call's arguments are fast-cacheable. Returns the key or None."""
    observed = definition.cache_observations = SrcLlCacheObservations()
    if not is_pure(definition.options):
        return None
    options = _runtime.config().options
    if not getattr(options, "src_ll_cache", True) or len(args) != len(definition.params):
        return None
    try:
        info = kernel_source_info(definition.fn)
        kernel_hash = _memoized_kernel_hash(info)
    except OSError:  # no source file (e.g. a kernel made by exec): nothing to key on
        return None
    key = create_cache_key(bool(getattr(options, "raise_on_templated_floats", False)), info, args, definition.params,
                           kernel_hash=kernel_hash)
    observed.cache_key_generated = key is not None
    return key


__all__ = ["EXCLUDED_OPTIONS", "EXCLUDED_PREFIXES", "SCHEMA", "create_cache_key", "hash_compile_config",
           "hash_device_caps", "kernel_source_info", "observe_call"]
