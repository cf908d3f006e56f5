# python/quadrants/data/struct.py: struct types (qd.types.struct, @qd.dataclass) and qd.Struct values.
#
# A struct type is an ordered set of named members, each a scalar dtype, a vector/matrix type or another
# struct type. A struct field is one container per member (scalar and vector/matrix fields, a nested
# struct field for a struct member), all of one shape: kernels read and write the member containers, so
# the IR never sees a struct (frontend/struct_values.py scalarizes struct values as vector_ops.py does
# vectors). In Python scope a struct value is a qd.Struct whose members are numbers, qd.Vector/qd.Matrix
# values and nested qd.Structs; `f[i]` of a struct field (struct_field.py) is a qd.Struct that reads and writes the field.
import collections.abc
import numbers
import types

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.data.matrix import Matrix
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import VectorType, scalar_dtype_name
from quadrants.types.unpacked import expand_members

_MEMBER_KINDS = "a scalar dtype (qd.f32, qd.i32, int, float, bool), a qd.types.vector/matrix type or a struct type"


class MissingMemberError(KeyError):
    """A dict given for a struct lacks a member; a KeyError, as upstream raises, with a readable message."""

    def __str__(self):
        return str(self.args[0])


# ---- struct types ---------------------------------------------------------------------------------


class StructType:
    """A struct type: qd.types.struct(pos=vec3, mass=qd.f32), or a class decorated with @qd.dataclass.

    Calling it builds a value (qd.Struct in Python scope, a struct value inside kernels); `.field()`
    allocates a field of it. `methods` are the class's functions, callable on its values (s.method()).
    """

    def __init__(self, members, methods=None, name=None):
        # An unpacked vector member becomes scalar members; _unpacked_groups maps its name to them.
        self.members, self._unpacked_groups = expand_members(members, check_member_type, name)
        self.methods = dict(methods or {})
        self.name = name

    @property
    def keys(self):
        return list(self.members)

    def __call__(self, *args, **kwargs):
        """A qd.Struct of this type: members from positional then keyword arguments, missing ones 0."""
        return self.cast(self.member_values(args, kwargs), what=f"{self!r}(...)")

    def member_values(self, args, kwargs):
        """{member: given value} of a constructor call; members not given are 0 (as upstream).

        Shared with kernels, which pass translated values; raises TypeError naming what is wrong.
        """
        names = list(self.members)
        if len(args) > len(names):
            raise TypeError(f"{self!r} has {len(names)} member(s) ({', '.join(names)}), but got {len(args)} "
                            "positional arguments.")
        unknown = [k for k in kwargs if k not in self.members]
        if unknown:
            raise TypeError(f"{self!r} has no member(s) {', '.join(map(repr, unknown))}; its members are "
                            f"{', '.join(names)}.")
        given = dict(zip(names, args))
        for key in kwargs:
            if key in given:
                raise TypeError(f"{self!r} got member '{key}' both by position and by keyword.")
            given[key] = kwargs[key]
        return {key: given.get(key, 0) for key in names}

    def cast(self, value, what=None):
        """value (a qd.Struct, a dict or a {member: value} mapping) as a qd.Struct of this type, each
        member converted as storing it would (floats to integer members truncate)."""
        what = what or repr(self)
        entries = _entries_of(value, what)
        if set(entries) != set(self.members):
            raise TypeError(f"{what}: expected the members {', '.join(self.members)}, but got "
                            f"{', '.join(entries) or 'none'}.")
        converted = {key: _convert_member(key, member_type, entries[key], what)
                     for key, member_type in self.members.items()}
        return Struct._typed(converted, self)

    def filled_with_scalar(self, value):
        """A value of this type with every scalar entry set to `value`."""
        return self(*[(t.filled_with_scalar(value) if isinstance(t, StructType) else value)
                      for t in self.members.values()])

    def field(self, shape=None, **kwargs):
        """A field of this struct: one member container per member (struct_field.py; under qd.init(qd.python) one
        torch tensor per member, interop/python_backend.py)."""
        if _runtime.is_python_arch():
            return registry.get("python_backend").struct_field(self, shape, **kwargs)
        return registry.get("struct_field")(self, shape, **kwargs)

    # -- the scalars of a value, in one order: for passing structs through scalar kernel parameters --
    def scalar_leaves(self):
        """(path, dtype) of every scalar, in member order: ('pos', 0) is entry 0 of member pos (row-major
        for matrices), ('mass',) a scalar member, ('inner', 'a') a member of a nested struct."""
        leaves = []
        for key, member_type in self.members.items():
            if isinstance(member_type, StructType):
                leaves += [((key,) + path, dtype) for path, dtype in member_type.scalar_leaves()]
            elif isinstance(member_type, VectorType):
                dtype = float if member_type.dtype is None else member_type.dtype
                leaves += [((key, k), dtype) for k in range(int(np.prod(member_type.shape)))]
            else:
                leaves.append(((key,), member_type))
        return leaves

    def flatten(self, value):
        """The scalars of value (a qd.Struct or dict of this type's members) in scalar_leaves() order."""
        value = value if isinstance(value, Struct) and value._struct_type == self else self.cast(value)
        scalars = []
        for key, member_type in self.members.items():
            member = value._get(key)
            if isinstance(member_type, StructType):
                scalars += member_type.flatten(member)
            elif isinstance(member_type, VectorType):
                scalars += [x.item() for x in np.asarray(member.to_numpy()).reshape(-1)]
            else:
                scalars.append(member)
        return scalars

    def unflatten(self, scalars):
        """The qd.Struct of this type whose scalars, in scalar_leaves() order, are `scalars`."""
        scalars = list(scalars)
        if len(scalars) != len(self.scalar_leaves()):
            raise ValueError(f"{self!r} has {len(self.scalar_leaves())} scalars, but got {len(scalars)}.")
        return self.cast(self._take(iter(scalars)))

    def _take(self, scalars):
        entries = {}
        for key, member_type in self.members.items():
            if isinstance(member_type, StructType):
                entries[key] = member_type._take(scalars)
            elif isinstance(member_type, VectorType):
                size = int(np.prod(member_type.shape))
                entries[key] = np.array([next(scalars) for _ in range(size)]).reshape(member_type.shape)
            else:
                entries[key] = next(scalars)
        return entries

    def ndarray(self, shape=None, **kwargs):
        """Not supported: see the message (upstream has no ndarrays of structs either)."""
        raise TypeError(unsupported_ndarray_message(self))

    def __instancecheck__(self, instance):
        """isinstance(s, MyStruct): s is a qd.Struct with these members, of matching kinds and shapes."""
        if not isinstance(instance, Struct) or instance._keys() != list(self.members):
            return False
        for key, member_type in self.members.items():
            member = instance._get(key)
            if isinstance(member_type, StructType):
                if not isinstance(member, member_type):
                    return False
            elif isinstance(member_type, VectorType):
                if not isinstance(member, Matrix) or tuple(member.get_shape()) != member_type.shape:
                    return False
            elif not isinstance(member, (numbers.Number, np.generic)):
                return False
        return True

    def __eq__(self, other):
        # Equal members make equal types, as upstream's struct types are interned by their members.
        if not isinstance(other, StructType):
            return NotImplemented
        return list(self.members.items()) == list(other.members.items())

    def __hash__(self):
        return hash(("StructType", tuple(self.members)))

    def __repr__(self):
        if self.name:
            return self.name
        return f"qd.types.struct({', '.join(f'{k}={_type_text(t)}' for k, t in self.members.items())})"


