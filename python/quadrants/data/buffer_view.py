# python/quadrants/data/buffer_view.py: upstream's qd.BufferView (a sub-range [offset, offset + size) of a 1-D
# ndarray, passed to kernels as one argument), which quadrants does not have yet.
#
# Upstream lowers a view to its ndarray plus an offset added to every index, with bounds checks in debug mode.
# quadrants has no such kernel parameter kind yet, so constructing a view, slicing an ndarray into one and
# annotating a parameter with one all raise, naming the way to write the same program today.
_WHY = ("qd.BufferView (a view of a sub-range of a 1-D ndarray, passed to kernels) is not implemented in quadrants "
        "yet; pass the whole ndarray with the offset and size as int arguments and index arr[offset + i] instead")


class BufferView:
    """Upstream's view of a sub-range of a 1-D ndarray: not available in quadrants yet (see the module's head)."""

    def __class_getitem__(cls, dtype):
        raise NotImplementedError(f"qd.BufferView[{getattr(dtype, 'name', dtype)}] annotation: {_WHY}.")

    def __init__(self, arr=None, offset=0, size=0):
        raise NotImplementedError(f"qd.BufferView(...): {_WHY}.")


__all__ = ["BufferView"]
