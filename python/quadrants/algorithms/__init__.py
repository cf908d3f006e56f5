# python/quadrants/algorithms/__init__.py: qd.algorithms (upstream's path): parallel_sort, the composable device-wide
# operations and their scratch sizing, the composable sort, and the deprecated PrefixSumExecutor.
"""`qd.algorithms` (floor 8, upstream's module path): `parallel_sort`, a stable radix sort of a 1-D field or
ndarray of keys (and the values that travel with them); upstream's composable device-wide operations
`reduce_{add,min,max}`, `exclusive_scan_{add,min,max}`, `select` and `reduce_by_key_add` (@qd.func's called at the
top level of a kernel; serial passes here), with the `*_scratch_slots` functions that size their scratch; and the
deprecated `PrefixSumExecutor`. `sort`, upstream's composable device-wide sort, is present for imports but raises
NotImplementedError when a kernel that calls it compiles."""
from quadrants.algorithms.composable import *  # noqa: F401,F403
from quadrants.algorithms.device_wide import *  # noqa: F401,F403
from quadrants.algorithms.device_wide import BLOCK_DIM, RADIX_DIGITS  # noqa: F401
from quadrants.algorithms.prefix_sum import PrefixSumExecutor  # noqa: F401

# dir(qd.algorithms) lists upstream's names; these are reachable by attribute (the constants) and import path.
_NOT_LISTED = frozenset({"BLOCK_DIM", "RADIX_DIGITS", "composable", "device_wide", "prefix_sum"})


def __dir__():
    return sorted(set(globals()) - _NOT_LISTED)
