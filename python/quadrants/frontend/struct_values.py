# python/quadrants/frontend/struct_values.py: struct values inside kernels, scalarized as vectors are.
#
# The IR has no structs. While a kernel is translated a struct is a StructValue: its struct type (None
# for an untyped qd.Struct(...)) and one translated value per member: an Expr or a number, a
# VectorValue, or a nested StructValue. A struct local is a StructVar binding (one IR local per
# scalar, typed as its member); `f[i]` of a struct field reads each member container at i. Writes go
# member by member through a StructTarget: `f[i] = s`, `s.mass = 2`, `f[i].vel += a` (the last is an
# atomic add, as on any array element). As upstream, `t = s`, func arguments and `self` of a method
# are copies; a func parameter annotated qd.template() refers to the caller's struct instead.
import ast

from quadrants.data.matrix import Matrix
from quadrants.data.struct import Struct, StructType
from quadrants.data.struct_field import StructField
from quadrants.frontend.funcs import BoundFunc, Func
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.targets import VarTarget, VectorTarget
from quadrants.frontend.values import LocalVar, StaticBinding, VectorValue, VectorVar
from quadrants.frontend.vector_ops import describe, is_number
from quadrants.types.annotations import Template, VectorType, scalar_dtype_name
from quadrants.types.unpacked import UnpackedGroup, group_of


def same_struct_type(a, b):
    """Whether two struct types have the same members of the same types (as upstream's interned types)."""
    return a is b or _member_signature(a) == _member_signature(b)


def _member_signature(member_type):
    if isinstance(member_type, StructType):
        return tuple((key, _member_signature(t)) for key, t in member_type.members.items())
    if isinstance(member_type, VectorType):
        dtype = member_type.dtype
        return ("vector", member_type.shape, None if dtype is None else scalar_dtype_name(dtype))
    try:
        return scalar_dtype_name(member_type)
    except Exception:  # noqa: BLE001 - anything else compares by identity
        return id(member_type)


class StructValue:
    """A struct inside a kernel. `origin` is the StructTarget it was read from (a local or a field
    element), through which a func parameter annotated qd.template() writes; None for computed values."""

    __slots__ = ("struct_type", "members", "origin")

    def __init__(self, struct_type, members, origin=None):
        self.struct_type = struct_type
        self.members = dict(members)
        self.origin = origin

    def describe_value(self):
        """How error messages name it (vector_ops.describe)."""
        if self.struct_type is not None:
            return f"a struct {self.struct_type!r}"
        return f"a struct with members {', '.join(self.members)}"


class StructVar:
    """A struct local: member name -> LocalVar, VectorVar or StructVar."""

    __slots__ = ("struct_type", "members")

    def __init__(self, struct_type, members):
        self.struct_type = struct_type
        self.members = dict(members)


class StructTarget:
    """Where a struct is stored: member name -> the member's assignment target (stmts.py's kinds, or StructTarget)."""

    __slots__ = ("struct_type", "members")

    def __init__(self, struct_type, members):
        self.struct_type = struct_type
        self.members = dict(members)


def is_struct(value):
    """Translated struct values and Python-scope qd.Structs (compile-time constants inside kernels)."""
    return isinstance(value, (StructValue, Struct))


def _type_name(struct_type, members):
    return repr(struct_type) if struct_type is not None else f"struct with members {', '.join(members)}"


