# python/quadrants/lang/_fast_caching/python_side_cache.py: upstream's store of fast-cache records, one file per key
# (kernels/fastcache_records.py).
from quadrants.kernels.fastcache_records import PythonSideCache

__all__ = ["PythonSideCache"]
