# python/quadrants/data/ndarray_layout.py: the memory order of an ndarray (qd.tensor(..., layout=...), upstream's
# `_qd_layout` tag and quadrants._tensor._with_layout).
#
# As upstream, an ndarray in a layout is a row-major allocation of its *physical* shape (the canonical shape
# permuted by the layout, outermost in memory first), and tagging reinterprets that allocation: `shape` becomes the
# canonical shape. Here the tag replaces the container's array by a permuted view of the same memory
# (Array.permuted, as field_order.py does for fields), so kernels, copies, host indexing, DLPack exports and
# pickling see canonical indices through strides, and nothing else needs to know about layouts. The launcher reads
# only `_array`, so a tagged ndarray launches at the same cost as any strided array.


def checked_layout(layout, ndim, what="shape"):
    """layout as a tuple, checked to be a permutation of range(ndim) (upstream's ValueError messages)."""
    layout = tuple(layout)
    if len(layout) != ndim:
        raise ValueError(f"layout has {len(layout)} entries but {what} has {ndim} dimensions; they must match")
    if sorted(layout) != list(range(ndim)):
        raise ValueError(f"layout={layout!r} is not a permutation of range({ndim})")
    return layout


def is_identity(layout):
    return layout is None or tuple(layout) == tuple(range(len(layout)))


def physical_shape(shape, layout):
    """The row-major allocation's shape: the canonical extents outermost in memory first."""
    return tuple(shape) if layout is None else tuple(shape[axis] for axis in layout)


def _inverse(layout):
    """Where each canonical dim sits in memory: layout[inverse[d]] == d."""
    inverse = [0] * len(layout)
    for position, axis in enumerate(layout):
        inverse[axis] = position
    return inverse


def set_layout(ndarray, layout):
    """Tags `ndarray` with `layout` (None or the identity: untagged): its current physical memory, seen in canonical
    order. Gradient and dual twins follow, so that x.grad is indexed as x is."""
    old = ndarray._memory_layout
    ndim = len(ndarray.shape)
    layout = None if layout is None else checked_layout(layout, ndim, "ndarray")
    written = layout
    # The identity order changes no memory, but upstream keys an ndarray tagged with it apart from an untagged one
    # (its fast-cache key, its mapper's features), so the tag is remembered as written.
    ndarray._identity_tag = layout if layout is not None and is_identity(layout) else None
    if is_identity(layout):
        layout = None
    if layout != old:
        element_dims = list(range(ndim, ndim + len(ndarray._element_shape)))
        array = ndarray._array
        if old is not None:  # back to the row-major view of the allocation: physical dim p is canonical old[p]
            array = array.permuted(list(old) + element_dims, len(element_dims))
        shape = physical_shape(ndarray.shape, old) if old is not None else tuple(ndarray.shape)
        if layout is not None:
            array = array.permuted(_inverse(layout) + element_dims, len(element_dims))
            shape = tuple(shape[p] for p in _inverse(layout))
        ndarray._array, ndarray._shape, ndarray._memory_layout = array, shape, layout
    for twin in (ndarray.grad, ndarray.dual):
        if twin is not None and twin._qd_layout != written:
            set_layout(twin, written)
