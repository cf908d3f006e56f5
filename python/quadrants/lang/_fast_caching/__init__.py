# python/quadrants/lang/_fast_caching/__init__.py: upstream's quadrants.lang._fast_caching, its fast cache's key and
# records, implemented in kernels/fastcache_args.py, fastcache_key.py and fastcache_records.py.
from quadrants.lang._fast_caching.args_hasher import FIELD_METADATA_CACHE_VALUE

__all__ = ["FIELD_METADATA_CACHE_VALUE"]
