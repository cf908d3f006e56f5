# python/quadrants/data/field_components.py: get_scalar_field(): one entry of a vector/matrix field as a scalar field.
#
# A vector/matrix field placed as a whole keeps one array with the element dims last; its component (i, j) is a
# ScalarField over a strided view of that array (Array.component), so writes through either are seen by both,
# in kernels and in Python scope. Its layout (offsets, sparse activity) is the parent's.
#
# A field made without a shape can instead have its components placed one by one, as upstream allows
# (`qd.root.dense(qd.i, 8).place(v.get_scalar_field(0))`): the vector field is then "composed" of n*m scalar
# fields, each its own array. Python scope gathers and scatters through them; kernels see a ComponentsRef
# (frontend/exprs.py) whose elements are vectors of the members' loads and stores. Its members must end up with
# one shape; upstream checks that when the program materializes (check_composed_fields, from impl.py).
import numbers
import weakref

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data.field import NoStorage, ScalarField
from quadrants.data.field_layout import FieldLayout
from quadrants.runtime import init as _runtime

_composed = weakref.WeakSet()  # vector/matrix fields with a member placed on its own


class ComponentField(ScalarField):
    """The scalar field of entry `element_index` of every element of the vector/matrix field `parent`."""

    def __init__(self, parent, element_index):
        self._parent = parent
        self._element_index = tuple(element_index)
        name = f"{parent.name}[{', '.join(map(str, element_index))}]" if parent.name else None
        super().__init__(parent.dtype, None, (), _twin=True, name=name)
        # A component of a quantized vector is packed on its own, with its entry's own type where they differ.
        entry_quants = parent._entry_quants
        self._quant_type = entry_quants[self._element_index] if entry_quants is not None else parent._quant_type
        if parent._place_node is not None:
            self._bind_to_parent()

    def _bind_to_parent(self):
        """A view of the parent's storage, under its SNode and layout (the parent is placed as a whole)."""
        parent = self._parent
        self._place_node, self._shape = parent._place_node, parent.shape
        if parent._layout is not None:
            self._layout = FieldLayout(self, parent._place_node, parent._layout.offset)
        self._attach_storage()

    def _attach_storage(self):
        parent_array = self._parent._array
        if isinstance(parent_array, NoStorage):
            self._array = parent_array
            return
        self._array = parent_array.component(list(self._element_index))
        _runtime.track(self)

    def _describe(self):
        return f"component {self._element_index} of {self._parent._describe()}"

    def _place(self, node, offset):
        parent = self._parent
        if parent._place_node is not None:
            raise QuadrantsRuntimeError(f"{self._describe()} is a component of a field that is placed already; "
                                        "place either the whole field or each of its components, not both.")
        super()._place(node, offset)
        _composed.add(parent)
        shapes = [m.shape for m in all_members(parent)]
        if all(shape == shapes[0] for shape in shapes):
            parent._shape = shapes[0]  # every member placed, in one shape: the field's shape


def scalar_field_of(field, indices):
    """field.get_scalar_field(*indices): the same ComponentField object for the same entry."""
    if len(indices) not in (1, 2) or not all(isinstance(k, numbers.Integral) and not isinstance(k, bool)
                                             for k in indices):
        raise TypeError(f"get_scalar_field() takes one or two int indices (i, or i, j), but got {indices!r}.")
    i, j = int(indices[0]), int(indices[1]) if len(indices) == 2 else 0
    if not (0 <= i < field.n and 0 <= j < field.m):
        raise IndexError(f"get_scalar_field({', '.join(map(str, indices))}) is out of range for elements of shape "
                         f"{field._element_shape}.")
    element_index = (i,) if len(field._element_shape) == 1 else (i, j)
    members = field.__dict__.setdefault("_members", {})
    if element_index not in members:
        members[element_index] = ComponentField(field, element_index)
    return members[element_index]


def all_members(field):
    """Every ComponentField of a composed field, in element order (row-major)."""
    return [scalar_field_of(field, e) for e in np.ndindex(*field._element_shape)]


def is_composed(field):
    """Whether a vector/matrix field's components were placed one by one (it has no array of its own)."""
    return field in _composed


