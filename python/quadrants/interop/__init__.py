# python/quadrants/interop/__init__.py: torch operators, autograd operators and hand-written C++ kernels over quadrants kernels.
"""Part of floor 8 of the package: quadrants kernels as parts of other systems. `qd.torch_op` registers a
function that calls kernels as a torch operator, `qd.autograd_op` turns a kernel into a torch operator whose
backward is the kernel's derived adjoint, and `qd.cpp_kernel` calls a hand-written C++ function through
the kernel launcher."""
