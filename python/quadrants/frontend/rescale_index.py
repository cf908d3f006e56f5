# python/quadrants/frontend/rescale_index.py: qd.rescale_index(a, b, index), an index of one field or SNode as the
# index of the cell of another that holds it, inside kernels and in Python scope.
from quadrants.data.matrix import Vector
from quadrants.data.snode import SNode
from quadrants.frontend.builtins import Builtin
from quadrants.frontend.values import ArrayRef, VectorValue
from quadrants.frontend.vector_ops import describe


def _rescale(ops, a, b, index):
    tr = ops.tr
    shape_a, shape_b = _shape_of(tr, a), _shape_of(tr, b)
    parts = list(index.entries) if isinstance(index, VectorValue) else list(index)
    result = rescale(parts, shape_a, shape_b, lambda x, r: ops.bin("floordiv", x, r), lambda x, r: ops.bin("mul", x, r))
    return VectorValue(result, (len(result),))


def _shape_of(tr, value):
    if isinstance(value, ArrayRef) and value.static_shape is not None:
        return value.static_shape
    if isinstance(value, SNode):
        return value.shape
    raise tr.fail(f"qd.rescale_index() takes fields and SNodes, but got {describe(value)}", kind="type")


def rescale(parts, shape_a, shape_b, divide, multiply):
    """Index `parts` of a field/SNode of shape_a, as an index of one of shape_b (upstream's rule)."""
    result = list(parts)
    for k in range(min(len(parts), len(shape_a), len(shape_b))):
        if shape_a[k] > shape_b[k]:
            result[k] = divide(parts[k], shape_a[k] // shape_b[k])
        elif shape_a[k] < shape_b[k]:
            result[k] = multiply(parts[k], shape_b[k] // shape_a[k])
    return result


def _python_rescale(a, b, index):
    parts = [int(x) for x in (index.to_list() if hasattr(index, "to_list") else list(index))]
    return Vector(rescale(parts, a.shape, b.shape, lambda x, r: x // r, lambda x, r: x * r))


rescale_index = Builtin("rescale_index", _python_rescale, "composite", impl=_rescale, doc=(
    "rescale_index(a, b, index)\n\nindex, an index of field or SNode a, as the index of the cell of b that holds "
    "it: on each axis it is divided by shape_a / shape_b where a is finer and multiplied by shape_b / shape_a "
    "where a is coarser. Works inside kernels (a vector) and in Python scope (a qd.Vector)."))
