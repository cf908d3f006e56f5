# python/quadrants/lang/_fast_caching/function_hasher.py: upstream's source hasher, answered by the digest the
# translation cache checks for every function a translation inlined (translation_inputs.source_fingerprint).
"""A function's hash is the digest of its lines (FunctionSourceInfo's start..end, 1-based, inclusive) as its file
holds them now: the digest a cached translation recorded for it, so `validate_hashed_function_infos` answers whether
a cached translation that inlined these functions would still be used. (Upstream's `_read_file` reads the lines one
after the range, 0-based; the range here is the one `_wrap_inspect.get_source_info_and_src` gives.)"""
import os

from quadrants.kernels.kernel import pure
from quadrants.kernels.translation_inputs import lines_digest, read_lines
from quadrants.lang._fast_caching.fast_caching_types import HashedFunctionSourceInfo


def _read_file(function_info):
    """The function's lines, with their newlines, from its file as it is now."""
    lines = read_lines(function_info.filepath)
    if not lines:
        raise OSError(f"Cannot read {function_info.filepath} for {function_info.function_name}.")
    selected = lines[function_info.start_lineno - 1:function_info.end_lineno]
    return [line.decode("utf-8") + "\n" for line in selected]


def _hash_function(function_info):
    lines = read_lines(function_info.filepath)
    if not lines:
        raise OSError(f"Cannot read {function_info.filepath} for {function_info.function_name}.")
    return lines_digest(lines, function_info.start_lineno, function_info.end_lineno)


def hash_kernel(kernel_info):
    """The digest of a kernel's source lines."""
    return _hash_function(kernel_info)


def hash_functions(function_infos):
    """[HashedFunctionSourceInfo] of each function's source lines now."""
    return [HashedFunctionSourceInfo(function_source_info=info, hash=_hash_function(info)) for info in function_infos]


def validate_hashed_function_infos(function_infos):
    """Whether every function's lines still have the digest recorded (False when a file is gone)."""
    for hashed in function_infos:
        info = hashed.function_source_info
        if not os.path.isfile(info.filepath) or _hash_function(info) != hashed.hash:
            return False
    return True


__all__ = ["hash_functions", "hash_kernel", "pure", "validate_hashed_function_infos"]