def check_member_type(key, member_type, owner=None):
    """member_type when a struct can hold it; a QuadrantsTypeError naming the member otherwise."""
    if isinstance(member_type, (StructType, VectorType)):
        return member_type
    if member_type is not None and not isinstance(member_type, str):  # numpy would read None as f64, 'f4' as f32
        try:
            scalar_dtype_name(member_type)
            return member_type
        except (TypeError, ValueError):  # numpy's dtype() raises either
            pass
    where = f" of {owner}" if owner else ""
    raise QuadrantsTypeError(f"Struct member '{key}'{where} must be {_MEMBER_KINDS}, but got {member_type!r}.")


def unsupported_ndarray_message(struct_type):
    return (f"qd.ndarray() does not take struct types ({struct_type!r}), as upstream Quadrants does not: an "
            "ndarray's element is a scalar, vector or matrix. Use a struct field (Type.field(shape=...)), or one "
            "ndarray per member.")


def dataclass(cls):
    """@qd.dataclass: the struct type of the class's annotated members, with its functions as methods.

    Members are the class's annotations in order; a default value is an error, as upstream. Every
    function of the class (a @qd.func for use inside kernels, plain ones for Python scope) becomes a
    method of the type's values: s.area().
    """
    annotations = dict(getattr(cls, "__annotations__", {}))
    for key in annotations:
        if hasattr(cls, key):
            raise QuadrantsSyntaxError(f"Default value in @dataclass is not supported (member '{key}' of "
                                       f"{cls.__name__}).")
    methods = {}
    for attribute in dir(cls):
        if attribute.startswith("__") or attribute in annotations:
            continue
        value = getattr(cls, attribute)
        if callable(value) and not isinstance(value, type):
            methods[attribute] = value
    members = {key: _resolve_annotation(cls, annotation) for key, annotation in annotations.items()}
    return StructType(members, methods, name=cls.__name__)


