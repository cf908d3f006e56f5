# python/quadrants/_tensor.py: upstream's module path `quadrants._tensor`, for compatibility only.
#
# Programs and upstream's tests import qd.tensor's pieces from here. Each name is ours (data/tensor.py,
# ndarray_layout.py) under upstream's spelling; nothing here has behaviour of its own except _with_layout's checks.
from quadrants.data.field_order import order_string
from quadrants.data.ndarray import Ndarray
from quadrants.data.ndarray_layout import checked_layout, is_identity
from quadrants.data.tensor import (  # the same objects as qd.Backend, qd.Tensor, qd.tensor
    Backend,
    Tensor,
    matrix_tensor as _tensor_mat,  # noqa: F401  what qd.Matrix.tensor calls
    tensor,
    vector_tensor as _tensor_vec,  # noqa: F401  what qd.Vector.tensor calls
)

__all__ = ["Backend", "Tensor", "tensor"]


def _with_layout(ndarray, layout):
    """Tags an ndarray (or a qd.Tensor of one) allocated at its physical shape with `layout`: its memory, row-major
    in that shape, is then seen in canonical order, and `shape` is the canonical shape. The gradient and dual follow.
    Returns the bare ndarray, as upstream."""
    if isinstance(ndarray, Tensor):
        ndarray = ndarray._unwrap()
    if not isinstance(ndarray, Ndarray):
        raise TypeError(f"_with_layout() tags a qd.ndarray, but got {type(ndarray).__name__}; a field's memory order "
                        "is given when it is made: qd.field(..., order=...) or qd.tensor(..., layout=...).")
    ndarray._qd_layout = checked_layout(layout, len(ndarray.shape), "ndarray")
    return ndarray


def _layout_to_order(layout, ndim):
    """qd.tensor's layout=(1, 0) as qd.field's order='ji', checked; None for the identity (no order= needed)."""
    layout = checked_layout(layout, ndim)
    return None if is_identity(layout) else order_string(layout)
