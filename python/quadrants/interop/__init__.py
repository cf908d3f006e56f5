# python/quadrants/interop/__init__.py: torch operators, autograd operators and hand-written C++ kernels over quadrants kernels.
"""Part of floor 8 of the package: quadrants kernels as parts of other systems. `qd.torch_op` registers a
function that calls kernels as a torch operator, `qd.autograd_op` turns a kernel into a torch operator whose
backward is the kernel's derived adjoint, and `qd.cpp_kernel` calls a hand-written C++ function through
the kernel launcher."""
from quadrants.interop._torch_mps import get_mps_command_queue  # noqa: F401  upstream's; always 0 here (no Metal)

# dir(qd.interop) lists upstream's names; the submodules behind qd.torch_op, qd.autograd_op, qd.cpp_kernel and
# qd.init(qd.python) are quadrants' own, reached by their import paths.
_QUADRANTS_ONLY = frozenset({"autograd_op", "cpp_kernels", "torch_ops", "python_backend", "py_tensor",
                             "python_struct_field"})


def __dir__():
    return sorted(set(globals()) - _QUADRANTS_ONLY)
