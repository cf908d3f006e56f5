# python/quadrants/algorithms/device_wide.py: upstream's quadrants.algorithms, as far as it is built here: parallel_sort (a
# host-driven radix sort, algorithms/parallel_sort.py), the scratch sizing of the device-wide ops, and the composable sort
# as a compile-time error until it is written (on qd.simt's block intrinsics, as upstream's).
#
# Genesis imports `sort` and `sort_scratch_slots` at module level (genesis/engine/bvh.py) and calls them only for
# its device-wide radix sort, which it picks on GPUs; on the CPU it sorts with its own kernels.
from quadrants.algorithms.parallel_sort import parallel_sort
from quadrants.frontend.funcs import func
from quadrants.types.annotations import template

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


def _at_least_one(slots):
    """max(slots, 1): every *_scratch_slots result sizes an allocation, and zero-sized ones are illegal."""
    return slots + (slots < 1)


def _ceil_tiles(n):
    return (n + BLOCK_DIM - 1) // BLOCK_DIM


def _partials_slots(n, cursor):
    """cursor plus the partials of a recursive in-place scan of n values: each level of more than one tile stores
    one partial per tile, until a level fits in one tile."""
    tiles = _ceil_tiles(n)
    while tiles > 1:
        cursor += tiles
        tiles = _ceil_tiles(tiles)
    return cursor


def reduce_scratch_slots(n, log256_max_n=None):
    """The scratch slots reduce_{add,min,max} need for n values, as upstream computes them (at least 1).

    Each of the log256_max_n - 1 phases before the last stores one partial per tile of BLOCK_DIM; without
    log256_max_n the smallest depth that covers n.
    """
    if log256_max_n is None:
        log256_max_n = _min_log256_for_n(n)
    _validate_log256_max_n(log256_max_n)
    slots, live = 0, n
    for _ in range(log256_max_n - 1):
        live = _ceil_tiles(live)
        slots += live
    return _at_least_one(slots)


def exclusive_scan_scratch_slots(n, log256_max_n=None):
    """The scratch slots exclusive_scan_{add,min,max} need for n values, as upstream computes them (at least 1).

    One partial per tile of the input, then the partials of log256_max_n - 2 further levels; a depth of 1 scans a
    single tile with no scratch.
    """
    if log256_max_n is None:
        log256_max_n = _min_log256_for_n(n)
    _validate_log256_max_n(log256_max_n)
    if log256_max_n <= 1:
        return 1
    slots = live = _ceil_tiles(n)
    for _ in range(log256_max_n - 2):
        live = _ceil_tiles(live)
        slots += live
    return _at_least_one(slots)


def select_scratch_slots(n):
    """The u32 scratch slots select needs for n values (at least 1): n write indices, one count per tile, then
    the partials of scanning those counts."""
    if n <= 0:
        return 1
    tiles = _ceil_tiles(n)
    return _at_least_one(_partials_slots(tiles, n + tiles))


def reduce_by_key_scratch_slots(n):
    """The u32 scratch slots reduce_by_key_add needs for n values (at least 1): n run positions when they fit one
    tile, else the counts per tile after them and the partials of scanning those."""
    if n <= 0:
        return 1
    if n <= BLOCK_DIM:
        return n
    tiles = _ceil_tiles(n)
    return _partials_slots(tiles, n + tiles)


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
        "qd.algorithms.sort() is not supported yet: upstream's device-wide radix sort has not been written for "
        "quadrants (the qd.simt block intrinsics it is built on, shared arrays and barriers, are there). Use "
        "qd.algorithms.parallel_sort(keys, values) instead, or sort with a kernel of your own.")


@func
def sort(keys: template(), tmp_keys: template(), values: template(), tmp_values: template(), scratch: template(),
         n: template(), key_dtype: template(), has_values: template(), end_bit: template(),
         log256_max_n: template()):
    """Upstream's device-wide LSB radix sort (a @qd.func): here a compile-time NotImplementedError."""
    _sort_unsupported()  # a Python call on compile-time values: it runs, and raises, while the caller compiles


__all__ = ["exclusive_scan_scratch_slots", "parallel_sort", "reduce_by_key_scratch_slots", "reduce_scratch_slots",
           "select_scratch_slots", "sort", "sort_scratch_slots"]
