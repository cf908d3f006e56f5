# python/quadrants/lang/_perf_dispatch.py: upstream's module path for @qd.perf_dispatch. It is the same module
# object as quadrants.kernels.perf_dispatch (not a copy of its names), so that code patching module state here,
# as upstream's tests patch _FORCE_MAP, changes what the dispatchers read.
import sys

from quadrants.kernels import perf_dispatch as _implementation

sys.modules[__name__] = _implementation
