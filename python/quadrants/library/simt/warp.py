# python/quadrants/library/simt/warp.py: qd.simt.warp, upstream's older CUDA-style names (shfl_down_f32, match_any, ...).
#
# Each takes CUDA's participation mask first. This implementation runs every exchange over the whole
# subgroup (the lanes of the block's warp), so the mask must be the full one, 0xFFFFFFFF, known at
# compile time (qd.u32(0xFFFFFFFF) or the int); any other mask is a compile-time error rather than
# silently ignored. Exchanges run on every backend, not only CUDA as upstream's.
import re

from quadrants.base.dtypes import f32, i32, u32
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.library.simt import _ir
from quadrants.library.simt.reductions import shuffle, shuffle_down, shuffle_up, shuffle_xor

_ballot32 = _ir._expr_op("ballot", "qd.simt.warp.ballot", 1, True)
_vote_all = _ir._expr_op("all", "qd.simt.warp.all_nonzero", 1, True)
_vote_any = _ir._expr_op("any", "qd.simt.warp.any_nonzero", 1, True)
_FULL = re.compile(r"^(\(cast u32 )?\(const (int|u32|i64|u64) (4294967295|-1)\)\)?$")


def _mask_check(ops, mask):
    text = str(mask) if isinstance(mask, int) else ops.text(ops.tr.scalar(mask, "a warp mask"))
    if not (mask in (0xFFFFFFFF, -1) if isinstance(mask, int) else _FULL.match(text)):
        raise ops.tr.fail("qd.simt.warp operations run over the whole warp here, so their mask must be "
                          f"0xFFFFFFFF known at compile time, but got {text}", kind="type")


def _masked(name, body):
    """qd.simt.warp.NAME(mask, *args): checks the mask where the call is written, then inlines body(*args)."""

    def impl(ops, mask, *args):
        _mask_check(ops, mask)
        return ops.tr.inline_func(body, list(args), {})

    return _b.Builtin(f"simt.warp.{name}", _b.kernel_only(f"simt.warp.{name}"), "composite", impl=impl)


def _sync_impl(ops, mask):
    _mask_check(ops, mask)
    if ops.tr.parallel_depth:
        ops.tr.builder.emit("sync subgroup")  # outside a parallel loop one thread runs: nothing to wait for


sync = _b.Builtin("simt.warp.sync", _b.kernel_only("simt.warp.sync"), "composite", impl=_sync_impl)


@func
def _all(predicate):
    return _vote_all(predicate)


@func
def _any(predicate):
    return _vote_any(predicate)


@func
def _unique(predicate):
    """1 when every lane's predicate is zero or every lane's is nonzero (CUDA's __uni_sync), else 0."""
    p = predicate != 0
    return _b.cast(_vote_all(p) | (1 - _vote_any(p)), i32)


@func
def ballot(predicate):
    return _ballot32(predicate)


def _shuffle_op(kind, dtype):
    """shfl_<kind>_<dtype>(mask, val, offset): val converted to dtype, then the subgroup shuffle."""
    target = {"sync": shuffle, "up": shuffle_up, "down": shuffle_down, "xor": shuffle_xor}[kind]

    @func
    def body(val, offset):
        return target(_b.cast(val, dtype), offset)

    return _masked(f"shfl_{kind}_{dtype.name}", body)


@func
def _match_any(value):
    """The lanes whose value equals this lane's, as a u32 (CUDA's __match_any_sync)."""
    same = u32(0)
    for lane in _b.static(range(32)):
        if shuffle(value, lane) == value:
            same |= u32(1 << lane)
    return same & _ballot32(1)


@func
def _match_all(value):
    """The warp's lanes as a u32 when all their values are equal, else 0 (CUDA's __match_all_sync)."""
    lanes = _ballot32(1)
    result = u32(0)
    if _vote_all(shuffle(value, 0) == value):
        result = lanes
    return result


@func
def active_mask():
    """The lanes of the calling thread's warp that run (CUDA's __activemask): the ones in the block."""
    return _ballot32(1)


all_nonzero = _masked("all_nonzero", _all)
any_nonzero = _masked("any_nonzero", _any)
unique = _masked("unique", _unique)
match_any = _masked("match_any", _match_any)
match_all = _masked("match_all", _match_all)
shfl_sync_i32 = _shuffle_op("sync", i32)
shfl_sync_f32 = _shuffle_op("sync", f32)
shfl_up_i32 = _shuffle_op("up", i32)
shfl_up_f32 = _shuffle_op("up", f32)
shfl_down_i32 = _shuffle_op("down", i32)
shfl_down_f32 = _shuffle_op("down", f32)
shfl_xor_i32 = _shuffle_op("xor", i32)
