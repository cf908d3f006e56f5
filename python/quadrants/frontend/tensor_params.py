# python/quadrants/frontend/tensor_params.py: kernel parameters and dataclass members annotated qd.Tensor.
#
# Upstream's qd.Tensor annotation takes either container, decided by the value of each call: an ndarray
# (or any external array: numpy, torch, DLPack) is a runtime array parameter, as under
# qd.types.ndarray(), so a new array of the same dtype and rank reuses the compiled kernel; anything
# else (a field, a dataclass, a number) is a template value, as under qd.template(). A qd.Tensor
# wrapper is always looked through. The template key of such a slot is therefore ARRAY for arrays
# and the usual template key otherwise, and the translator turns an ARRAY slot into a leaf
# (compound_params.py) that every call reads from its argument again.
import numpy as np

from quadrants.data.field import Field
from quadrants.data.ndarray import Ndarray
from quadrants.data.tensor import is_tensor_annotation, unwrap  # noqa: F401  what kernels and funcs ask of qd.Tensor


class _ArraySlot:
    """The value of a qd.Tensor slot that holds an array: what the template key and the translator see."""

    __slots__ = ()

    def __repr__(self):
        return "qd.Tensor(array)"


ARRAY = _ArraySlot()

_ARRAY_TYPES = {Ndarray, np.ndarray}  # grows with each array type met (subclasses, torch.Tensor, ...)
_OTHER_TYPES = set()  # types met that are not arrays


def slot_value(value):
    """ARRAY for an array argument of a qd.Tensor slot, else the (unwrapped) template value."""
    value = unwrap(value)
    t = type(value)
    if t in _ARRAY_TYPES:
        return ARRAY
    if t in _OTHER_TYPES:
        return value
    if _is_array(value):
        _ARRAY_TYPES.add(t)
        return ARRAY
    if not isinstance(value, (int, float, bool)):  # numbers stay unmemoized: bool is an int
        _OTHER_TYPES.add(t)
    return value


def _is_array(value):
    if isinstance(value, Field):
        return False
    if isinstance(value, Ndarray) or isinstance(value, np.ndarray):
        return True
    t = type(value)
    return any(hasattr(t, name) for name in ("__dlpack__", "__cuda_array_interface__", "__array_interface__"))
