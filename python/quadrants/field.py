# python/quadrants/field.py: qd.field and the vector/matrix fields behind qd.Vector.field / qd.Matrix.field.
from ._container import ArrayContainer, MatrixContainer


def _check_field_options(kwargs):
    allowed = {"name", "needs_grad", "order", "layout", "offset", "needs_dual"}
    unknown = set(kwargs) - allowed
    if unknown:
        raise TypeError(f"qd.field() got unexpected keyword argument(s): {', '.join(sorted(unknown))}.")
    if kwargs.get("needs_grad") or kwargs.get("needs_dual"):
        raise NotImplementedError("Fields with gradients (needs_grad=True) are not supported yet.")
    if kwargs.get("offset") or kwargs.get("order") not in (None, "", "ij"[: len(kwargs.get("order") or "")]):
        raise NotImplementedError("Field offsets and custom layouts are not supported yet.")


class Field(ArrayContainer):
    """A global array that kernels use directly (no argument needed); scalar elements."""

    _kind = "field"

    def __init__(self, dtype, shape, element_shape=(), **kwargs):
        _check_field_options(kwargs)
        self.name = kwargs.get("name")
        super().__init__(dtype, shape, element_shape)


class MatrixField(MatrixContainer, Field):
    """A field of vectors (element shape (n,)) or matrices (element shape (n, m))."""

    def __init__(self, dtype, shape, element_shape, **kwargs):
        super().__init__(dtype, shape, self._checked_element_shape(element_shape), **kwargs)

    def get_scalar_field(self, *indices):
        """Not supported yet: see the message."""
        raise NotImplementedError(
            "get_scalar_field() is not supported yet: kernels address a field as contiguous memory, so one "
            "component of a vector/matrix field cannot be a field of its own. Index the component inside the "
            "kernel (x[i][j]), or copy it out with x.to_numpy()[..., j]."
        )


def field(dtype, shape=None, **kwargs):
    """A field of scalars, qd.field(qd.f32, shape=(4, 4)), of vectors/matrices, qd.field(qd.math.vec3, shape=4),
    or of structs, qd.field(qd.types.struct(...), shape=4)."""
    from .lang.types import VectorType
    from .struct import StructType

    if isinstance(dtype, VectorType):
        return MatrixField(element_dtype(dtype), shape, dtype.shape, **kwargs)
    if isinstance(dtype, StructType):  # a struct field: one field per member (struct.py)
        return dtype.field(shape, **kwargs)
    return Field(dtype, shape, (), **kwargs)


def element_dtype(vector_type):
    """The scalar dtype of a qd.types.vector/matrix: Python's float (default_fp) where it has none."""
    return float if vector_type.dtype is None else vector_type.dtype
