# python/quadrants/library/simt/subgroup.py: qd.simt.subgroup: the 32 consecutive threads of a block that exchange values directly.
#
# The subgroup size is 32 on both backends (CUDA's warp; on the CPU the same 32 consecutive threads
# of a block), so a program sees the same lanes and the same numbers everywhere. An exchange with a
# lane that does not exist (shuffle_down past lane 31, a lane past the end of the block) gives the
# thread its own value, as CUDA's __shfl_*_sync do.

from quadrants.base.dtypes import i32, u32, u64
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.frontend.ir_builder import Expr
from quadrants.library.simt import _ir
from quadrants.library.simt.reductions import (
    _bin_add,
    _bin_and,
    _bin_max,
    _bin_min,
    _bin_mul,
    _bin_or,
    _bin_xor,
    _exclusive_add,
    _exclusive_and,
    _exclusive_identity,
    _exclusive_max,
    _exclusive_min,
    _exclusive_mul,
    _exclusive_or,
    _exclusive_scan_tiled,
    _exclusive_xor,
    _inclusive_scan_tiled,
    _reduce_all_tiled,
    _reduce_tiled,
    highest_of,
    invocation_id,
    lowest_of,
    shuffle,
    shuffle_down,
    shuffle_up,
    shuffle_xor,
)
from quadrants.types.annotations import template

sync = _ir._stmt_op("sync subgroup", "qd.simt.subgroup.sync")
mem_fence = _ir._stmt_op("fence subgroup", "qd.simt.subgroup.mem_fence")
_ballot32 = _ir._expr_op("ballot", "qd.simt.subgroup.ballot", 1, True)
_all = _ir._expr_op("all", "qd.simt.subgroup.all_true", 1, True)
_any = _ir._expr_op("any", "qd.simt.subgroup.any_true", 1, True)


def group_size():
    """Threads per subgroup: 32 on every backend of this implementation (a Python int, usable anywhere)."""
    return 32


def log2_group_size():
    return 5


barrier = _ir.deprecated(globals(), "barrier", "sync", sync)
memory_barrier = _ir.deprecated(globals(), "memory_barrier", "mem_fence", mem_fence)
# upstream's name from when ballot() gave a u32 of 32 lanes: the same u64 as ballot()
ballot_full_subgroup = _ir.deprecated(globals(), "ballot_full_subgroup", "ballot", _ballot32,
                                      wrap=lambda e: Expr(f"(cast u64 {e.text})", side_effect=True))


@func
def broadcast(value, index):
    return shuffle(value, index)


@func
def broadcast_first(value):
    return shuffle(value, 0)


@func
def elect():
    return _b.cast(invocation_id() == 0, i32)


@func
def ballot(predicate):
    """The lanes whose predicate is nonzero, one bit per lane, as a u64 (32 lanes: the high word is 0)."""
    return _b.cast(_ballot32(predicate), u64)


@func
def ballot_first_n(predicate, n: template()):
    """ballot() of lanes [0, n) as a u32."""
    p = predicate
    if _b.static(n < 32):
        p = predicate * (invocation_id() < n)
    return _ballot32(p)


@func
def all_true_tiled(predicate, log2_size: template()):
    p = predicate != 0
    if _b.static(log2_size == 5):
        p = _all(p)
    else:
        p = _reduce_all_tiled(_b.cast(p, i32), _bin_and, log2_size)
    return _b.cast(p, i32)


@func
def any_true_tiled(predicate, log2_size: template()):
    p = predicate != 0
    if _b.static(log2_size == 5):
        p = _any(p)
    else:
        p = _reduce_all_tiled(_b.cast(p, i32), _bin_or, log2_size)
    return _b.cast(p, i32)


@func
def all_equal_tiled(value, log2_size: template()):
    first = shuffle(value, invocation_id() & _b.static(~((1 << log2_size) - 1) & 31))
    return all_true_tiled(value == first, log2_size)


@func
def all_true(predicate):
    return all_true_tiled(predicate, 5)


@func
def any_true(predicate):
    return any_true_tiled(predicate, 5)


@func
def all_equal(value):
    return all_equal_tiled(value, 5)


