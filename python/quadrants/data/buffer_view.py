# python/quadrants/data/buffer_view.py: qd.BufferView, a contiguous sub-range [offset, offset + size) of a 1-D
# ndarray, made in Python scope (arr[a:b], qd.BufferView(arr, offset, size), view[a:b]) and passed to kernels.
#
# A view holds no memory of its own: a kernel parameter annotated qd.BufferView receives the ndarray, the offset and
# the size as three runtime arguments read from the view at every call (kernels/definition.py), so views of one
# ndarray at different offsets share one compiled kernel. Inside kernels a view is a compile-time object of the
# frontend (frontend/buffer_views.py); this class is only ever seen in Python scope.
import operator

from quadrants.data.container import ArrayContainer
from quadrants.types.buffer_view_type import BufferViewType


class BufferView:
    """A view of the elements [offset, offset + size) of a 1-D qd.ndarray (scalar, vector or matrix elements).

    Made by slicing, ``data[8:24]``, or directly, ``qd.BufferView(data, offset=8, size=16)``; ``view[a:b]`` and
    ``view.subview(offset, size)`` narrow it (offsets relative to the view). A kernel parameter annotated
    ``qd.BufferView`` or ``qd.BufferView[qd.f32]`` takes one; there ``v[i]`` is element ``offset + i`` of the
    ndarray and ``v.size`` its length, checked against the view in debug mode.

    Attributes ``arr`` (the ndarray), ``offset`` and ``size`` (ints) are what a kernel call reads.
    """

    __slots__ = ("arr", "offset", "size")  # the names kernels read at every call (kernels/dispatch.py)

    def __class_getitem__(cls, dtype):
        """``qd.BufferView[qd.f32]`` (or ``[dtype, boundary]``): the annotation of a parameter taking a view."""
        return BufferViewType(*dtype) if isinstance(dtype, tuple) else BufferViewType(dtype)

    def __init__(self, arr, offset, size):
        arr = getattr(arr, "_unwrap", lambda: arr)()  # a qd.Tensor views what it wraps
        if isinstance(arr, BufferView):
            raise TypeError("qd.BufferView(view, ...) cannot view another view; narrow it with "
                            "view.subview(offset, size) or view[a:b] instead.")
        if not (isinstance(arr, ArrayContainer) and arr._kind == "ndarray"):
            raise TypeError(f"qd.BufferView views a qd.ndarray, but got {type(arr).__name__}.")
        if arr.grad is not None:
            raise TypeError("qd.BufferView does not support ndarrays with gradients (needs_grad=True).")
        if len(arr.shape) != 1:
            raise TypeError(f"qd.BufferView views a 1D ndarray, but this one has the shape {arr.shape}.")
        offset, size = _integer("offset", offset), _integer("size", size)
        if offset < 0 or size < 0 or offset + size > arr.shape[0]:
            raise ValueError(f"qd.BufferView out of range: offset={offset}, size={size}, but the ndarray's length "
                             f"is {arr.shape[0]} (a view needs 0 <= offset, 0 <= size, offset + size <= length).")
        self.arr = arr
        self.offset = offset
        self.size = size

    @property
    def shape(self):
        """The view's shape, ``(size,)``."""
        return (self.size,)

    def get_ndarray(self):
        """The ndarray this view looks into."""
        return self.arr

    def subview(self, offset, size):
        """The view of elements [offset, offset + size) of this view (an offset relative to this view's start)."""
        offset, size = _integer("offset", offset), _integer("size", size)
        if offset < 0 or size < 0 or offset + size > self.size:
            raise ValueError(f"qd.BufferView subview out of range: offset={offset}, size={size}, but the parent "
                             f"view's size is {self.size}.")
        return BufferView(self.arr, self.offset + offset, size)

    def __getitem__(self, key):
        """``view[a:b]``: a narrower view, as subview(); Python's rules for missing and negative bounds, step 1."""
        if not isinstance(key, slice):
            raise TypeError(f"a qd.BufferView is indexed with a slice in Python scope (view[a:b] makes a narrower "
                            f"view), but got {type(key).__name__}; read elements in a kernel, or through "
                            "view.get_ndarray().")
        start, size = slice_bounds(key, self.size)
        return self.subview(start, size)

    def __repr__(self):
        return f"<qd.BufferView offset={self.offset} size={self.size} of {self.arr!r}>"


def slice_bounds(key, length):
    """(start, size) of a Python-scope slice over `length` elements; a step other than 1 is a ValueError."""
    start, stop, step = key.indices(length)
    if step != 1:
        raise ValueError(f"a qd.BufferView slice needs step=1, but got step={step}.")
    return start, max(stop - start, 0)


def view_of_slice(arr, key):
    """``arr[a:b]`` of an ndarray: the qd.BufferView of those elements (ndarray.py calls it)."""
    if len(arr.shape) != 1:
        raise TypeError(f"slicing a qd.ndarray makes a qd.BufferView, which needs a 1D ndarray, but this one has the "
                        f"shape {arr.shape}.")
    start, size = slice_bounds(key, arr.shape[0])
    return BufferView(arr, start, size)


def _integer(name, value):
    try:
        return operator.index(value)  # ints, numpy ints, 0-d integer tensors; never a float
    except TypeError:
        raise TypeError(f"qd.BufferView's {name} must be an int, but got {value!r}.") from None


__all__ = ["BufferView"]
