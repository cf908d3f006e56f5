# python/quadrants/data/struct_field.py: fields of structs: one field per member, all of one shape.
import collections.abc
import contextlib

from quadrants.base import registry
from quadrants.data.field import Field, element_dtype
from quadrants.data.matrix_field import MatrixField
from quadrants.data.shared_cells import one_cell
from quadrants.data.struct import MissingMemberError, Struct, StructElement, StructType, _entries_of
from quadrants.data.struct_members import StructMembers
from quadrants.types.annotations import VectorType
from quadrants.types.enums import Layout


class StructField(StructMembers, Field):
    """A field of structs: one field per member (`f.pos`, `f.get_member_field("pos")`), all of one shape.

    `f[i]` is a struct that reads and writes the field; `f[i] = s` copies a qd.Struct or a dict in.
    to_numpy()/to_torch() give a dict of arrays per member (nested dicts for struct members), and
    from_numpy()/from_torch() take one. Kernels take a struct field as a global or a qd.template().
    """

    def __init__(self, field_dict, struct_methods=None, name=None, struct_type=None):
        # Not ArrayContainer.__init__: a struct field owns no storage besides its members'.
        if not field_dict:
            raise ValueError("A struct field needs at least one member.")
        for key, member in field_dict.items():
            if not isinstance(member, Field):
                raise TypeError(f"Struct field member '{key}' must be a field, but got {type(member).__name__}.")
        # None: members not placed yet (qd.root.dense(...).place(f) places them and sets the shape, snode.py)
        shapes = {None if member.shape is None else tuple(member.shape) for member in field_dict.values()}
        if len(shapes) != 1:
            raise ValueError(f"The members of a struct field must have one shape, but got "
                             f"{', '.join(f'{k}: {tuple(m.shape)}' for k, m in field_dict.items())}.")
        self.field_dict = dict(field_dict)
        self.struct_methods = dict(struct_methods or {})
        self.name = name
        self._shape = shapes.pop()
        self._struct_type = struct_type  # as given (None: made from the members), which kernels compare
        # The struct type of the elements: an instance attribute, as the other containers' element_type.
        self.element_type = struct_type or StructType({k: m.element_type for k, m in self.field_dict.items()},
                                                      self.struct_methods)
        self.grad = None
        self.dual = None

    def __getattr__(self, name):
        if name == "_array":  # the slot kernels read (container.py), never set on a struct field
            raise AttributeError("a struct field has no single array: pass it to a kernel as a global or a "
                                 "qd.template() argument, or pass one of its members (f.member) as an array")
        return StructMembers.__getattr__(self, name)

    @property
    def _members(self):
        return list(self.field_dict.values())

    @property
    def _items(self):
        return self.field_dict.items()

    @property
    def dtype(self):
        return self.element_type

    def _leaves(self):
        """(member path, scalar/vector/matrix field) for every member, nested struct members flattened."""
        for key, member in self.field_dict.items():
            if isinstance(member, StructField):
                for path, leaf in member._leaves():
                    yield (key,) + path, leaf
            else:
                yield (key,), member

    def __repr__(self):
        return f"<qd.StructField {self.element_type!r} shape={self.shape}>"

    # --- copies -------------------------------------------------------------------------------
    def fill(self, value):
        """Sets every element: a number sets every scalar of every member; a qd.Struct or a dict each member."""
        if isinstance(value, (Struct, collections.abc.Mapping)):
            entries = self._complete(_entries_of(value, "fill()"), "fill()")
            for key, member in self.field_dict.items():
                member.fill(entries[key])
            return
        for member in self.field_dict.values():
            member.fill(value)

    def copy_from(self, other):
        """Copies another struct field with the same members and shape into this one."""
        if not isinstance(other, StructField) or set(other.field_dict) != set(self.field_dict):
            raise TypeError(f"copy_from() expects a struct field with the members {', '.join(self.field_dict)}, "
                            f"but got {other!r}.")
        for key, member in self.field_dict.items():
            member.copy_from(other.field_dict[key])

    def to_numpy(self, keep_dims=False, *, copy=True):
        """{member: numpy array} (nested dicts for struct members); vector members as their fields export.
        copy=False gives views of the members' memory (each member is an array of its own), as their to_numpy."""
        return {key: member.to_numpy(keep_dims=keep_dims, copy=copy) for key, member in self.field_dict.items()}

    def to_torch(self, device=None, keep_dims=False, *, copy=True):
        """{member: torch tensor} (nested dicts for struct members), on `device` (default: the CPU); copy as the
        members' to_torch (copy=False: tensors sharing their memory, or ValueError)."""
        return {key: member.to_torch(device=device, keep_dims=keep_dims, copy=copy)
                for key, member in self.field_dict.items()}

    def from_numpy(self, array_dict):
        """Copies {member: numpy array} in; every member must be there (nested dicts for struct members)."""
        self._copy_in(array_dict, "from_numpy")

    def from_torch(self, array_dict):
        """Copies {member: torch tensor} in; every member must be there (nested dicts for struct members)."""
        self._copy_in(array_dict, "from_torch")

    def _copy_in(self, array_dict, method):
        self._check_complete(array_dict, method)  # before any copy, so a bad dict changes nothing
        for key, member in self.field_dict.items():
            getattr(member, method)(array_dict[key])

    def _check_complete(self, array_dict, method, path=""):
        self._complete(array_dict, f"{method}()", path)
        for key, member in self.field_dict.items():
            if isinstance(member, StructField):
                member._check_complete(array_dict[key], method, f"{path}{key}.")

    def _complete(self, mapping, what, path=""):
        if not isinstance(mapping, collections.abc.Mapping):
            raise TypeError(f"{what} expects a dict with one entry per member ({', '.join(self.field_dict)})"
                            f"{' for ' + repr(path[:-1]) if path else ''}, but got {type(mapping).__name__}.")
        missing = [key for key in self.field_dict if key not in mapping]
        if missing:
            raise MissingMemberError(f"{what}: the dict has no entry for member(s) "
                                     f"{', '.join(repr(path + k) for k in missing)}; a struct field needs one per "
                                     f"member ({', '.join(path + k for k in self.field_dict)}).")
        return mapping

    def __dlpack__(self, *args, **kwargs):
        raise BufferError("A struct field has no single buffer to export; export its members (f.member).")

    def __dlpack_device__(self):
        return self._members[0].__dlpack_device__()

    # --- Python-scope element access ----------------------------------------------------------
    def _first_leaf(self):
        return next(self._leaves())[1]

    def __getitem__(self, key):
        """The struct at `key`, reading and writing this field."""
        index = self._first_leaf()._index(key)
        if len(index) != len(self.shape):
            raise IndexError(f"Expected {len(self.shape)} indices for shape {self.shape}, but got {len(index)}.")
        for k, extent in zip(index, self.shape):
            if not 0 <= k < extent:
                raise IndexError(f"Index {tuple(index)} is out of bounds for a struct field of shape {self.shape}.")
        return StructElement(self, tuple(index) if index else None)

    def __setitem__(self, key, value):
        self[key]._assign(value)

    def _release(self):
        pass  # the members are released on their own


