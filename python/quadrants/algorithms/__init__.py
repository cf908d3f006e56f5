# python/quadrants/algorithms/__init__.py: qd.algorithms (upstream's path): parallel_sort, the scratch sizing of the
# device-wide ops, and the composable sort.
"""`qd.algorithms` (floor 8, upstream's module path): `parallel_sort`, a stable radix sort of a 1-D field or
ndarray of keys (and the values that travel with them), and the `*_scratch_slots` functions that size the
scratch space of upstream's device-wide operations. `sort`, upstream's composable device-wide sort, is
present for imports but raises NotImplementedError when a kernel that calls it compiles."""
from quadrants.algorithms.device_wide import *  # noqa: F401,F403
from quadrants.algorithms.device_wide import BLOCK_DIM, RADIX_DIGITS  # noqa: F401
