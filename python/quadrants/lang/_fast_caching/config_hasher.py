# python/quadrants/lang/_fast_caching/config_hasher.py: upstream's compile-config hasher, answered by the qd.init
# options the translation cache keys on (translation_cache.config_part).
"""`hash_compile_config()` hashes the options a translation reads: arch, default_fp, default_ip, debug,
fast_math, whether the target is CUDA, ad_stack_size, raise_on_templated_floats, check_out_of_bound. Options that
change no translation (random_seed, which is a field's value here; dump paths; runtime limits) are left out, as
from the cache key. It follows writes to qd.cfg after qd.init() (`qd.cfg.fast_math = True` changes it,
`qd.cfg.debug_dump_path = ...` does not), as the translation cache's key does."""
import hashlib

from quadrants.kernels.translation_cache import config_part
from quadrants.runtime import init as _runtime


def hash_compile_config():
    """The hex digest of the current qd.init()'s options that the translation cache keys on."""
    return hashlib.sha256(config_part(_runtime.config()).encode()).hexdigest()


__all__ = ["hash_compile_config"]
