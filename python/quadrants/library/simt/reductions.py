# python/quadrants/library/simt/reductions.py: subgroup reductions and scans built from shuffles (qd.simt.subgroup.*).
#
# The same shuffle trees as upstream's, so CPU and CUDA add in the same order: reduce_* fold with
# shuffle_down (result in lane 0 of each 2**log2_size tile), reduce_all_* with an xor butterfly (every
# lane), inclusive_* are Hillis-Steele scans with shuffle_up, exclusive_* shift the inclusive scan by one.
import numpy as np

from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.library.simt import _ir
from quadrants.types.annotations import scalar_dtype_name, template

shuffle = _ir._expr_op("shuffle", "qd.simt.subgroup.shuffle", 2, True)
shuffle_down = _ir._expr_op("shuffle_down", "qd.simt.subgroup.shuffle_down", 2, True)
shuffle_up = _ir._expr_op("shuffle_up", "qd.simt.subgroup.shuffle_up", 2, True)
shuffle_xor = _ir._expr_op("shuffle_xor", "qd.simt.subgroup.shuffle_xor", 2, True)
invocation_id = _ir._expr_op("lane", "qd.simt.subgroup.invocation_id", 0, False)
# The least / greatest value of the argument's type (-inf / inf for floats), fixed when the kernel is typed:
# the first lane's result of an exclusive min / max scan, whatever dtype the value has.
lowest_of = _ir._expr_op("lowest", "qd.simt.subgroup.lowest_of", 1, False)
highest_of = _ir._expr_op("highest", "qd.simt.subgroup.highest_of", 1, False)


@func
def _bin_add(a, b):
    return a + b


@func
def _bin_mul(a, b):
    return a * b


@func
def _bin_min(a, b):
    return _b.min(a, b)


@func
def _bin_max(a, b):
    return _b.max(a, b)


@func
def _bin_and(a, b):
    return a & b


@func
def _bin_or(a, b):
    return a | b


@func
def _bin_xor(a, b):
    return a ^ b


def _exclusive_identity(dtype, op):
    """The identity of min or max for a dtype, a Python number: +-inf for floats, the integer range's end."""
    name = scalar_dtype_name(dtype)
    if name.startswith("f"):
        return float("inf") if op == "min" else float("-inf")
    info = np.iinfo({"u1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                     "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}[name])
    return int(info.max) if op == "min" else int(info.min)


@func
def _reduce_tiled(value, op: template(), log2_size: template()):
    for i in _b.static(range(log2_size)):
        value = op(value, shuffle_down(value, _b.static(1 << (log2_size - 1 - i))))
    return value


@func
def _reduce_all_tiled(value, op: template(), log2_size: template()):
    for i in _b.static(range(log2_size)):
        value = op(value, shuffle_xor(value, _b.static(1 << i)))
    return value


@func
def _scan_up(value, op: template(), reach, log2_size: template()):
    """Hillis-Steele: op over this lane's value and those of up to `reach` lanes before it (reach < tile size)."""
    for i in _b.static(range(log2_size)):
        offset = _b.static(1 << i)
        up = shuffle_up(value, offset)
        if reach >= offset:
            value = op(up, value)
    return value


@func
def _inclusive_scan_tiled(value, op: template(), log2_size: template()):
    return _scan_up(value, op, invocation_id() & _b.static((1 << log2_size) - 1), log2_size)


@func
def _exclusive_scan_tiled(value, op: template(), identity, log2_size: template()):
    """Lane i of each tile gets op(v[first], ..., v[i - 1]); the tile's first lane gets `identity`."""
    inclusive = _inclusive_scan_tiled(value, op, log2_size)
    shifted = shuffle_up(inclusive, 1)
    if invocation_id() & _b.static((1 << log2_size) - 1) == 0:
        shifted = identity
    return shifted


@func
def _exclusive_add(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_add, value - value, log2_size)


@func
def _exclusive_mul(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_mul, value - value + 1, log2_size)


@func
def _exclusive_min(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_min, highest_of(value), log2_size)


@func
def _exclusive_max(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_max, lowest_of(value), log2_size)


@func
def _exclusive_and(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_and, ~(value ^ value), log2_size)


@func
def _exclusive_or(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_or, value ^ value, log2_size)


@func
def _exclusive_xor(value, log2_size: template()):
    return _exclusive_scan_tiled(value, _bin_xor, value ^ value, log2_size)
