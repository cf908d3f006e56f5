# python/quadrants/types/__init__.py: `quadrants.types`, where upstream keeps it: the kernel language's
# types (annotations.py: ndarray, template, vector, matrix, ...), the dtypes, and the predicates.
"""`quadrants.types` (`qd.types`), floor 3 of the package and upstream's module path: the type objects of the
kernel language. Parameter annotations (`ndarray`, `template`, `ref`, `sparse_matrix_builder`), vector,
matrix and struct types (`vector`, `matrix`, `struct`), the dtypes again (`f32`, `float32`, ... as in
`primitive_types`), qd.BufferView's annotation `BufferViewType`, the predicates `is_real`, `is_integral` and
`is_signed`, and the submodules `annotations`, `buffer_view_type`, `enums` (`Layout`), `primitive_types`, `quant`
(quantized types: `quant.int`, `quant.fixed`, `quant.float`) and `unpacked`. It imports only the floors below it."""
from quadrants.base import dtypes as _dtypes
from quadrants.types import annotations, buffer_view_type, enums, primitive_types, quant, unpacked  # noqa: F401
from quadrants.types.annotations import *  # noqa: F401,F403
from quadrants.types.buffer_view_type import BufferViewType  # noqa: F401  qd.BufferView[dtype]'s annotation
from quadrants.types.primitive_types import *  # noqa: F401,F403  f32, float32, ...: upstream exports the dtypes here too

is_real = _dtypes.is_real
is_integral = _dtypes.is_integral
is_signed = _dtypes.is_signed


__all__ = annotations.__all__ + primitive_types.__all__ + ["BufferViewType", "is_real", "is_integral", "is_signed",
                                                          "primitive_types"]
