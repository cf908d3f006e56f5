# python/quadrants/data/matrix_field.py: the vector/matrix fields behind qd.Vector.field / qd.Matrix.field.
#
# Placed as a whole, the field is one array with the element dims last; placed component by component
# (get_scalar_field(), field_components.py), it is "composed" of scalar fields and Python scope goes through them.
# A field whose entries have dtypes of their own (dtype=[[...]], matrix_entry_types.py) is always composed.
import numpy as np

from quadrants.base import registry
from quadrants.data import field_components, matrix_entry_types
from quadrants.data.container import ArrayContainer, MatrixContainer
from quadrants.data.element_ref import element_ref
from quadrants.data.field import Field


class MatrixField(MatrixContainer, Field):
    """A field of vectors (element shape (n,)) or matrices (element shape (n, m))."""

    _entry_quants = None  # {entry index: its quant type or None} when the entries' dtypes differ

    def __init__(self, dtype, shape, element_shape, **kwargs):
        element_shape = self._checked_element_shape(element_shape)
        dtype, entry_quants = matrix_entry_types.split_entry_types(dtype, element_shape)
        if entry_quants is not None:
            matrix_entry_types.check_options(kwargs)
            self._entry_quants = entry_quants
        super().__init__(dtype, shape, element_shape, **kwargs)

    def _entry_fields(self):
        """Entries of different dtypes have no array in common: placing the field places each of them."""
        return field_components.all_members(self) if self._entry_quants is not None else None

    def _pickle_class(self):
        return MatrixField

    def _is_placed(self):
        """Placed as a whole, or each of its components placed on its own."""
        return Field._is_placed(self) or (self._composed and all(
            member._place_node is not None for member in field_components.all_members(self)))

    def get_scalar_field(self, *indices):
        """The scalar field of entry (i, j) (of a vector: i) of every element, sharing storage with this field;
        on a field without a shape, it is placed on its own (field_components.py)."""
        return field_components.scalar_field_of(self, indices)

    def _get_dynamic_index_stride(self):
        """Bytes between an element's consecutive entries, or None where they are not in one array."""
        return field_components.dynamic_index_stride(self)

    def _place(self, node, offset):
        field_components.check_placed_whole(self)
        super()._place(node, offset)
        field_components.bind_members(self)

    def _allocate(self):
        super()._allocate()
        field_components.bind_members(self)

    @property
    def _composed(self):
        return field_components.is_composed(self)

    def __getitem__(self, key):
        if not self._composed:
            return Field.__getitem__(self, key)
        members, index = self._members_at(key)
        return element_ref(members, index) if len(index) == len(self.shape) else members._array.get(index)

    def __setitem__(self, key, value):
        if not self._composed:
            Field.__setitem__(self, key, value)
            return
        members, index = self._members_at(key)
        if len(index) != len(self.shape):
            members._array.set(index, value)
            return
        values = self._element_values(value)
        for e in np.ndindex(*self._element_shape):
            members._array.set(index + list(e), values[e].item())

    def _members_at(self, key):
        """A composed field's element access: the members, and the index (outer dims, maybe an entry)."""
        self._shape = field_components.composed_shape(self)
        return _Members(self, field_components.MemberArrays(self)), ArrayContainer._index(self, key)

    def to_numpy(self, dtype=None, keep_dims=False, *, copy=True):
        if self._composed:
            return field_components.composed_to_numpy(self, dtype, keep_dims)
        return Field.to_numpy(self, dtype, keep_dims, copy=copy)

    def from_numpy(self, arr):
        if self._composed:
            return field_components.composed_from_numpy(self, arr)
        return Field.from_numpy(self, arr)

    def fill(self, value):
        if self._composed:
            return field_components.composed_fill(self, value)
        return Field.fill(self, value)


class _Members:
    """What element_ref reads and writes an element of a composed vector/matrix field through: its members."""

    def __init__(self, field, arrays):
        self.dtype = field.dtype
        self._element_shape = field._element_shape
        self._array = arrays


registry.provide("matrix_field", MatrixField)  # qd.Vector.field / qd.Matrix.field (matrix.py)
