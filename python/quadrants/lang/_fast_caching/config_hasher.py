# python/quadrants/lang/_fast_caching/config_hasher.py: upstream's hashes of the qd.init options and of the device's
# capabilities in the fast-cache key (kernels/fastcache_key.py). The options hash follows writes to qd.cfg after
# qd.init() (runtime/option_writes.py).
from quadrants.kernels.fastcache_key import EXCLUDED_OPTIONS as EXCLUDE_KEYS
from quadrants.kernels.fastcache_key import EXCLUDED_PREFIXES, hash_compile_config, hash_device_caps

EXCLUDE_PREFIXES = list(EXCLUDED_PREFIXES)

__all__ = ["EXCLUDE_KEYS", "EXCLUDE_PREFIXES", "hash_compile_config", "hash_device_caps"]
