# python/quadrants/kernels/__init__.py: the kernels floor: @qd.kernel objects, their dispatch to the C++ launcher, checkpoints and pitfalls.
