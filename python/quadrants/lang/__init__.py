# python/quadrants/lang/__init__.py: upstream's quadrants.lang: the kernel language's names (@qd.kernel, @qd.func, types,
# math, atomics), star-exported into quadrants too, and upstream's module paths under it.
"""`quadrants.lang` (floor 9), upstream's module path of the kernel language: `kernel`, `func`,
`data_oriented`, `template`, the built-ins (`static`, `ndrange`, `sqrt`, `atomic_add`, `cast`, `random`, ...),
`Struct` and `dataclass`, `simt` and `math`, re-exported from the floors that define them. `quadrants`
star-imports `__all__`. Its submodules (`impl`, `ops`, `exception`, `field`, `matrix`, `misc`, `util`, ...)
keep upstream's import paths working for programs written against upstream."""
from quadrants import types
from quadrants.base.errors import QuadrantsCompilationError, QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.frontend.builtins import (
    abs,
    acos,
    asin,
    atan,
    atan2,
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_exchange,
    atomic_max,
    atomic_min,
    atomic_mul,
    atomic_or,
    atomic_sub,
    atomic_xor,
    bit_cast,
    bit_shr,
    block_local,
    cast,
    ceil,
    cos,
    exp,
    floor,
    grouped,
    log,
    loop_config,
    max,
    min,
    ndrange,
    pow,
    randn,
    random,
    raw_div,
    raw_mod,
    round,
    rsqrt,
    select,
    sin,
    sqrt,
    static,
    static_assert,
    static_print,
    stop_grad,
    tan,
    tanh,
    volatile_load,
)
from quadrants.lang import kernel as _kernel_module  # noqa: F401  before `kernel` is bound: see lang/kernel.py
from quadrants.frontend.data_oriented import data_oriented
from quadrants.frontend.funcs import func
from quadrants.kernels.kernel import kernel, pure
from quadrants.kernels.perf_dispatch import perf_dispatch
from quadrants.lang import (  # noqa: F401  upstream's paths under qd.lang
    _ndrange,  # qd.lang._ndrange
    field,  # qd.lang.field
    kernel_impl,  # qd.lang.kernel_impl: the decorators, and Kernel's per-call steps that programs replace
    matrix,  # qd.lang.matrix
    simt,  # qd.simt: block, subgroup and grid operations
    util,  # qd.lang.util: upstream's helpers (to_numpy_type, has_pytorch)
)
from quadrants.lang.misc import amdgpu, cpu, cuda, gpu, metal, vulkan  # noqa: F401  upstream imports arch names from qd.lang
from quadrants.lang.struct import Struct, StructField, dataclass
from quadrants.library import math
from quadrants.library.math_bits import one, zero  # qd.zero(x) / qd.one(x): x's shape and type, filled
from quadrants.library.simt.tile import outer  # noqa: E402  qd.outer(a, b): a rank-1 update of a qd.simt tile
from quadrants.types.annotations import ref, template

__all__ = [
    "simt", "outer",
    "kernel", "func", "data_oriented", "template", "ref", "static", "ndrange", "grouped", "loop_config", "types",
    "perf_dispatch", "zero", "one",
    "static_assert", "static_print",
    "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "tanh", "exp", "log", "pow", "abs", "floor",
    "ceil", "round", "min", "max", "atan2", "select", "cast", "bit_cast", "bit_shr", "random", "randn",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_mul", "atomic_exchange", "atomic_cas", "raw_div", "raw_mod",
    "stop_grad", "volatile_load", "block_local", "pure",
    "QuadrantsCompilationError", "QuadrantsSyntaxError", "QuadrantsTypeError",
    "Struct", "StructField", "dataclass",
]