def struct_field(struct_type, shape=None, **kwargs):
    """A field of `struct_type`: one member container per member (see StructField)."""
    name = kwargs.pop("name", None)
    # Members always live in containers of their own; the layout only decides the SNode tree, as upstream's: AOS
    # (the default) places every member in one dense node, SOA each top-level member in its own (zero_copy.py).
    layout = kwargs.pop("layout", None)
    field_dict = {}
    with contextlib.nullcontext() if layout == Layout.SOA else one_cell():
        for key, member_type in struct_type.members.items():
            member_name = f"{name}.{key}" if name else key
            if isinstance(member_type, StructType):
                field_dict[key] = member_type.field(shape, name=member_name, **kwargs)
            elif isinstance(member_type, VectorType):
                field_dict[key] = MatrixField(element_dtype(member_type), shape, member_type.shape,
                                              name=member_name, **kwargs)
            else:
                field_dict[key] = Field(member_type, shape, (), name=member_name, **kwargs)
    result = StructField(field_dict, struct_type.methods, name=name, struct_type=struct_type)
    for twin in ("grad", "dual"):  # needs_grad/needs_dual: a struct field of the members' twins
        if kwargs.get(f"needs_{twin}"):
            setattr(result, twin, StructField({k: getattr(m, twin) for k, m in field_dict.items()}, struct_type.methods,
                                              name=f"{name}.{twin}" if name else None, struct_type=struct_type))
    return result


registry.provide("struct_field", struct_field)  # StructType.field (struct.py)
