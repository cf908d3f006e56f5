# python/quadrants/lang/_fast_caching/hash_utils.py: upstream's helper for hashing a sequence of strings
# (kernels/fastcache_args.py).
from quadrants.kernels.fastcache_args import hash_iterable_strings

__all__ = ["hash_iterable_strings"]
