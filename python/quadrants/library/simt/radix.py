# python/quadrants/lang/simt/radix.py: qd.simt.block.radix_rank_match_atomic_or, the rank step of a block radix sort.
#
# One key per thread, one thread per digit (block_dim == 1 << radix_bits). A thread's rank is where a
# stable counting sort of the block's keys by digit puts it: the keys with smaller digits, plus those
# with its digit in lower threads. Within a subgroup the threads with the same digit find each other
# with one ballot per digit bit (their "match" mask); each group's first lane records the group's size
# per (subgroup, digit) in shared memory; thread d then sums and prefix-scans column d, and a block scan
# of the digit counts gives each digit's start. Same results as upstream's (its shared-memory atomic-OR
# match is one way of finding the same groups).
from quadrants.base.dtypes import i32, u32
from quadrants.frontend import builtins as _b
from quadrants.kernels.kernel import func
from quadrants.types.annotations import template
from quadrants.library.simt import _ir
from quadrants.library.simt.block import SharedArray, exclusive_add, sync, thread_idx
from quadrants.library.simt.reductions import invocation_id

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
