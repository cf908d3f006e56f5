# python/quadrants/algorithms.py: upstream's quadrants.algorithms, as far as it is built here: the radix sort's
# scratch sizing, and its sort as a compile-time error until block-level intrinsics (qd.simt) exist.
#
# Genesis imports `sort` and `sort_scratch_slots` at module level (genesis/engine/bvh.py) and calls them only for
# its device-wide radix sort, which it picks on GPUs; on the CPU it sorts with its own kernels.
from .lang.kernels import func
from .lang.types import template

BLOCK_DIM = 256  # threads per block of upstream's device-wide reduce, scan and sort kernels
RADIX_DIGITS = 256  # buckets per radix pass (8 bits)
_MAX_LOG256_MAX_N = 4  # 256 ** 4 == 2 ** 32 covers every i32-indexed tensor


def _validate_log256_max_n(log256_max_n):
    if log256_max_n > _MAX_LOG256_MAX_N:
        raise ValueError(
            f"log256_max_n={log256_max_n} exceeds the maximum of {_MAX_LOG256_MAX_N}. Quadrants tensors are indexed "
            f"by signed 32-bit integers, so they hold at most 2**31 - 1 elements; BLOCK_DIM ** {_MAX_LOG256_MAX_N} "
            f"== 256 ** {_MAX_LOG256_MAX_N} == 2**32 already covers that range, so a larger depth can never address "
            f"a valid tensor."
        )


def _min_log256_for_n(n):
    """The smallest depth D >= 1 with 256**D >= n."""
    depth, cap = 1, RADIX_DIGITS
    while cap < n:
        cap *= RADIX_DIGITS
        depth += 1
    return depth


def sort_scratch_slots(n, log256_max_n=None):
    """The u32 scratch slots sort() needs for n keys, as upstream computes them (at least 1).

    One histogram of RADIX_DIGITS slots per block of BLOCK_DIM keys, then the partials of log256_max_n - 1 scan
    levels; without log256_max_n the smallest depth that covers n.
    """
    if log256_max_n is None:
        log256_max_n = _min_log256_for_n(n)
    _validate_log256_max_n(log256_max_n)
    partials = hist_len = (n + BLOCK_DIM - 1) // BLOCK_DIM * RADIX_DIGITS
    cursor = hist_len
    for _ in range(log256_max_n - 1):
        partials = (partials + BLOCK_DIM - 1) // BLOCK_DIM
        cursor = cursor + partials
    return cursor + (cursor < 1)


def _sort_unsupported():
    raise NotImplementedError(
        "qd.algorithms.sort() is not supported yet: upstream's device-wide radix sort is built on qd.simt block "
        "intrinsics (shared memory and barriers), which quadrants lacks. Sort with a kernel of your own instead.")


@func
def sort(keys: template(), tmp_keys: template(), values: template(), tmp_values: template(), scratch: template(),
         n: template(), key_dtype: template(), has_values: template(), end_bit: template(),
         log256_max_n: template()):
    """Upstream's device-wide LSB radix sort (a @qd.func): here a compile-time NotImplementedError."""
    _sort_unsupported()  # a Python call on compile-time values: it runs, and raises, while the caller compiles


__all__ = ["sort", "sort_scratch_slots"]
