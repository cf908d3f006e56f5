# python/quadrants/data/snode_layout.py: upstream's SNode layout inspection (snode._cell_size_bytes,
# snode._offset_bytes_in_parent_cell): the bytes a cell of a node would take in upstream's memory layout.
#
# Upstream lays out a dense node's cell as a C struct of its children, in the order they were added: a field's
# scalar (a vector/matrix placed whole: its entries), or a child node's array of cells; each member is aligned to
# its own alignment (a scalar's size, a cell's largest member's) and the struct is padded to its largest. Storage
# here is one array per field (snode.py), so these numbers describe upstream's layout, not where the bytes are; a
# quantized field's word (data/bitpacked.py) is the word field placed beside its bit_struct or quant_array node,
# which add nothing of their own. Pointer, bitmasked and dynamic cells hold pointers, masks and lengths in
# upstream's layout that this one does not model, so nodes with them are refused.
import math

_SPARSE = ("pointer", "bitmasked", "dynamic")


def _refuse_sparse(node, what):
    if node._kind in _SPARSE:
        raise NotImplementedError(f"{what}: a {node._kind} SNode's cell in upstream's layout holds pointers, masks or "
                                  "lengths that quadrants does not model; only dense, place and quantized nodes are "
                                  "measured here.")


def _member(node, what):
    """(size, alignment) of `node` as a member of its parent's cell."""
    _refuse_sparse(node, what)
    if node._kind == "place":
        field = node._field
        if field is None or getattr(field, "_quant", None) is not None:  # a quantized field: bits of a word
            return 0, 1
        itemsize = field.dtype.numpy.itemsize
        return itemsize * math.prod(field._element_shape), itemsize
    if node._kind in ("bit_struct", "quant_array"):  # their word is a field placed beside them
        return 0, 1
    size, align = _cell(node, what)
    return size * math.prod(node._extents), align


def _cell(node, what):
    """(size, alignment) of one cell of `node`: the padded struct of its children."""
    _refuse_sparse(node, what)
    offset, align = 0, 1
    for child in node._children:
        size, child_align = _member(child, what)
        offset = -(-offset // child_align) * child_align
        offset += size
        align = max(align, child_align)
    return -(-offset // align) * align, align


def cell_size_bytes(node):
    """snode._cell_size_bytes: the bytes of one cell of `node` in upstream's layout (a field's place node: its
    element)."""
    if node._kind == "place":
        return _member(node, "_cell_size_bytes")[0]
    return _cell(node, "_cell_size_bytes")[0]


def offset_bytes_in_parent_cell(node):
    """snode._offset_bytes_in_parent_cell: where `node`'s member starts in a cell of its parent (0 for the root)."""
    parent = node._parent
    if parent is None:
        return 0
    _refuse_sparse(parent, "_offset_bytes_in_parent_cell")
    offset = 0
    for child in parent._children:
        size, align = _member(child, "_offset_bytes_in_parent_cell")
        offset = -(-offset // align) * align
        if child is node:
            return offset
        offset += size
    raise AssertionError("offset_bytes_in_parent_cell(): the node is not among its parent's children")
