# python/quadrants/data/field_factory.py: qd.field(dtype, shape): the kind of field a dtype asks for.
from quadrants.base import registry
from quadrants.data.field import ScalarField, element_dtype
from quadrants.data.matrix_field import MatrixField
from quadrants.data.struct import StructType
from quadrants.data.struct_field import struct_field
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import VectorType


def field(dtype, shape=None, **kwargs):
    """A field of scalars, qd.field(qd.f32, shape=(4, 4)), of vectors/matrices, qd.field(qd.math.vec3, shape=4),
    or of structs, qd.field(qd.types.struct(...), shape=4). Without a shape it is placed later:
    qd.root.dense(qd.i, 4).place(x). Under qd.init(qd.python) it is a torch tensor (interop/python_backend.py)."""
    if _runtime.is_python_arch():
        return registry.get("python_backend").field(dtype, shape, **kwargs)
    if isinstance(dtype, VectorType):
        return MatrixField(element_dtype(dtype), shape, dtype.shape, **kwargs)
    if isinstance(dtype, StructType):  # one field per member (struct_field.py)
        return struct_field(dtype, shape, **kwargs)
    return ScalarField(dtype, shape, (), **kwargs)


registry.provide("field", field)  # vec3.field(...) of a qd.types.vector type (types/annotations.py)
