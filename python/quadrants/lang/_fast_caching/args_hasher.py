# python/quadrants/lang/_fast_caching/args_hasher.py: upstream's argument hasher, kernels/fastcache_args.py (which
# says what is fast-cacheable, and why fields are not although the translation cache caches kernels taking them).
from quadrants.kernels.fastcache_args import (
    FIELD_METADATA_CACHE_VALUE,
    FastcacheSkip,
    hash_args,
    stringify_obj_type,
)

__all__ = ["FIELD_METADATA_CACHE_VALUE", "FastcacheSkip", "hash_args", "stringify_obj_type"]
