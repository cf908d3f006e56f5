# python/quadrants/lang/_fast_caching/src_hasher.py: upstream's fast-cache key of a kernel call and its records
# (kernels/fastcache_key.py says what the key holds and how kernels here report it; fastcache_records.py the records).
from quadrants.kernels import fastcache_key as _key
from quadrants.kernels.fastcache_key import SCHEMA as _CACHE_VALUE_SCHEMA_VERSION  # noqa: F401
from quadrants.kernels.fastcache_records import CacheValue, load, store
from quadrants.kernels.fastcache_records import intenum_member_qualname as _intenum_member_qualname  # noqa: F401
from quadrants.kernels.fastcache_records import resolve_intenum_member as _resolve_intenum_member  # noqa: F401
from quadrants.lang._fast_caching import config_hasher


def create_cache_key(raise_on_templated_floats, kernel_source_info, args, arg_metas):
    """The fast-cache key of a call, or None when an argument is not fast-cacheable. The option and device hashes
    are read through config_hasher, as upstream reads them (so that replacing them there changes the key)."""
    return _key.create_cache_key(raise_on_templated_floats, kernel_source_info, args, arg_metas,
                                 config_hash=config_hasher.hash_compile_config(),
                                 caps_hash=config_hasher.hash_device_caps())


__all__ = ["CacheValue", "create_cache_key", "load", "store"]
