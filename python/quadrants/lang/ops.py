# python/quadrants/lang/ops.py: upstream's import path for the operators (`from quadrants.lang.ops import sqrt`).
#
# The operators are the Builtin objects of builtins.py; a name is looked up there when asked for, so
# operators added to builtins later are found here too.
import operator as _operator

from quadrants.frontend import builtins as _builtins

# Upstream's functions for the binary operators: Python's own, which kernels translate as the operator
# (calls.py) and which work on Python-scope values as they are.
add, sub, mul, truediv, floordiv, mod = (_operator.add, _operator.sub, _operator.mul, _operator.truediv,
                                         _operator.floordiv, _operator.mod)
matmul, bit_and, bit_or, bit_xor, bit_shl, bit_sar = (_operator.matmul, _operator.and_, _operator.or_,
                                                      _operator.xor, _operator.lshift, _operator.rshift)


def __getattr__(name):
    value = getattr(_builtins, name, None)
    if isinstance(value, _builtins.Builtin):
        return value
    raise AttributeError(f"module 'quadrants.lang.ops' has no attribute {name!r}")


def __dir__():
    operators = ["add", "sub", "mul", "truediv", "floordiv", "mod", "matmul", "bit_and", "bit_or", "bit_xor",
                 "bit_shl", "bit_sar"]
    return sorted(operators + [n for n, v in vars(_builtins).items() if isinstance(v, _builtins.Builtin)])