@func
def lanemask_lt(lane_id):
    return (u32(1) << u32(lane_id)) - u32(1)


@func
def lanemask_le(lane_id):
    one = u32(1) << u32(lane_id)
    return one | (one - u32(1))


@func
def lanemask_eq(lane_id):
    return u32(1) << u32(lane_id)


@func
def lanemask_gt(lane_id):
    one = u32(1) << u32(lane_id)
    return ~(one | (one - u32(1)))


@func
def lanemask_ge(lane_id):
    return ~((u32(1) << u32(lane_id)) - u32(1))


def _tiled(name, op, kind):
    """A public `<name>_tiled(value, log2_size)` and `<name>(value)` pair over one of the generic trees."""

    if kind == "reduce":
        @func
        def tiled(value, log2_size: template()):
            return _reduce_tiled(value, op, log2_size)
    elif kind == "reduce_all":
        @func
        def tiled(value, log2_size: template()):
            return _reduce_all_tiled(value, op, log2_size)
    elif kind == "scan":
        @func
        def tiled(value, log2_size: template()):
            return _inclusive_scan_tiled(value, op, log2_size)
    else:  # "exclusive": op is the exclusive scan itself (its identity depends on the value's dtype)
        @func
        def tiled(value, log2_size: template()):
            return op(value, log2_size)

    @func
    def whole(value):
        return tiled(value, 5)

    tiled.__name__, whole.__name__ = name + "_tiled", name
    return tiled, whole


reduce_add_tiled, reduce_add = _tiled("reduce_add", _bin_add, "reduce")
reduce_min_tiled, reduce_min = _tiled("reduce_min", _bin_min, "reduce")
reduce_max_tiled, reduce_max = _tiled("reduce_max", _bin_max, "reduce")
reduce_all_add_tiled, reduce_all_add = _tiled("reduce_all_add", _bin_add, "reduce_all")
reduce_all_min_tiled, reduce_all_min = _tiled("reduce_all_min", _bin_min, "reduce_all")
reduce_all_max_tiled, reduce_all_max = _tiled("reduce_all_max", _bin_max, "reduce_all")
inclusive_add_tiled, inclusive_add = _tiled("inclusive_add", _bin_add, "scan")
inclusive_mul_tiled, inclusive_mul = _tiled("inclusive_mul", _bin_mul, "scan")
inclusive_min_tiled, inclusive_min = _tiled("inclusive_min", _bin_min, "scan")
inclusive_max_tiled, inclusive_max = _tiled("inclusive_max", _bin_max, "scan")
inclusive_and_tiled, inclusive_and = _tiled("inclusive_and", _bin_and, "scan")
inclusive_or_tiled, inclusive_or = _tiled("inclusive_or", _bin_or, "scan")
inclusive_xor_tiled, inclusive_xor = _tiled("inclusive_xor", _bin_xor, "scan")
exclusive_add_tiled, exclusive_add = _tiled("exclusive_add", _exclusive_add, "exclusive")
exclusive_mul_tiled, exclusive_mul = _tiled("exclusive_mul", _exclusive_mul, "exclusive")
exclusive_min_tiled, exclusive_min = _tiled("exclusive_min", _exclusive_min, "exclusive")
exclusive_max_tiled, exclusive_max = _tiled("exclusive_max", _exclusive_max, "exclusive")
exclusive_and_tiled, exclusive_and = _tiled("exclusive_and", _exclusive_and, "exclusive")
exclusive_or_tiled, exclusive_or = _tiled("exclusive_or", _exclusive_or, "exclusive")
exclusive_xor_tiled, exclusive_xor = _tiled("exclusive_xor", _exclusive_xor, "exclusive")


from quadrants.library.simt.segmented import (
    segmented_reduce_add,
    segmented_reduce_add_tiled,
    segmented_reduce_max,
    segmented_reduce_max_tiled,
    segmented_reduce_min,
    segmented_reduce_min_tiled,
)
from quadrants.library.simt.sorting import bitonic_sort_kv, bitonic_sort_kv_tiled  # noqa: E402,F401  re-exported
