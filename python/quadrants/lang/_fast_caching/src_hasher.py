# python/quadrants/lang/_fast_caching/src_hasher.py: upstream's fast-cache key, answered by what the translation cache
# keys on and checks: the package, the qd.init options, the kernel's source and its arguments.
"""`create_cache_key(raise_on_templated_floats, kernel_info, args, arg_metas)` is a key that changes whenever our
translation cache would not reuse a translation of this kernel for these arguments for reasons known before it runs:
the package's fingerprint, the translation's qd.init options (config_hasher), the kernel's source lines
(function_hasher) and the arguments (args_hasher); None when an argument cannot be described. The functions a kernel
inlines and the globals it reads are checked by the cache after the lookup, so they are not in the key. Upstream's
store/load of its own cache entries have no counterpart: entries here are written by the translation itself."""
import hashlib

from quadrants.kernels.translation_cache import FORMAT, package_fingerprint
from quadrants.lang._fast_caching import args_hasher, config_hasher, function_hasher


def create_cache_key(raise_on_templated_floats, kernel_info, args, arg_metas):
    """The hex key, or None when args_hasher cannot describe an argument."""
    args_hash = args_hasher.hash_args(raise_on_templated_floats, args, arg_metas)
    if isinstance(args_hash, args_hasher.FastcacheSkip):
        return None
    parts = (FORMAT, package_fingerprint(), config_hasher.hash_compile_config(), kernel_info.filepath,
             kernel_info.function_name, function_hasher.hash_kernel(kernel_info), args_hash)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


__all__ = ["create_cache_key"]
