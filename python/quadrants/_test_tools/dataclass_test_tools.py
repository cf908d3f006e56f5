# python/quadrants/_test_tools/dataclass_test_tools.py: upstream's test helper that builds a dataclass instance from its
# annotations: a qd.ndarray of 10 per dimension for each ndarray member, a 10-element i32 field for each
# qd.template() member, and nested dataclasses the same way.
import dataclasses

from quadrants.base import dtypes
from quadrants.data.field_factory import field
from quadrants.data.ndarray import ndarray
from quadrants.types.annotations import NdarrayType, Template


def _make_child_obj(obj_type):
    if isinstance(obj_type, NdarrayType):
        if obj_type.ndim is None or obj_type.dtype is None:
            raise ValueError(f"build_struct() needs an ndarray annotation with a dtype and an ndim, but got {obj_type!r}")
        return ndarray(obj_type.dtype, shape=(10,) * obj_type.ndim)
    if isinstance(obj_type, type) and dataclasses.is_dataclass(obj_type):
        return build_struct(obj_type)
    if obj_type is Template or isinstance(obj_type, Template):
        return field(dtypes.i32, (10,))
    raise TypeError(f"build_struct() builds members annotated with an ndarray type, qd.template() or a dataclass, "
                    f"but got {obj_type!r}")


def build_struct(struct_type):
    """An instance of the dataclass `struct_type` with a new object for each member (see the module comment)."""
    return struct_type(**{f.name: _make_child_obj(f.type) for f in dataclasses.fields(struct_type)})


def build_obj_tuple_from_type_dict(name_to_type):
    """A new object for each annotation in the dict's values, in order."""
    return tuple(_make_child_obj(annotation) for annotation in name_to_type.values())


__all__ = ["build_obj_tuple_from_type_dict", "build_struct"]
