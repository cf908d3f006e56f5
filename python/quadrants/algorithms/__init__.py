# python/quadrants/algorithms/__init__.py: qd.algorithms (upstream's path): parallel_sort, the scratch sizing of the
# device-wide ops, and the composable sort.
from quadrants.algorithms.device_wide import *  # noqa: F401,F403
from quadrants.algorithms.device_wide import BLOCK_DIM, RADIX_DIGITS  # noqa: F401
