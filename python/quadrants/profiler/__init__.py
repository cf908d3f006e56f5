# python/quadrants/profiler/__init__.py: upstream's module path of qd.profiler, the kernel profiler
# (runtime/profiler.py).
"""`qd.profiler` (floor 9, upstream's module path): the kernel profiler of `quadrants.runtime.profiler`
re-exported: `print_kernel_profiler_info`, `query_kernel_profiler_info`, `get_kernel_profiler_total_time`,
`clear_kernel_profiler_info`, `set_kernel_profiler_toolkit` and `KernelProfilerQueryResult`."""
from quadrants.runtime.profiler import *  # noqa: F401,F403
