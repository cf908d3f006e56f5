# python/quadrants/frontend/field_address.py: qd.get_addr(f, indices), the address of a field element in a kernel.
#
# The IR has no pointers, so the address is folded here: a dense field's storage never moves while it lives
# (it is allocated once, when placed, and freed only with its SNode tree or by qd.reset(), after which no
# kernel can use it), so its base address and strides are compile-time constants of the specialization that
# reads them. The address is base + sum(index * stride in bytes) over the canonical indices, offsets
# subtracted, as a u64: it follows the memory order of order= and qd.Layout.SOA (field_order.py).
# The base address differs between processes, so such a kernel is compiled again in each one (the disk
# cache is keyed by the generated source); this is a debugging and layout-inspection aid, not a hot path.
from quadrants.data.snode import SNode
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.sparse_access import FieldRef, _index_parts, shift_indices
from quadrants.frontend.vector_ops import describe


def _get_addr(ops, field, indices):
    tr = ops.tr
    if isinstance(field, SNode):
        field = _place_node_field(tr, field)
    if not isinstance(field, FieldRef):
        raise tr.fail(f"qd.get_addr() takes a field as its first argument, but got {describe(field)}", kind="type")
    container = field.field
    if field.pool is not None:  # elsewhere sparse fields keep a dense array beside their activity masks
        raise tr.fail(f"qd.get_addr(): {container._describe()} lives under a pointer SNode whose cells get memory "
                      "from a pool as they are activated, so its elements have no fixed address", kind="type")
    parts = shift_indices(tr, field, _index_parts(tr, indices, field.ndim, "get_addr"))
    array = container._array
    tr.reads.uncacheable("qd.get_addr() folds this process's address into the IR")  # another process's differs
    itemsize = container.dtype.numpy.itemsize
    address = Expr(f"(const u64 {array.data_ptr})")  # a vector/matrix field's element starts at its entry 0
    for part, stride in zip(parts, array.strides):
        offset = ops.bin("mul", ops.cast("i64", part), Expr(f"(const i64 {stride * itemsize})"))
        address = ops.bin("add", address, ops.cast("u64", offset))  # a negative offset wraps, as a pointer would
    return address


def _place_node_field(tr, snode):
    """The field of a place SNode (x.snode), whose element addresses are the field's, as upstream's."""
    if snode._kind != "place" or snode._field is None:
        raise tr.fail(f"qd.get_addr() takes a field or its place SNode (x.snode), but got a {snode._kind} SNode",
                      kind="type", hint="upstream gives the address of an interior SNode's cell, where the fields "
                      "placed in it lie side by side; here each field keeps its own array, so such a cell has no "
                      "one address. Ask for a field's element instead.")
    return tr.global_array(snode._field)


get_addr = Builtin("get_addr", kernel_only("get_addr"), "composite", impl=_get_addr, doc=(
    "get_addr(f, indices)\n\nThe memory address (a u64) of the element f[indices] of a field, inside kernels: the "
    "field's base address plus each index times its stride in bytes, following order= and qd.Layout.SOA, with "
    "the field's offset subtracted. A place SNode (f.snode) stands for its field. The base address is a "
    "constant of the compiled kernel, so a kernel calling it compiles again in each process. A field under a "
    "pointer SNode whose cells take memory from a pool has no fixed address: a compile error. Inside kernels "
    "only: in Python scope it raises RuntimeError."))
