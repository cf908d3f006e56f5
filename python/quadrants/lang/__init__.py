# python/quadrants/lang/__init__.py: the kernel language: @qd.kernel, @qd.func, types, math and atomics.
from . import math, types
from .builtins import (
    abs,
    atan2,
    atomic_add,
    atomic_and,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    cast,
    ceil,
    cos,
    exp,
    floor,
    log,
    loop_config,
    max,
    min,
    ndrange,
    sin,
    sqrt,
    static,
    tan,
)
from .errors import QuadrantsCompilationError, QuadrantsSyntaxError, QuadrantsTypeError
from .kernels import func, kernel
from .types import template

__all__ = [
    "kernel", "func", "template", "static", "ndrange", "loop_config", "types", "math",
    "sqrt", "sin", "cos", "tan", "exp", "log", "abs", "floor", "ceil", "min", "max", "atan2", "cast",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "QuadrantsCompilationError", "QuadrantsSyntaxError", "QuadrantsTypeError",
]
