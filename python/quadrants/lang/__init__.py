# python/quadrants/lang/__init__.py: the kernel language: @qd.kernel, @qd.func, types, math and atomics.
from quadrants.library import math
from quadrants.types import annotations as types
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
    block_local,
    bit_shr,
    random,
    randn,
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
from quadrants.kernels.data_oriented import data_oriented
from quadrants.lang.misc import amdgpu, cpu, cuda, gpu, metal, vulkan  # noqa: F401  upstream imports arch names from qd.lang
from quadrants.base.errors import QuadrantsCompilationError, QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.kernels.kernel import func, kernel, pure
from quadrants.library.math_bits import one, zero  # qd.zero(x) / qd.one(x): x's shape and type, filled
from quadrants.kernels.perf_dispatch import perf_dispatch
from quadrants.lang.struct import Struct, StructField, dataclass
from quadrants.types.annotations import ref, template
from quadrants.lang import util  # noqa: E402  qd.lang.util: upstream's helpers (to_numpy_type, has_pytorch)
from quadrants.lang import simt  # noqa: E402  qd.simt: block, subgroup and grid operations
from quadrants.library.simt.tile import outer  # noqa: E402  qd.outer(a, b): a rank-1 update of a qd.simt tile

__all__ = [
    "simt", "outer",
    "kernel", "func", "data_oriented", "template", "ref", "static", "ndrange", "grouped", "loop_config", "types", "math",
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

# Upstream's module paths under qd.lang that programs reach as attributes (qd.lang.matrix.Matrix): loaded on
# first use, since they import the containers, which import this package.
_COMPAT_SUBMODULES = ("field", "matrix", "_ndrange")


def __getattr__(name):
    if name in _COMPAT_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
