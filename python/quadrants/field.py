# python/quadrants/field.py: qd.field and the vector/matrix fields behind qd.Vector.field / qd.Matrix.field.
import numbers

from ._container import ArrayContainer


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


class MatrixField(Field):
    """A field of vectors (element shape (n,)) or matrices (element shape (n, m))."""

    def __init__(self, dtype, shape, element_shape, **kwargs):
        for e in element_shape:
            if not isinstance(e, numbers.Integral) or e <= 0:
                raise ValueError(f"Vector/matrix dimensions must be positive ints, but got {element_shape}.")
        super().__init__(dtype, shape, tuple(int(e) for e in element_shape), **kwargs)

    @property
    def n(self):
        return self._element_shape[0]

    @property
    def m(self):
        return self._element_shape[1] if len(self._element_shape) == 2 else 1

    def _export_shape(self, keep_dims):
        # Quadrants: a matrix with one column (vectors included) exports as (..., n) unless keep_dims,
        # which gives (..., n, m) for every matrix field, vectors as (..., n, 1).
        if self.m == 1:
            return self.shape + ((self.n, 1) if keep_dims else (self.n,))
        return self._numpy_shape

    def _expand(self, arr):
        if self.m == 1 and tuple(arr.shape) in (self._export_shape(True), self._export_shape(False)):
            return arr.reshape(self._numpy_shape)
        return arr


def field(dtype, shape=None, **kwargs):
    """A field of scalars: qd.field(qd.f32, shape=(4, 4))."""
    return Field(dtype, shape, (), **kwargs)
