# python/quadrants/types/__init__.py: `quadrants.types`, where upstream keeps it: the kernel language's
# types (quadrants.lang.types: ndarray, template, vector, matrix, ...), the dtypes, and the predicates.
#
# The annotations themselves live in quadrants.lang.types, which the kernel frontend owns; this package
# only gives them upstream's import path (`import quadrants.types.primitive_types`, `from quadrants.types
# import ndarray`). A name added there later is found through __getattr__ below.
import types as _python_types

from quadrants.base import dtypes as _dtypes
from quadrants.types import annotations as _lang_types
from quadrants.types import primitive_types
from quadrants.types.primitive_types import *  # noqa: F401,F403  f32, float32, ...: upstream exports the dtypes here too

for _name, _value in vars(_lang_types).items():
    if not _name.startswith("_") and not isinstance(_value, _python_types.ModuleType):
        globals()[_name] = _value

is_real = _dtypes.is_real
is_integral = _dtypes.is_integral
is_signed = _dtypes.is_signed
is_tensor = _dtypes.is_tensor


def __getattr__(name):
    return getattr(_lang_types, name)


def __dir__():
    return sorted(set(globals()) | set(dir(_lang_types)))


__all__ = sorted(n for n in globals() if not n.startswith("_") and n != "primitive_types") + ["primitive_types"]
