# python/quadrants/frontend/literals.py: the rules for Python numbers that become typed kernel constants:
# `qd.u32(4294967295)` (a dtype called on one expression) and `b = 0x80000000` (a default_ip local).
#
# As upstream, a dtype called on a Python number makes a constant of that type, so the number must be of the
# type's kind and fit its range (casting between kinds is qd.cast's job); a dtype called on a kernel value
# casts it; compound values (vectors, matrices, structs) are rejected.
import numpy as np

from quadrants.base import dtypes as _dtypes
from quadrants.frontend.struct_values import is_struct
from quadrants.frontend.values import VectorValue


def _int_range(dtype):
    if dtype.name == "u1":
        return 0, 1
    info = np.iinfo(dtype.numpy)
    return int(info.min), int(info.max)


def _as_python_number(value):
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    return value


def primitive_type_call(tr, dtype, args, kwargs):
    """`qd.f32(x)` inside a kernel: a constant of that type for a Python number, else a cast of x."""
    if len(args) != 1 or kwargs:
        raise tr.fail("A primitive type can only decorate a single expression.",
                      hint="to convert several values, call the type on each; qd.cast(x, dtype) casts vectors.")
    value = _as_python_number(args[0])
    if isinstance(value, (VectorValue, list, tuple)) or is_struct(value):
        raise tr.fail("A primitive type cannot decorate an expression with a compound type.",
                      hint=f"use qd.cast(v, qd.{dtype.name}) to cast every entry of a vector or matrix.")
    if isinstance(value, float):
        if _dtypes.is_integral(dtype):
            raise tr.fail("Floating-point literals must be annotated with a floating-point type. For type casting, "
                          "use `qd.cast`.", kind="type")
    elif isinstance(value, int) and not isinstance(value, bool):
        if not _dtypes.is_integral(dtype):
            raise tr.fail("Integer literals must be annotated with a integer type. For type casting, use `qd.cast`.",
                          kind="type", hint=f"write the literal as a float, e.g. qd.{dtype.name}({value}.0).")
        low, high = _int_range(dtype)
        if not low <= value <= high:
            raise tr.fail(f"Integer literal {value} exceeded the range of specified dtype: {dtype.name}", kind="type",
                          hint=f"qd.{dtype.name} holds {low}..{high}.")
    return tr.ops.cast(dtype.name, tr.scalar_or_vector(value, "a cast"))


def check_default_int(tr, value):
    """A Python int that becomes a local of the default integer type must fit it, as upstream requires."""
    if not isinstance(value, int) or isinstance(value, bool):
        return
    default_ip = _dtypes.to_dtype(tr.default_ip)
    low, high = _int_range(default_ip)
    if not low <= value <= high:
        raise tr.fail(f"Integer literal {value} exceeded the range of default_ip: {default_ip.name}, please specify "
                      f"the dtype via e.g. `qd.u64({value})` or set a different `default_ip` in `qd.init()`",
                      kind="type")
