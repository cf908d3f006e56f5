# python/quadrants/types/buffer_view_type.py: the annotation qd.BufferView[dtype] makes (upstream's module path).
from quadrants.types.annotations import NdarrayType


class BufferViewType:
    """The type of a kernel or @qd.func parameter that takes a qd.BufferView: `v: qd.BufferView[qd.f32]`.

    dtype: the element type (a scalar dtype or a vector/matrix type), or None to take the viewed ndarray's;
    boundary: "unsafe" or "clamp", as for qd.types.ndarray(). A kernel receives the view as its ndarray (1-D, checked
    against `ndarray_type` as an ndarray parameter is) plus the offset and size, read from the view at every call.
    """

    def __init__(self, dtype=None, boundary="unsafe"):
        self.dtype = dtype
        self.boundary = boundary
        self.ndarray_type = NdarrayType(dtype=dtype, ndim=1, boundary=boundary)

    def __repr__(self):
        return f"qd.BufferView[{getattr(self.dtype, 'name', self.dtype)}]"


__all__ = ["BufferViewType"]