def _resolve_annotation(cls, annotation):
    """String annotations (`from __future__ import annotations`) evaluated where the class was defined."""
    if not isinstance(annotation, str):
        return annotation
    import sys

    module = sys.modules.get(cls.__module__)
    try:
        return eval(annotation, vars(module) if module else {}, dict(vars(cls)))  # noqa: S307 - user's own text
    except Exception:  # noqa: BLE001 - reported by check_member_type with the text itself
        return annotation


def _type_text(member_type):
    if isinstance(member_type, (StructType, VectorType)):
        return repr(member_type)
    return f"qd.{scalar_dtype_name(member_type)}" if member_type not in (int, float, bool) else member_type.__name__


# ---- member conversions ---------------------------------------------------------------------------


def _entries_of(value, what):
    """{member: value} of a qd.Struct or a mapping; TypeError for anything else."""
    if isinstance(value, Struct):
        return {key: value._get(key) for key in value._keys()}
    if isinstance(value, collections.abc.Mapping):
        return {key: v for key, v in value.items() if key not in ("__struct_methods", "__matrix_ndim")}
    raise TypeError(f"{what}: expected a qd.Struct or a dict of members, but got {_describe(value)}.")


def _convert_member(key, member_type, value, what):
    """value converted to a member of member_type; TypeError/ValueError naming the member."""
    if isinstance(member_type, StructType):
        if isinstance(value, (Struct, collections.abc.Mapping)):
            return member_type.cast(value, what=f"{what}, member '{key}'")
        if isinstance(value, (numbers.Number, np.generic)):
            return member_type(value)  # upstream: a number initializes every scalar of a nested struct
        raise TypeError(f"{what}: member '{key}' is a struct {member_type!r}, but got {_describe(value)}.")
    if isinstance(member_type, VectorType):
        try:
            return member_type(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{what}: member '{key}' is a {_type_text(member_type)}, but got {_describe(value)}. "
                            f"{exc}") from None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not isinstance(value, (numbers.Number, np.generic)) or isinstance(value, complex):
        raise TypeError(f"{what}: member '{key}' is a scalar {_type_text(member_type)}, but got {_describe(value)}.")
    return _scalar(value, member_type)


def _scalar(value, member_type):
    kind = _runtime.cook_dtype(member_type).numpy.kind
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    return float(value)


def _describe(value):
    if isinstance(value, Struct):
        return f"a struct with members {', '.join(value._keys())}"
    if isinstance(value, Matrix):
        return f"{'a vector' if value.ndim == 1 else 'a matrix'} of shape {value.get_shape()}"
    return f"{value!r} ({type(value).__name__})"


def _plain_member(value):
    """A member value given to an untyped qd.Struct: lists become vectors/matrices, dicts structs."""
    if isinstance(value, (list, tuple)):
        return Matrix(value)
    if isinstance(value, collections.abc.Mapping) and not isinstance(value, Struct):
        return Struct(value)
    return value


# ---- Python-scope values --------------------------------------------------------------------------


