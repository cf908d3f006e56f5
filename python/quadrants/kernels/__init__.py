# python/quadrants/kernels/__init__.py: the kernels floor: @qd.kernel objects, their dispatch to the C++ launcher, checkpoints and pitfalls.
"""Floor 6 of the package: how a kernel is called. `@qd.kernel` objects (`kernel.py`), what the decorator
reads from a function and how a signature is compiled (`definition.py`), the Python dispatch of kernels
with template or dataclass parameters (`dispatch.py`), checkpointed graph kernels, the one-time warnings
about calls that work but are slow or wrong (`pitfalls.py`), and `@qd.perf_dispatch`. Its public names
are re-exported by `quadrants`."""
