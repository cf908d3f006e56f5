# python/quadrants/lang/simt/block.py: qd.simt.block: barriers, fences, shared arrays and thread indices of a block.
#
# A block is block_dim consecutive iterations of a kernel's parallel loop (qd.loop_config(block_dim=N),
# 128 when not given); on the CPU its threads run as fibers (src/codegen/runtime/qd_simt.h), on CUDA
# it is a CUDA block. The reductions and scans are written with subgroup shuffles and one shared slot
# per subgroup, so both backends compute them in the same order and give the same numbers.

from quadrants.frontend import builtins as _b
from quadrants.types.annotations import template
from quadrants.kernels.kernel import func
from quadrants.library.simt import _ir, subgroup
from quadrants.library.simt.reductions import (
    _bin_add,
    _bin_max,
    _bin_min,
    _exclusive_identity,
    _inclusive_scan_tiled,
    _reduce_tiled,
)

sync = _ir._stmt_op("sync block", "qd.simt.block.sync")
mem_fence = _ir._stmt_op("fence block", "qd.simt.block.mem_fence")
thread_idx = _ir._expr_op("thread_idx", "qd.simt.block.thread_idx", 0, False)
global_thread_idx = _ir._expr_op("global_thread_idx", "qd.simt.block.global_thread_idx", 0, False)
sync_all_nonzero = _ir._expr_op("sync_all", "qd.simt.block.sync_all_nonzero", 1, True)
sync_any_nonzero = _ir._expr_op("sync_any", "qd.simt.block.sync_any_nonzero", 1, True)
sync_count_nonzero = _ir._expr_op("sync_count", "qd.simt.block.sync_count_nonzero", 1, True)
SharedArray = _ir.shared_array


mem_sync = _ir.deprecated(globals(), "mem_sync", "mem_fence", mem_fence)


def _check_block_dim(block_dim):
    size = subgroup.group_size()
    if not isinstance(block_dim, int) or block_dim < size or block_dim % size:
        raise ValueError(f"qd.simt.block reductions and scans need block_dim to be a positive multiple of the "
                         f"subgroup size {size}, but got {block_dim!r}")
    return block_dim // size


@func
def reduce(value, block_dim: template(), op: template(), dtype: template()):
    """op over the block, valid in thread 0: a shuffle tree per subgroup, then thread 0 folds the subgroups."""
    n = _b.static(_check_block_dim(block_dim))
    result = _reduce_tiled(value, op, 5)
    if _b.static(n > 1):
        shared = SharedArray((n,), dtype)
        tid = thread_idx()
        if tid % 32 == 0:
            shared[tid // 32] = result
        sync()
        if tid == 0:
            result = shared[0]
            for w in range(1, n):
                result = op(result, shared[w])
    return result


@func
def reduce_all(value, block_dim: template(), op: template(), dtype: template()):
    """reduce(), broadcast to every thread through one shared slot."""
    result = reduce(value, block_dim, op, dtype)
    slot = SharedArray((1,), dtype)
    if thread_idx() == 0:
        slot[0] = result
    sync()
    return slot[0]


@func
def inclusive_scan(value, block_dim: template(), op: template(), dtype: template()):
    """Thread i gets op(v[0], ..., v[i]): a subgroup scan, then the totals of the subgroups before it."""
    n = _b.static(_check_block_dim(block_dim))
    result = _inclusive_scan_tiled(value, op, 5)
    if _b.static(n > 1):
        totals = SharedArray((n,), dtype)
        tid = thread_idx()
        if tid % 32 == 31:
            totals[tid // 32] = result
        sync()
        warp = tid // 32
        if warp > 0:
            prefix = totals[0]
            for w in range(1, n - 1):
                if w < warp:
                    prefix = op(prefix, totals[w])
            result = op(prefix, result)
    return result


@func
def exclusive_scan(value, block_dim: template(), op: template(), identity: template(), dtype: template()):
    """Thread i gets op(v[0], ..., v[i-1]); thread 0 gets identity."""
    inclusive = inclusive_scan(value, block_dim, op, dtype)
    n = _b.static(_check_block_dim(block_dim))
    shifted = subgroup.shuffle_up(inclusive, 1)
    tid = thread_idx()
    if _b.static(n > 1):
        totals = SharedArray((n,), dtype)
        if tid % 32 == 31:
            totals[tid // 32] = inclusive
        sync()
        if tid % 32 == 0 and tid > 0:
            shifted = totals[tid // 32 - 1]
    if tid == 0:
        shifted = identity
    return shifted


@func
def reduce_add(value, block_dim: template(), dtype: template()):
    return reduce(value, block_dim, _bin_add, dtype)


@func
def reduce_min(value, block_dim: template(), dtype: template()):
    return reduce(value, block_dim, _bin_min, dtype)


@func
def reduce_max(value, block_dim: template(), dtype: template()):
    return reduce(value, block_dim, _bin_max, dtype)


@func
def reduce_all_add(value, block_dim: template(), dtype: template()):
    return reduce_all(value, block_dim, _bin_add, dtype)


@func
def reduce_all_min(value, block_dim: template(), dtype: template()):
    return reduce_all(value, block_dim, _bin_min, dtype)


@func
def reduce_all_max(value, block_dim: template(), dtype: template()):
    return reduce_all(value, block_dim, _bin_max, dtype)


@func
def inclusive_add(value, block_dim: template(), dtype: template()):
    return inclusive_scan(value, block_dim, _bin_add, dtype)


@func
def inclusive_min(value, block_dim: template(), dtype: template()):
    return inclusive_scan(value, block_dim, _bin_min, dtype)


@func
def inclusive_max(value, block_dim: template(), dtype: template()):
    return inclusive_scan(value, block_dim, _bin_max, dtype)


@func
def exclusive_add(value, block_dim: template(), dtype: template()):
    return exclusive_scan(value, block_dim, _bin_add, 0, dtype)


@func
def exclusive_min(value, block_dim: template(), dtype: template()):
    return exclusive_scan(value, block_dim, _bin_min, _exclusive_identity(dtype, "min"), dtype)


@func
def exclusive_max(value, block_dim: template(), dtype: template()):
    return exclusive_scan(value, block_dim, _bin_max, _exclusive_identity(dtype, "max"), dtype)


from quadrants.library.simt.radix import radix_rank_match_atomic_or  # noqa: E402,F401  re-exported: it uses this module's ops
