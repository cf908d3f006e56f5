# python/quadrants/library/simt/segmented.py: subgroup segmented reductions (qd.simt.subgroup.segmented_reduce_*).
#
# Lane i of a tile of 2**log2_size lanes gets op(v[h], ..., v[i]), h being the last lane <= i of its tile
# whose head_flag is nonzero (the tile's first lane when none is). The distance i - h comes from a max
# scan of the head lanes' positions; the values then go through the usual Hillis-Steele tree, each
# step taken only where the partner lies within the segment. Same results as upstream's ballot/clz form.
from quadrants.base.dtypes import i32
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.library.simt.reductions import (
    _bin_add,
    _bin_max,
    _bin_min,
    _inclusive_scan_tiled,
    _scan_up,
    invocation_id,
)
from quadrants.types.annotations import template


def _check_log2(log2_size, name):
    if not isinstance(log2_size, int) or not 0 <= log2_size <= 5:
        raise ValueError(f"qd.simt.subgroup.{name} needs log2_size to be an int in [0, 5] (tiles of up to the "
                         f"subgroup's 32 lanes), but got {log2_size!r}")
    return log2_size


@func
def _segmented_tiled(value, head_flag, op: template(), log2_size: template()):
    lane = invocation_id() & _b.static((1 << log2_size) - 1)
    head_lane = lane * _b.cast(head_flag != 0, i32)
    distance = lane - _inclusive_scan_tiled(head_lane, _bin_max, log2_size)  # lanes back to the segment's head
    return _scan_up(value, op, distance, log2_size)


@func
def segmented_reduce_add_tiled(value, head_flag, log2_size: template()):
    return _segmented_tiled(value, head_flag, _bin_add, _b.static(_check_log2(log2_size, "segmented_reduce_add_tiled")))


@func
def segmented_reduce_min_tiled(value, head_flag, log2_size: template()):
    return _segmented_tiled(value, head_flag, _bin_min, _b.static(_check_log2(log2_size, "segmented_reduce_min_tiled")))


@func
def segmented_reduce_max_tiled(value, head_flag, log2_size: template()):
    return _segmented_tiled(value, head_flag, _bin_max, _b.static(_check_log2(log2_size, "segmented_reduce_max_tiled")))


@func
def segmented_reduce_add(value, head_flag):
    return _segmented_tiled(value, head_flag, _bin_add, 5)


@func
def segmented_reduce_min(value, head_flag):
    return _segmented_tiled(value, head_flag, _bin_min, 5)


@func
def segmented_reduce_max(value, head_flag):
    return _segmented_tiled(value, head_flag, _bin_max, 5)
