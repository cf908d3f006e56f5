# python/quadrants/lang/_fast_caching/fast_caching_types.py: upstream's record of a function's source place and
# digest (kernels/fastcache_records.py).
from quadrants.kernels.fastcache_records import HashedFunctionSourceInfo

__all__ = ["HashedFunctionSourceInfo"]
