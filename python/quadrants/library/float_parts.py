# python/quadrants/library/float_parts.py: qd.frexp(x): a float's mantissa in [0.5, 1) (signed) and its exponent.
#
# Written with the vector ops, so it takes x's own float type (f32 or f64) without knowing it: the exponent comes
# from floor(log2|x|) + 1, corrected by one either way where log2 rounds across a power of two, and x is scaled by
# 2^-e in two halves, so that neither factor overflows for subnormal x. Every step is exact (powers of two), so
# the mantissa is x's own digits. Zero, infinities and NaN give (x, 0), as numpy's frexp does.
import numpy as _np

from quadrants.frontend.builtins import Builtin
from quadrants.frontend.values import VectorValue


def _python_frexp(x):
    mantissa, exponent = _np.frexp(x)
    return mantissa, exponent


def _frexp(ops, x):
    if isinstance(x, VectorValue):
        raise ops.tr.fail("qd.frexp() takes a scalar float, but got a vector or matrix", kind="type",
                          hint="call it on each entry.")
    keep = ops.tr.materialize_value
    x = keep(x)
    magnitude = keep(ops.un("abs", x))
    regular = keep(ops.bin("and", ops.bin("gt", magnitude, 0), ops.bin("lt", magnitude, float("inf"))))
    safe = keep(ops.select(regular, magnitude, 1.0))  # log2 of 0, inf or NaN is never taken
    exponent = keep(ops.bin("add", ops.cast("i32", ops.un("floor", ops.un("log2", safe))), 1))
    half = keep(ops.bin("floordiv", exponent, 2))

    def power_of_two(e):  # 2^e in x's own type: x * 0 - ... takes x's type by promotion
        return ops.un("exp2", ops.bin("add", ops.bin("mul", safe, 0), e))

    scaled = keep(ops.bin("mul", ops.bin("mul", safe, power_of_two(ops.un("neg", half))),
                          power_of_two(ops.un("neg", ops.bin("sub", exponent, half)))))
    too_big = keep(ops.bin("ge", scaled, 1.0))
    too_small = keep(ops.bin("lt", scaled, 0.5))
    scaled = ops.select(too_big, ops.bin("mul", scaled, 0.5), ops.select(too_small, ops.bin("mul", scaled, 2.0),
                                                                         scaled))
    exponent = ops.select(too_big, ops.bin("add", exponent, 1), ops.select(too_small, ops.bin("sub", exponent, 1),
                                                                           exponent))
    signed = ops.select(ops.bin("lt", x, 0), ops.un("neg", scaled), scaled)
    return ops.select(regular, signed, x), ops.select(regular, exponent, 0)


frexp = Builtin("frexp", _python_frexp, "composite", impl=_frexp)
frexp.__doc__ = ("frexp(x)\n\n``(mantissa, exponent)`` with ``x == mantissa * 2 ** exponent`` and ``0.5 <= "
                 "abs(mantissa) < 1``, for a scalar f32 or f64 in kernels (numpy.frexp in Python scope); 0, inf and "
                 "NaN give ``(x, 0)``.")

__all__ = ["frexp"]
