# python/quadrants/lang/_kernel_types.py: upstream's module path for the kernel launch and cache records
# (kernels/launch_records.py).
from quadrants.kernels.launch_records import (  # noqa: F401
    ArgsHash,
    CompiledKernelKeyType,
    FeLlCacheObservations,
    KernelBatchedArgType,
    LaunchObservations,
    LaunchStats,
    SrcLlCacheObservations,
)
