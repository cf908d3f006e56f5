# python/quadrants/data/ndarray_handle.py: ndarray.arr, upstream's handle of an ndarray's C++ allocation.
#
# Upstream programs and tests reach the allocation behind a qd.ndarray as `nd.arr` to compare or log device
# pointers and to read the allocated shape. Our ndarray's storage is a _core.Array; this handle answers the
# queries upstream's binding offers on it, read from that array each time (so it follows the ndarray's layout).


class NdarrayHandle:
    """The allocation of one ndarray: device_allocation_ptr(), total_shape(), element_shape() and sizes."""

    __slots__ = ("_ndarray",)

    def __init__(self, ndarray):
        self._ndarray = ndarray

    def device_allocation_ptr(self):
        """The address of the first element, in the ndarray's device memory (host memory on the CPU)."""
        return self._ndarray._array.data_ptr

    def total_shape(self):
        """The allocated shape (axes in memory order), then the element dims."""
        return list(self._ndarray._physical_shape) + list(self._ndarray._element_shape)

    def element_shape(self):
        return list(self._ndarray._element_shape)

    def element_size(self):
        """Bytes per element (all entries of a vector/matrix element)."""
        return self._ndarray._get_element_size()

    def nelement(self):
        return self._ndarray._get_nelement()

    @property
    def shape(self):
        return list(self._ndarray._physical_shape)

    @property
    def dtype(self):
        return self._ndarray.dtype

    def __eq__(self, other):
        return isinstance(other, NdarrayHandle) and other._ndarray is self._ndarray

    def __hash__(self):
        return id(self._ndarray)

    def __repr__(self):
        return f"<NdarrayHandle of {self._ndarray!r} at {self.device_allocation_ptr():#x}>"