class Struct:
    """A struct value in Python scope: qd.Struct(v=vec3(0), t=1.0), qd.Struct({"v": ..., "t": ...}).

    Members are read and written as attributes (s.v) or items (s["v"]); a member name wins over the
    methods below (a member may be called `keys`). Values built by a struct type convert what is
    stored into a member to its type; values of f[i] read and write the field (StructElement).
    """

    _is_quadrants_class = True
    _struct_type = None

    def __init__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], collections.abc.Mapping):
            entries = dict(args[0])
        elif not args:
            entries = dict(kwargs)
        else:
            raise QuadrantsSyntaxError("Custom structs need to be initialized using either dictionary or keyword "
                                       "arguments.")
        methods = entries.pop("__struct_methods", None) or {}
        entries.pop("__matrix_ndim", None)
        object.__setattr__(self, "_entries", {key: _plain_member(v) for key, v in entries.items()})
        object.__setattr__(self, "_methods", dict(methods))

    @classmethod
    def _typed(cls, entries, struct_type):
        obj = object.__new__(cls)
        object.__setattr__(obj, "_entries", entries)
        object.__setattr__(obj, "_methods", struct_type.methods)
        object.__setattr__(obj, "_struct_type", struct_type)
        return obj

    # -- members, shared with StructElement through _keys/_get/_set --
    def _keys(self):
        return list(object.__getattribute__(self, "_entries"))

    def _get(self, key):
        return object.__getattribute__(self, "_entries")[key]

    def _set(self, key, value):
        entries = object.__getattribute__(self, "_entries")
        current = entries[key]
        member_type = self._struct_type.members[key] if self._struct_type is not None else None
        if isinstance(current, Struct):
            current._assign(value)
        elif member_type is not None:
            entries[key] = _convert_member(key, member_type, value, repr(self._struct_type))
        elif isinstance(current, Matrix):
            current._values[...] = np.asarray(value.to_numpy() if isinstance(value, Matrix) else value)
        elif isinstance(value, (numbers.Number, np.generic)):
            entries[key] = value
        else:
            raise TypeError(f"Struct member '{key}' holds a number, but got {_describe(value)}.")

    def _assign(self, value):
        """Sets every member from a qd.Struct or a dict with the same members."""
        entries = _entries_of(value, "assigning a struct")
        keys = self._keys()
        if set(entries) != set(keys):
            raise TypeError(f"Cannot assign a struct with members {', '.join(entries) or 'none'} to one with members "
                            f"{', '.join(keys)}.")
        for key in keys:
            self._set(key, entries[key])

    def __getattribute__(self, name):
        if not name.startswith("_"):
            if name in object.__getattribute__(self, "_keys")():
                return object.__getattribute__(self, "_get")(name)
            method = object.__getattribute__(self, "_methods").get(name)
            if method is not None:
                return types.MethodType(method, self)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        if name in self._keys():  # a member named with a leading underscore (`_r0` of an unpacked vector member)
            return self._get(name)
        raise AttributeError(f"struct with members {', '.join(self._keys())} has no member or method '{name}'.")

    def __setattr__(self, name, value):
        if name in self._keys():
            self._set(name, value)
        else:
            object.__setattr__(self, name, value)

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(f"struct with members {', '.join(self._keys())} has no member {key!r}")
        return self._get(key)

    def __setitem__(self, key, value):
        if key not in self._keys():
            raise KeyError(f"struct with members {', '.join(self._keys())} has no member {key!r}")
        self._set(key, value)

    def __len__(self):
        return len(self._keys())

    def __iter__(self):
        return iter([self._get(key) for key in self._keys()])

    @property
    def keys(self):
        """The member names, in order."""
        return self._keys()

    @property
    def items(self):
        """(name, value) pairs of the members."""
        return {key: self._get(key) for key in self._keys()}.items()

    @property
    def entries(self):
        """{name: value} of the members."""
        return {key: self._get(key) for key in self._keys()}

    @property
    def methods(self):
        return dict(self._methods)

    @property
    def _members(self):
        return [self._get(key) for key in self._keys()]

    def to_dict(self, include_methods=False, include_ndim=False):
        """The members as a dict: nested structs as dicts, vectors and matrices as (nested) lists."""
        result = {}
        for key in self._keys():
            value = self._get(key)
            if isinstance(value, Struct):
                value = value.to_dict(include_methods=include_methods, include_ndim=include_ndim)
            elif isinstance(value, Matrix):
                value = value.to_list()
            result[key] = value
        if include_methods:
            result["__struct_methods"] = dict(self._methods)
        if include_ndim:
            result["__matrix_ndim"] = {k: self._get(k).ndim for k in self._keys() if isinstance(self._get(k), Matrix)}
        return result

    def __repr__(self):
        return str(self.to_dict())

    __str__ = __repr__

    def __reduce__(self):
        # Copies and pickles are plain values (also of a field's element), with the type's members.
        struct_type = self._struct_type
        if struct_type is not None and not struct_type.methods:
            return _rebuild_typed, (struct_type, self.to_dict())
        return Struct, (self.to_dict(),)

    @classmethod
    def field(cls, members, methods=None, shape=None, name=None, offset=None, needs_grad=False, needs_dual=False,
              layout=None):
        """qd.Struct.field({"center": vec3, "radius": float}, shape=(3, 3)): a field of structs."""
        return StructType(members, methods).field(shape, name=name, offset=offset, needs_grad=needs_grad,
                                                  needs_dual=needs_dual, layout=layout)


def _rebuild_typed(struct_type, entries):
    return struct_type.cast(entries)


class StructElement(Struct):
    """Element `index` of a struct field in Python scope: members read and write the field now.

    Scalar members read as numbers, vector/matrix members as values that write through (data/element_ref.py),
    struct members as elements of the nested struct field.
    """

    def __init__(self, field, index):
        object.__setattr__(self, "_field", field)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_methods", field.struct_methods)
        object.__setattr__(self, "_struct_type", field._struct_type)

    def _keys(self):
        return list(object.__getattribute__(self, "_field").field_dict)

    def _get(self, key):
        return object.__getattribute__(self, "_field").field_dict[key][object.__getattribute__(self, "_index")]

    def _set(self, key, value):
        member = object.__getattribute__(self, "_field").field_dict[key]
        index = object.__getattribute__(self, "_index")
        if hasattr(member, "field_dict"):  # a nested struct field (struct_field.py)
            member[index]._assign(value)
            return
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if not member._element_shape and not isinstance(value, (numbers.Number, np.generic)):
            raise TypeError(f"Struct member '{key}' is a scalar {member.dtype.name}, but got {_describe(value)}.")
        member[index] = value


registry.provide("struct_type", StructType)  # qd.types.struct(...) (types/annotations.py)
