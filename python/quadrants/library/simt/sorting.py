# python/quadrants/library/simt/sorting.py: sorts (key, value) pairs held one per lane (subgroup.bitonic_sort_kv*).
#
# A bitonic network over the 2**log2_size lanes of each tile, fully unrolled: stage s merges runs of
# 2**s lanes, its steps compare lanes d = 2**(s-1), ..., 1 apart through shuffle_xor. Pairs order by
# key, then by value (so equal keys come back in ascending value order, not in lane order, as
# upstream's). Each tile sorts ascending on its own.
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.library.simt.reductions import invocation_id, shuffle_xor
from quadrants.types.annotations import template


def _check_log2(log2_size):
    if not isinstance(log2_size, int) or not 0 <= log2_size <= 5:
        raise ValueError(f"qd.simt.subgroup.bitonic_sort_kv_tiled needs log2_size to be an int in [0, 5] (tiles of "
                         f"up to the subgroup's 32 lanes), but got {log2_size!r}")
    return log2_size


@func
def _compare_exchange(key, value, lane, stage: template(), step: template()):
    distance = _b.static(1 << step)
    other_key = shuffle_xor(key, distance)
    other_value = shuffle_xor(value, distance)
    # The lower lane of a pair keeps the smaller pair in an ascending run (bit `stage` of the lane clear).
    keep_smaller = ((lane >> stage) & 1) == ((lane >> step) & 1)
    other_first = other_key < key
    if other_key == key:
        other_first = other_value < value
    other_last = other_key > key
    if other_key == key:
        other_last = other_value > value
    take = other_last
    if keep_smaller:
        take = other_first
    if take:
        key = other_key
        value = other_value
    return key, value


@func
def bitonic_sort_kv_tiled(key, value, log2_size: template()):
    """Sorts each tile's (key, value) pairs ascending; lane i of the tile gets its i-th smallest pair."""
    lane = invocation_id() & _b.static((1 << _check_log2(log2_size)) - 1)
    for stage in _b.static(range(1, log2_size + 1)):
        for step in _b.static(range(stage - 1, -1, -1)):
            key, value = _compare_exchange(key, value, lane, stage, step)
    return key, value


@func
def bitonic_sort_kv(key, value):
    """bitonic_sort_kv_tiled() over the whole subgroup (32 lanes)."""
    return bitonic_sort_kv_tiled(key, value, 5)
