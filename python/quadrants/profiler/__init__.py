# python/quadrants/profiler/__init__.py: upstream's module path of qd.profiler, the kernel profiler
# (runtime/profiler.py).
from quadrants.runtime.profiler import *  # noqa: F401,F403
