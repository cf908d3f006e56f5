# python/quadrants/lang/_fast_caching/__init__.py: upstream's quadrants.lang._fast_caching, its fast cache's hashers,
# answered here by the translation cache (kernels/translation_cache.py): each module hashes what that cache keys on
# or checks, never a cache of its own.
from quadrants.lang._fast_caching.args_hasher import FIELD_METADATA_CACHE_VALUE

__all__ = ["FIELD_METADATA_CACHE_VALUE"]
