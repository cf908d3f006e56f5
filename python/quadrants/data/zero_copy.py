# python/quadrants/data/zero_copy.py: which containers lend their memory to to_torch/to_numpy(copy=False).
#
# Our storage could export a strided view of almost any dense container, but programs written for upstream
# Quadrants rely on where it refuses (copy=False raises ValueError, copy=None falls back to a copy), so the
# rule is upstream's, stated in terms of what the program declared rather than of our storage:
#   * the dtype is one upstream exports (f32, f64, i32, i64, u1), for fields and ndarrays alike;
#   * a field is not a 0-d scalar field;
#   * a field's cell holds its own components and nothing else. Upstream places each component of a vector or
#     matrix field as its own child of the dense node, so a field placed beside others (the members of an AoS
#     struct field, place(a, b)), one scalar component of a vector field, an SOA vector field (each component
#     in a node of its own) and one placed component by component are all refused.
from quadrants.base import dtypes as _dtypes
from quadrants.data.field_order import is_soa

_EXPORTED_DTYPES = frozenset({_dtypes.f32, _dtypes.f64, _dtypes.i32, _dtypes.i64, _dtypes.u1})


def components(node):
    """How many scalar components upstream's SNode tree puts under `node`: one per child, except a vector or matrix
    field placed as a whole, which upstream places as one child per entry (SNodeHandle.get_num_ch reports this)."""
    count = 0
    for child in node._children:
        field = child._field if child._kind == "place" else None
        count += _entries(field) if field is not None else 1
    return count


def _entries(field):
    count = 1
    for extent in field._element_shape:
        count *= extent
    return count


def refusal(container):
    """Why `container` has no zero-copy view under upstream's rule, or None where it has one."""
    if container.dtype not in _EXPORTED_DTYPES:
        return (f"dtype {container.dtype.name} is not exported without a copy (only "
                f"{', '.join(sorted(d.name for d in _EXPORTED_DTYPES))} are)")
    if container._kind != "field":
        return None
    if not container.shape and not container._element_shape:
        return "a 0-d scalar field is not exported without a copy"
    if getattr(container, "_composed", False):
        return "its components were placed one by one, each in a cell of its own"
    if is_soa(container):
        return "its components are laid out apart (qd.Layout.SOA)"
    node = container._place_node
    # qd.field(shape=()) places a 0-d field in the root here, upstream in a 0-d dense node of its own.
    cell = node._parent if node is not None and node._parent is not None and node._parent._kind != "root" else None
    if cell is not None and components(cell) != _entries(container):
        return ("its cell holds other components beside its own (a member of an AoS struct field, fields placed "
                "together, or one entry of a vector/matrix field)")
    return None
