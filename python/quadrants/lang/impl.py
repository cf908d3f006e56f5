# python/quadrants/lang/impl.py: upstream's quadrants.lang.impl: the runtime object (runtime/program.py),
# impl.call_internal, one of upstream's runtime functions called by name inside a kernel, impl.subscript(builder,
# x, *indices), upstream's x[indices] for Python helpers called from kernels (both frontend/extra_builtins.py),
# and qd_int/qd_float/qd_bool, the functions upstream maps Python's int()/float()/bool() to.
from quadrants.base.errors import QuadrantsSyntaxError  # noqa: F401  upstream's impl re-exports it
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.kernels.kernel import Kernel  # noqa: F401  the kernel object class (upstream's tests annotate with it)
from quadrants.runtime.program import (  # noqa: F401
    PyQuadrants,
    current_cfg,
    get_cuda_compute_capability,
    get_max_shared_memory_bytes,
    get_runtime,
    reset,
)

call_internal = Builtin("call_internal", kernel_only("lang.impl.call_internal"), "call_internal")


def _python_subscript(ast_builder, value, *indices):
    return value[indices[0] if len(indices) == 1 else indices]


subscript = Builtin("subscript", _python_subscript, "subscript")

# Upstream's kernels call these in place of Python's int(), float() and bool(); here the builtins themselves have that
# meaning on kernel values (frontend/calls.py, python_builtins.py), so the names are the builtins.
qd_int, qd_float, qd_bool = int, float, bool
