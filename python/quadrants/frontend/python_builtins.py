# python/quadrants/frontend/python_builtins.py: Python's builtin pow(), bool() and round() called on kernel values.
#
# Upstream runs Python's own builtins on its expression objects: pow(a, b) is a ** b (Expr.__pow__, any type
# promotion and integer power included), bool(x) casts to u1, and round(x) fails, since its expressions define
# no __round__. abs/min/max/int/float map to qd built-ins and casts in calls.py.
import ast
import builtins as _py_builtins
from collections.abc import Iterable

from quadrants.frontend.values import is_runtime

NOT_HANDLED = object()


def python_builtin_call(tr, func, args, kwargs):
    """The kernel meaning of pow()/bool()/round() with a kernel value among `args`, or NOT_HANDLED."""
    if func is _py_builtins.pow:
        if kwargs or len(args) not in (2, 3):
            raise tr.fail(f"pow() takes 2 arguments, but got {len(args) + len(kwargs)}", kind="type")
        if len(args) == 3:  # upstream would drop the modulus silently
            raise tr.fail("pow(base, exp, mod) with a modulus is not supported on kernel values", kind="type",
                          hint="write (base ** exp) % mod.")
        return tr.binary_op(ast.Pow(), args[0], args[1])
    if func is _py_builtins.bool:
        tr.expect_arity(func, args, kwargs, 1)
        return tr.ops.cast("u1", tr.scalar_or_vector(args[0], "bool()"))
    if func is _py_builtins.round:
        raise tr.fail("round() cannot round a kernel value: type Expr doesn't define __round__ method", kind="type",
                      hint="use qd.round(x), which rounds halves away from zero and keeps x's type, or "
                      "qd.round(x, qd.i32) for an integer.")
    return NOT_HANDLED


def python_sum(tr, args, kwargs):
    """sum(items, start=0) where an item is a kernel value: start + items[0] + ..., the additions upstream's
    Expr.__add__/__radd__ make of Python's own sum(); NOT_HANDLED when every item is a compile-time value."""
    if not args or len(args) + len(kwargs) > 2 or set(kwargs) - {"start"}:
        return NOT_HANDLED  # Python's sum() raises its own TypeError
    items = args[0]
    if not isinstance(items, Iterable) or is_runtime(items):
        return NOT_HANDLED
    items = list(items)
    start = args[1] if len(args) == 2 else kwargs.get("start", 0)
    if not any(is_runtime(item) for item in items + [start]):
        return NOT_HANDLED
    total = start
    for item in items:
        total = tr.binary_op(ast.Add(), total, item)
    return total
