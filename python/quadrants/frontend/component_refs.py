# python/quadrants/frontend/component_refs.py: a vector/matrix field whose components were placed one by one, in kernels.
#
# Such a field (field_components.py) has no array of its own: each entry is a scalar field. Inside a kernel it
# is a ComponentsRef, a FieldRef that stands for its first member (so loops, qd.grouped, x.shape and
# sparse iteration see the members' shared shape and activity) and knows every member: reading `v[I]` gives
# the vector of the members' loads at I, writing it stores to each member (exprs.py, stmts.py), so a
# runtime entry index picks among them with selects, as for any vector value (dynamic_index.py).
from quadrants.data.field_components import all_members, composed_shape
from quadrants.frontend.sparse_access import FieldRef
from quadrants.frontend.targets import VectorTarget
from quadrants.frontend.values import VectorValue


class ComponentsRef(FieldRef):
    """The members' FieldRefs, in element order, with the vector/matrix element shape."""

    __slots__ = ("members",)


def components_ref(tr, field, py_name, label):
    """The ComponentsRef of a composed field; its members become globals like any field."""
    try:
        composed_shape(field)
    except RuntimeError as exc:
        raise tr.fail(str(exc), kind="type") from None
    base = py_name or "_v"
    members = [tr.global_array(m, f"{base}_{'_'.join(map(str, m._element_index))}", label)
               for m in all_members(field)]
    first = members[0]
    ref = ComponentsRef(first.name, first.dtype_name, first.ndim, field._element_shape,
                        static_shape=first.static_shape, label=label or base)
    ref.field = first.field
    ref.members = members
    return ref


def members_element(tr, ref, index):
    """`v[I]`: the vector of the members' entries at I."""
    return VectorValue([tr.array_element(m, index) for m in ref.members], ref.element_shape)


def members_target(tr, ref, index):
    """`v[I] = ...`: a target per member (stores activate sparse cells as any field's do)."""
    return VectorTarget([tr.array_target(m, index) for m in ref.members], ref.element_shape)
