# python/quadrants/lang/ops.py: upstream's import path for the operators (`from quadrants.lang.ops import sqrt`).
#
# The operators are the Builtin objects of builtins.py; a name is looked up there when asked for, so
# operators added to builtins later are found here too.
from . import builtins as _builtins


def __getattr__(name):
    value = getattr(_builtins, name, None)
    if isinstance(value, _builtins.Builtin):
        return value
    raise AttributeError(f"module 'quadrants.lang.ops' has no attribute {name!r}")


def __dir__():
    return sorted(n for n, v in vars(_builtins).items() if isinstance(v, _builtins.Builtin))
