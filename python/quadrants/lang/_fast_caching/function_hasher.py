# python/quadrants/lang/_fast_caching/function_hasher.py: upstream's digests of function sources in fast-cache
# records (kernels/fastcache_records.py, which says which lines a digest covers), and @qd.pure.
from quadrants.kernels.fastcache_records import hash_function as _hash_function
from quadrants.kernels.fastcache_records import hash_functions, validate_hashed_function_infos
from quadrants.kernels.fastcache_records import read_function_lines as _read_file
from quadrants.kernels.kernel import pure


def hash_kernel(kernel_info):
    """The digest of a kernel's source lines (the part of the fast-cache key its own source gives)."""
    return _hash_function(kernel_info)


__all__ = ["hash_functions", "hash_kernel", "pure", "validate_hashed_function_infos"]
