# python/quadrants/library/simt/block.py: qd.simt.block: barriers, fences, shared arrays and thread indices of a block.
#
# A block is block_dim consecutive iterations of a kernel's parallel loop (qd.loop_config(block_dim=N),
# 128 when not given); on the CPU its threads run as fibers (src/codegen/runtime/qd_simt.h), on CUDA
# it is a CUDA block. The reductions and scans are written with subgroup shuffles and one shared slot
# per subgroup, so both backends compute them in the same order and give the same numbers.

from quadrants.base.dtypes import i32, u32
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.library.simt import _ir, subgroup
from quadrants.library.simt.reductions import (
    _bin_add,
    _bin_max,
    _bin_min,
    _exclusive_identity,
    _inclusive_scan_tiled,
    _reduce_tiled,
    invocation_id,
)
from quadrants.types.annotations import template

sync = _ir._stmt_op("sync block", "qd.simt.block.sync")
mem_fence = _ir._stmt_op("fence block", "qd.simt.block.mem_fence")
thread_idx = _ir._expr_op("thread_idx", "qd.simt.block.thread_idx", 0, False)
global_thread_idx = _ir._expr_op("global_thread_idx", "qd.simt.block.global_thread_idx", 0, False)
global_thread_idx.__doc__ = ("global_thread_idx()\n\nThe index of the running iteration of the enclosing parallel loop "
                             "across all blocks (block index * block_dim + thread index); qd.global_thread_idx() at the "
                             "top level too.")
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


# ---- radix_rank_match_atomic_or: the rank step of a block radix sort ----
#
# One key per thread, one thread per digit (block_dim == 1 << radix_bits). A thread's rank is where a
# stable counting sort of the block's keys by digit puts it: the keys with smaller digits, plus those
# with its digit in lower threads. Within a subgroup the threads with the same digit find each other
# with one ballot per digit bit (their "match" mask); each group's first lane records the group's size
# per (subgroup, digit) in shared memory; thread d then sums and prefix-scans column d, and a block scan
# of the digit counts gives each digit's start. Same results as upstream's (its shared-memory atomic-OR
# match is one way of finding the same groups).

_ballot32 = _ir._expr_op("ballot", "qd.simt.block.radix_rank_match_atomic_or", 1, True)


@func
def _popcount32(x):
    x = x - ((x >> u32(1)) & u32(0x55555555))
    x = (x & u32(0x33333333)) + ((x >> u32(2)) & u32(0x33333333))
    x = (x + (x >> u32(4))) & u32(0x0F0F0F0F)
    return _b.cast((x * u32(0x01010101)) >> u32(24), i32)


@func
def _same_digit_lanes(digit, num_bits: template()):
    """The lanes of this subgroup whose digit equals this thread's, as a u32 mask."""
    peers = _ballot32(1)
    for b in _b.static(range(num_bits)):
        bit = (digit >> b) & 1
        votes = _ballot32(bit)
        if bit == 0:
            votes = ~votes
        peers &= votes
    return peers


def _check(block_dim, radix_bits, num_bits):
    if not isinstance(radix_bits, int) or not 5 <= radix_bits <= 10 or block_dim != 1 << radix_bits:
        raise ValueError(f"qd.simt.block.radix_rank_match_atomic_or needs block_dim == 1 << radix_bits with "
                         f"radix_bits in [5, 10], but got block_dim={block_dim!r}, radix_bits={radix_bits!r}")
    if not isinstance(num_bits, int) or not 0 < num_bits <= radix_bits:
        raise ValueError(f"qd.simt.block.radix_rank_match_atomic_or needs 0 < num_bits <= radix_bits, but got "
                         f"num_bits={num_bits!r}")
    return block_dim // 32


@func
def radix_rank_match_atomic_or(key, block_dim: template(), radix_bits: template(), bit_start: template(),
                               num_bits: template(), bins: template(), excl_prefix: template()):
    """The thread's stable rank by digit (key >> bit_start) & ((1 << num_bits) - 1); fills bins[d] with
    the count of digit d and excl_prefix[d] with the counts of the digits below d (both visible to every
    thread on return)."""
    warps = _b.static(_check(block_dim, radix_bits, num_bits))
    counts = SharedArray((warps, block_dim), i32)  # per (subgroup, digit): group size, then its prefix
    tid = thread_idx()
    for w in range(warps):
        counts[w, tid] = 0
    sync()
    digit = _b.cast((_b.cast(key, u32) >> u32(bit_start)) & u32((1 << num_bits) - 1), i32)
    lane = invocation_id()
    peers = _same_digit_lanes(digit, num_bits)
    below = peers & ((u32(1) << u32(lane)) - u32(1))
    if below == u32(0):
        counts[tid // 32, digit] = _popcount32(peers)
    sync()
    total = 0
    for w in range(warps):
        here = counts[w, tid]
        counts[w, tid] = total
        total += here
    bins[tid] = total
    start = exclusive_add(total, block_dim, i32)
    excl_prefix[tid] = start
    sync()
    return excl_prefix[digit] + counts[tid // 32, digit] + _popcount32(below)