class StructTranslator:
    """The translator's struct support; exprs.py, stmts.py and calls.py call in where they meet a struct."""

    # ---- reading --------------------------------------------------------------------------------
    def struct_var_value(self, binding):
        """The value of a struct local (its members read now), which assignments through it can update."""
        return StructValue(binding.struct_type, {k: self._binding_value(b) for k, b in binding.members.items()},
                           origin=self.struct_var_target(binding))

    def _binding_value(self, binding):
        if isinstance(binding, StructVar):
            return self.struct_var_value(binding)
        if isinstance(binding, VectorVar):
            return VectorValue([Expr(f"(var {name})") for name in binding.names], binding.shape)
        return Expr(f"(var {binding.name})")

    def struct_member(self, value, attr):
        """`s.attr`: a member's value, or a method bound to s (called with a copy of s as `self`)."""
        value = self.as_struct_value(value)
        if attr in value.members:
            return value.members[attr]
        group = group_of(value.struct_type, attr)
        if group is not None:  # s.r of an unpacked vector member: only s.r[i] follows (unpacked.py)
            return UnpackedGroup(attr, group[0], value.members)
        method = value.struct_type.methods.get(attr) if value.struct_type is not None else None
        if isinstance(method, Func):
            return BoundFunc(method, value)
        if method is not None:
            raise self.fail(f"method '{attr}' of {value.describe_value()[2:]} is not a @qd.func, so kernels cannot "
                            "call it", kind="type", hint="decorate it with @qd.func.")
        raise self.fail(f"{value.describe_value()} has no member '{attr}' (its members: "
                        f"{', '.join(value.members)})", kind="type")

    def struct_field_element(self, field, index, value_node):
        """`f[i]` of a struct field: every member read at i."""
        index = self._struct_index(index)
        target = self.struct_field_target(field, index, value_node)
        return StructValue(field._struct_type, self._field_members(field, index, _field_label(field, value_node)),
                           origin=target)

    def _field_members(self, field, index, label):
        members = {}
        for key, member in field.field_dict.items():
            if isinstance(member, StructField):
                members[key] = StructValue(member._struct_type, self._field_members(member, index, f"{label}.{key}"))
            else:
                members[key] = self.array_element(self._member_array(member, label, key), index)
        return members

    def _member_array(self, member, label, key):
        return self.global_array(member, py_name=f"{label}_{key}".replace(".", "_"), label=f"{label}.{key}")

    def _struct_index(self, index):
        """The index evaluated once: an atomic in it must not run once per member."""
        if isinstance(index, (tuple, list)):
            return tuple(self.materialize_value(part) for part in index)
        return self.materialize_value(index)

    # ---- targets --------------------------------------------------------------------------------
    def struct_var_target(self, binding):
        members = {}
        for key, member in binding.members.items():
            if isinstance(member, StructVar):
                members[key] = self.struct_var_target(member)
            elif isinstance(member, VectorVar):
                members[key] = VectorTarget([VarTarget(n, member.parallel_depth) for n in member.names], member.shape)
            else:
                members[key] = VarTarget(member.name, member.parallel_depth)
        return StructTarget(binding.struct_type, members)

    def struct_name_target(self, binding):
        """The target of a name that is a struct local, or a qd.template() func parameter bound to one; else None."""
        if isinstance(binding, StructVar):
            return self.struct_var_target(binding)
        if isinstance(binding, StaticBinding) and isinstance(binding.value, StructValue):
            if binding.value.origin is not None:
                return binding.value.origin
            raise self.fail("this struct is a computed value, so it cannot be assigned to",
                            hint="copy it into a local first: 's = value'.")
        return None

    def struct_field_target(self, field, index, value_node=None):
        """The target of `f[i]` of a struct field."""
        return self._field_target(field, self._struct_index(index), _field_label(field, value_node))

    def _field_target(self, field, index, label):
        members = {}
        for key, member in field.field_dict.items():
            if isinstance(member, StructField):
                members[key] = self._field_target(member, index, f"{label}.{key}")
            else:
                members[key] = self.array_target(self._member_array(member, label, key), index)
        return StructTarget(field._struct_type, members)

    def struct_member_target(self, target, attr):
        group = group_of(target.struct_type, attr)
        if group is not None and attr not in target.members:  # s.r[i] = v of an unpacked vector member
            return UnpackedGroup(attr, group[0], target.members)
        if attr not in target.members:
            raise self.fail(f"{_type_name(target.struct_type, target.members)} has no member '{attr}' (its members: "
                            f"{', '.join(target.members)})", kind="type")
        return target.members[attr]

    def store_struct(self, target, value):
        """Stores a whole struct, member by member; the members must be the same (each is cast on store)."""
        if not is_struct(value):
            raise self.fail(f"cannot assign {describe(value)} to {_type_name(target.struct_type, target.members)}",
                            kind="type", hint="assign a struct value, or assign its members one by one: s.a = ...")
        value = self.as_struct_value(value)
        if target.struct_type is not None:
            value = self.cast_struct(target.struct_type, value, f"assigning to {target.struct_type!r}")
        elif set(value.members) != set(target.members):
            raise self.fail(f"cannot assign {value.describe_value()} to a struct with members "
                            f"{', '.join(target.members)}", kind="type")
        if _leaf_count(value) > 1:
            value = self._snapshot_struct(value)  # s = Foo(s.b, s.a) reads every member before any store
        for key, member_target in target.members.items():
            self.store(member_target, value.members[key])

    def _snapshot_struct(self, value):
        members = {}
        for key, member in value.members.items():
            if isinstance(member, StructValue):
                members[key] = self._snapshot_struct(member)
            elif isinstance(member, (Expr, VectorValue)):
                members[key] = self.snapshot(member)
            else:
                members[key] = member
        return StructValue(value.struct_type, members)

    # ---- locals, func arguments and returns -----------------------------------------------------
    def declare_struct(self, py_name, value):
        """Binds py_name to a new struct local initialized from value (a copy), typed as its members."""
        self.bind(py_name, self._struct_var(py_name, self.as_struct_value(value)))

    def _struct_var(self, prefix, value):
        members = {}
        types = value.struct_type.members if value.struct_type is not None else {}
        for key, member in value.members.items():
            name = f"{prefix}_{key}"
            if isinstance(member, StructValue):
                members[key] = self._struct_var(name, member)
                continue
            dtype = self._member_dtype_name(types.get(key))
            if isinstance(member, VectorValue):
                names = [self._decl(self.names.fresh(name), entry, dtype) for entry in member.entries]
                members[key] = VectorVar(names, member.shape, self.parallel_depth)
            else:
                members[key] = LocalVar(self._decl(self.names.fresh(name), self.scalar(member, "a struct member"),
                                                   dtype), self.parallel_depth)
        return StructVar(value.struct_type, members)

    def _member_dtype_name(self, member_type):
        if member_type is None:
            return None
        if isinstance(member_type, VectorType):
            return self.default_fp if member_type.dtype is None else scalar_dtype_name(member_type.dtype)
        return scalar_dtype_name(member_type)

    def bind_struct_argument(self, name, value, annotation):
        """A func parameter given a struct, or annotated with a struct type: a copy, as upstream.

        Returns False when the parameter is not a struct one (the caller binds it as usual).
        """
        by_reference = isinstance(annotation, Template) or annotation is Template
        if by_reference or not (is_struct(value) or isinstance(annotation, StructType)):
            return False
        if not is_struct(value):
            raise self.fail(f"@qd.func parameter '{name}' is annotated with the struct {annotation!r}, but got "
                            f"{describe(value)}", kind="type")
        value = self.as_struct_value(value)
        if isinstance(annotation, StructType):
            value = self.cast_struct(annotation, value, f"@qd.func parameter '{name}'")
        self.declare_struct(name, value)
        return True

    def struct_return(self, value, annotation):
        """A func's returned struct, copied into fresh locals (cast to the annotation's struct type)."""
        if not is_struct(value):
            raise self.fail(f"this @qd.func returns {annotation!r}, but the value is {describe(value)}", kind="type")
        value = self.as_struct_value(value)
        if isinstance(annotation, StructType):
            value = self.cast_struct(annotation, value, "the returned value")
        var = self._struct_var("_ret", value)
        result = self.struct_var_value(var)
        result.origin = None
        return result

    def struct_return_slot(self, annotation):
        """(target, value) of the locals a func annotated with a struct type returns through, zero-initialized."""
        var = self._struct_var("_ret", self.zero_struct(annotation))
        value = self.struct_var_value(var)
        value.origin = None
        return self.struct_var_target(var), value

    def zero_struct(self, struct_type):
        members = {}
        for key, member_type in struct_type.members.items():
            if isinstance(member_type, StructType):
                members[key] = self.zero_struct(member_type)
            elif isinstance(member_type, VectorType):
                members[key] = VectorValue([0] * _size(member_type.shape), member_type.shape)
            else:
                members[key] = 0
        return StructValue(struct_type, members)

    # ---- construction and conversion ------------------------------------------------------------
    def construct_struct(self, func, args, kwargs):
        """MyStruct(...) (positional and keyword members, missing ones 0) or qd.Struct(a=..) / qd.Struct({...})."""
        if func is Struct or isinstance(func, type) and issubclass(func, Struct):
            if len(args) == 1 and not kwargs and isinstance(args[0], dict):
                entries = args[0]
            elif not args:
                entries = kwargs
            else:
                raise self.fail("qd.Struct() takes either one dict or keyword arguments", kind="type")
            return self.as_struct_value(dict(entries))
        try:
            given = func.member_values(args, kwargs)
        except TypeError as exc:
            raise self.fail(str(exc), kind="type") from None
        return self.cast_struct(func, StructValue(None, given), f"{func!r}(...)", keys_checked=True)

    def cast_struct(self, struct_type, value, what, keys_checked=False):
        """value with its members converted to struct_type's; the member names must be the same."""
        if not keys_checked and list(value.members) != list(struct_type.members):
            if set(value.members) != set(struct_type.members):
                raise self.fail(f"{what}: expected a struct with the members {', '.join(struct_type.members)}, but "
                                f"got {value.describe_value()}", kind="type")
        members = {key: self._convert_member(key, member_type, value.members[key], what)
                   for key, member_type in struct_type.members.items()}
        return StructValue(struct_type, members)

    def _convert_member(self, key, member_type, value, what):
        if isinstance(member_type, StructType):
            if is_struct(value) or isinstance(value, dict):
                return self.cast_struct(member_type, self.as_struct_value(value), f"{what}, member '{key}'")
            if isinstance(value, Expr) or is_number(value):
                return self.construct_struct(member_type, [value], {})  # upstream: the first member gets it
            raise self.fail(f"{what}: member '{key}' is a struct {member_type!r}, but got {describe(value)}",
                            kind="type")
        if isinstance(member_type, VectorType):
            value = self._vector_of(value)
            if not (isinstance(value, (Expr, VectorValue)) or is_number(value)):
                raise self.fail(f"{what}: member '{key}' is a {member_type!r}, but got {describe(value)}", kind="type")
            try:
                return self.construct_typed_vector(member_type, [value])
            except Exception:  # noqa: BLE001 - re-raised naming the member
                size = _size(member_type.shape)
                raise self.fail(f"{what}: member '{key}' is a {member_type!r} ({size} values), but got "
                                f"{describe(value)}", kind="type") from None
        if not (isinstance(value, Expr) or is_number(value)):
            raise self.fail(f"{what}: member '{key}' is a scalar {scalar_dtype_name(member_type)}, but got "
                            f"{describe(value)}", kind="type")
        return self.ops.cast(scalar_dtype_name(member_type), value)

    def _vector_of(self, value):
        """Lists and tuples (of scalars, or rows of them) and qd.Vector constants as VectorValues."""
        if isinstance(value, Matrix):
            values = value.to_numpy()
            return VectorValue([x.item() for x in values.reshape(-1)], values.shape)
        if isinstance(value, (list, tuple)):
            if value and all(isinstance(row, (list, tuple)) for row in value):
                entries = [self.scalar(x, "a matrix entry") for row in value for x in row]
                if any(len(row) != len(value[0]) for row in value):
                    raise self.fail("every row of a matrix must have the same length", kind="type")
                return VectorValue(entries, (len(value), len(value[0])))
            return VectorValue([self.scalar(x, "a vector entry") for x in value], (len(value),))
        return value

    def as_struct_value(self, value):
        """A StructValue for a translated struct, a Python-scope qd.Struct (constants) or a dict of members."""
        if isinstance(value, StructValue):
            return value
        if isinstance(value, Struct):
            members = {key: value._get(key) for key in value._keys()}
            struct_type = value._struct_type
        elif isinstance(value, dict):
            members, struct_type = value, None
        else:
            raise self.fail(f"expected a struct, but got {describe(value)}", kind="type")
        converted = {}
        for key, member in members.items():
            if not isinstance(key, str):
                raise self.fail(f"struct member names must be strings, but got {key!r}", kind="type")
            if is_struct(member) or isinstance(member, dict):
                converted[key] = self.as_struct_value(member)
            else:
                converted[key] = self.capture(self._vector_of(member))
        return StructValue(struct_type, converted)

    def visit_Dict(self, node):
        """A dict display, e.g. the members of qd.Struct({"a": 1, "b": x})."""
        result = {}
        for key_node, value_node in zip(node.keys, node.values):
            value = self.visit(value_node)
            if key_node is None:  # {**d}: the entries of a dict known at compile time
                if not isinstance(value, dict):
                    raise self.fail(f"'**' inside a dict display needs a dict, but got {describe(value)}", kind="type")
                result.update(value)
                continue
            result[self.visit(key_node)] = value  # a kernel value as a key: by identity (visit_DictComp)
        return result


def _field_label(field, value_node):
    """How messages and IR names call a struct field: its Python name where the kernel names it, else its name."""
    if isinstance(value_node, ast.Name):
        return value_node.id
    if isinstance(value_node, ast.Attribute):
        return value_node.attr
    return field.name or "struct_field"


def _leaf_count(value):
    count = 0
    for member in value.members.values():
        count += _leaf_count(member) if isinstance(member, StructValue) else 1
    return count


def _size(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n
