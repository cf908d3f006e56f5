# python/quadrants/interop/__init__.py: torch operators, autograd operators and hand-written C++ kernels over quadrants kernels.
