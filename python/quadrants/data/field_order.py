# python/quadrants/data/field_order.py: the memory order of a dense field's array (qd.field(order=...),
# qd.Layout.SOA, and the axis order of the dense SNodes a field is placed under).
#
# A field's array is always indexed in canonical order: outer dims, then element dims. Where memory holds the
# elements in another order, the array is allocated row-major in that order and everything uses a permuted
# view of it (Array.permuted, strides in canonical order). Kernels, copies, Python-scope access and DLPack
# exports already go through strides, so the order changes addresses and speed, never results.
#
# A memory order lists the array's dims from outermost to innermost in memory, canonical numbering.
from quadrants.base.errors import QuadrantsSyntaxError
from quadrants.runtime import _core, init as _runtime


def parse_order(order, ndim):
    """The outer axes of qd.field(order='ji'), outermost in memory first, checked with upstream's messages."""
    if len(order) != ndim:
        raise QuadrantsSyntaxError(f"The dimensionality of shape and order must be the same ({ndim} != "
                                   f"{len(order)})")
    if len(set(order)) != ndim:
        raise QuadrantsSyntaxError("The axes in order must be different")
    axes = []
    for ch in order:
        axis = ord(ch) - ord("i")
        if not 0 <= axis < ndim:
            raise QuadrantsSyntaxError(f"Invalid axis {ch}")
        axes.append(axis)
    return tuple(axes)


def order_string(axes):
    """qd.tensor's layout=(1, 0) as qd.field's order='ji'."""
    return "".join(chr(ord("i") + a) for a in axes)


def _source(field):
    """Whose options decide the order: a gradient or dual is laid out as its primal."""
    for attr in ("_grad_of", "_dual_of"):
        primal = getattr(field, attr, None)
        if primal is not None and primal() is not None:
            return primal()
    return field


def _outer_order(field):
    """The outer axes outermost first: order= where given, else the order of the axes on the field's dense path
    (root.dense(qd.j, n).dense(qd.i, m) is column-major). A path that splits an axis over several nodes is a blocked
    layout that no strides describe, and a sparse path has its own storage (field_layout.py): both stay row-major."""
    source = _source(field)
    ndim = len(field.shape)
    if getattr(source, "_qd_layout", None) is not None:
        return tuple(source._qd_layout)
    node = field._place_node
    if node is None or node._activity_path():
        return tuple(range(ndim))
    seen = []
    for ancestor in node._path():
        for axis in sorted(ancestor._axes):  # a node's own axes are row-major among themselves
            if axis in seen:
                return tuple(range(ndim))
            seen.append(axis)
    dims = node.dims
    return tuple(dims.index(axis) for axis in seen) if len(seen) == ndim else tuple(range(ndim))


def is_soa(field):
    """Whether the field's elements are laid out component by component (qd.Layout.SOA, or its primal's)."""
    return bool(getattr(_source(field), "_soa", False))


def memory_order(field):
    """The full memory order of a placed dense field's array, or None where it is the canonical row-major one."""
    outer = _outer_order(field)
    ndim, element_ndim = len(field.shape), len(field._element_shape)
    elements = tuple(range(ndim, ndim + element_ndim))
    order = elements + outer if is_soa(field) else outer + elements
    return None if order == tuple(range(ndim + element_ndim)) else order


def allocate(dtype, shape, element_shape, order, huge_pages):
    """A zeroed array of canonical shape `shape + element_shape` whose memory is row-major in `order` (huge_pages:
    see ArrayContainer)."""
    full = tuple(shape) + tuple(element_shape)
    physical = [full[d] for d in order]
    config = _runtime.config()
    if config.is_cuda:
        array = _core.cuda_array(dtype.name, physical, [], config.device_id)
    else:
        array = _core.Array.create(dtype.name, physical, [], huge_pages=huge_pages)
    inverse = [order.index(d) for d in range(len(full))]  # canonical dim d sits at memory position inverse[d]
    return array.permuted(inverse, len(element_shape))


def loop_axes(field):
    """The outer dims of a field from the largest stride to the smallest, so that a struct-for nests its loops in
    memory order (neighbouring iterations touch neighbouring elements); None where that is the canonical order, and
    for a pooled field, whose array is a pool of chunks (field_layout.py), and a quantized one (bitpacked.py), whose
    bits are in a word field: the canonical order, which is the words' (their nodes are row-major paths)."""
    layout = field._layout
    if (layout is not None and layout.pool is not None) or getattr(field, "_quant", None) is not None:
        return None
    strides = field._array.strides[:len(field.shape)]
    axes = tuple(sorted(range(len(strides)), key=lambda d: -abs(strides[d])))  # stable: ties keep their order
    return None if axes == tuple(range(len(strides))) else axes