def check_placed_whole(field):
    """Before a vector/matrix field is placed as a whole: none of its components may be placed on its own."""
    if is_composed(field):
        raise QuadrantsRuntimeError(f"{field._describe()} has components placed on their own (get_scalar_field()); "
                                    "place either the whole field or each of its components, not both.")


def bind_members(field):
    """After the parent is placed (or allocated): its components become views of its storage."""
    for member in field.__dict__.get("_members", {}).values():
        if member.shape is None:
            member._bind_to_parent()
        else:
            member._attach_storage()


def member_shapes(field):
    shapes = []
    for member in all_members(field):
        if member.shape is None:
            raise QuadrantsRuntimeError(f"Component {member._element_index} of {field._describe()} is not placed; "
                                        "place every component (get_scalar_field()) before using the field.")
        shapes.append(member.shape)
    return shapes


@registry.on_reset
def forget_composed_fields():
    """qd.reset(): fields of the old runtime are no longer checked (a traceback may still hold one)."""
    _composed.clear()


def check_composed_fields():
    """Every composed field's members have one shape (upstream's check when the program materializes)."""
    for field in list(_composed):
        shapes = [m.shape for m in all_members(field) if m.shape is not None]
        if any(shape != shapes[0] for shape in shapes):
            raise QuadrantsRuntimeError(f"Members of the following field have different shapes {shapes}: "
                                        f"{field._describe()}. Place every component in nodes of one shape.")


def composed_shape(field):
    """The common shape of a composed field's members, after checking that each is placed and that they agree."""
    shapes = member_shapes(field)
    if any(shape != shapes[0] for shape in shapes):
        raise QuadrantsRuntimeError(f"Members of the following field have different shapes {shapes}: "
                                    f"{field._describe()}.")
    return shapes[0]


class MemberArrays:
    """The `_array` of a composed field for Python-scope element access (element_ref): index = outer + entry."""

    def __init__(self, field):
        self._field = field
        self._rank = len(field._element_shape)

    def _member(self, index):
        return scalar_field_of(self._field, tuple(index[len(index) - self._rank:])), index[:len(index) - self._rank]

    def get(self, index):
        member, outer = self._member(index)
        return member[tuple(outer)]

    def set(self, index, value):
        member, outer = self._member(index)
        member[tuple(outer)] = value

    def __getattr__(self, name):
        raise QuadrantsRuntimeError(f"{self._field._describe()} has its components placed one by one, so it has no "
                                    f"array of its own ({name}); use its components (get_scalar_field()).")


def composed_to_numpy(field, dtype, keep_dims):
    members = all_members(field)
    shape = composed_shape(field)
    parts = [m.to_numpy(dtype) for m in members]
    data = np.stack(parts, axis=-1).reshape(shape + field._element_shape)
    if field.m != 1:  # _export_shape would ask for the array a composed field does not have
        return data
    return data.reshape(field._export_shape(keep_dims))


def composed_from_numpy(field, arr):
    shape = composed_shape(field)
    values = np.asarray(arr)
    if field.m == 1 and values.shape == shape + (field.n, 1):
        values = values.reshape(shape + (field.n,))
    if values.shape != shape + field._element_shape:
        raise ValueError(f"from_numpy(): expected an array of shape {shape + field._element_shape}, but got "
                         f"{values.shape}.")
    for e in np.ndindex(*field._element_shape):
        scalar_field_of(field, e).from_numpy(np.ascontiguousarray(values[(Ellipsis,) + e]))


def composed_fill(field, value):
    composed_shape(field)
    entries = np.broadcast_to(np.asarray(getattr(value, "to_numpy", lambda: value)()), field._element_shape)
    for e in np.ndindex(*field._element_shape):
        scalar_field_of(field, e).fill(entries[e].item())


def dynamic_index_stride(field):
    """Bytes between consecutive entries of an element when every element's entries are equally spaced in
    one array (so a runtime entry index is an address offset); None for a field composed of separate members."""
    if is_composed(field) or field._place_node is None or isinstance(field._array, NoStorage):
        return None
    strides = field._array.strides[-len(field._element_shape):]
    if len(strides) == 2 and strides[0] != strides[1] * field.m:
        return None
    return strides[-1] * field.dtype.numpy.itemsize
