# python/quadrants/frontend/no_activate.py: qd.no_activate(*snodes), which stops a kernel's stores from activating
# sparse cells.
#
# As upstream, it holds for the whole kernel: a store to (or atomic update of) an element of a field under one of
# the named pointer, bitmasked or dynamic SNodes does not activate that SNode's cell; where the cell is inactive
# the write is dropped (stmts.array_target guards the ArrayTarget, targets.py). qd.activate() and qd.append()
# still activate. Naming a field or a dense SNode changes nothing, as upstream, where such a node has no
# activation to skip. A store translated before the call has activated its cells already, so the call must come
# before the kernel's first store to those fields.
from quadrants.data.snode import SNode
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.sparse_access import FieldRef
from quadrants.frontend.struct_values import StructField
from quadrants.frontend.vector_ops import describe


def _no_activate(ops, *nodes):
    tr = ops.tr
    for node in nodes:
        if isinstance(node, (FieldRef, StructField)):
            continue  # its place node: nothing to activate
        if not isinstance(node, SNode):
            raise tr.fail(f"qd.no_activate() takes SNodes (or fields), but got {describe(node)}", kind="type",
                          hint="pass the sparse SNode whose cells the kernel must not activate, e.g. x.parent().")
        if node in tr.activated_snodes:
            raise tr.fail("qd.no_activate() comes after a store of this kernel that activates cells of that SNode",
                          hint="call qd.no_activate() at the start of the kernel, before the stores it should cover.")
        tr.no_activate_snodes.add(node)


def store_guard(tr, conditions):
    """The IR text of a local holding whether every one of `conditions` holds (the cells are active), or None."""
    if not conditions:
        return None
    guard = conditions[0]
    for condition in conditions[1:]:
        guard = tr.ops.bin("and", guard, condition)
    name = tr.names.fresh("_qd_cell_active")
    tr.builder.emit(f"decl {name} i32 {tr.ops.text(guard)}")
    return f"(var {name})"


no_activate = Builtin("no_activate", kernel_only("no_activate"), "composite", impl=_no_activate)
no_activate.__doc__ = """no_activate(*snodes)

In a kernel: the kernel's stores and atomic updates to
elements under these pointer, bitmasked or dynamic SNodes leave their inactive cells inactive (the write is
dropped there).

Args:
    snodes: the sparse SNodes (fields are accepted and change nothing, as upstream).
"""
