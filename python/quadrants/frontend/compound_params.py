# python/quadrants/frontend/compound_params.py: dataclass and data_oriented arguments: schemas, references, leaves.
#
# A kernel never sees a dataclass or a data_oriented object. A parameter annotated with a dataclass, and
# a template argument that is a dataclass or data_oriented instance, is a CompoundRef while the kernel is
# translated, and reading one of its members gives what that member is:
# - an array member (annotated qd.types.ndarray(), or a qd.ndarray held by a data_oriented object) or a
#   scalar member of an annotated dataclass: a *leaf*, a runtime parameter of the launcher that the call
#   reads from the object again every time (IR name `info__member`, 'info.member' in error messages);
# - a field: a global, as fields always are; a Python number: a compile-time constant (unless the class
#   is data_oriented(template_primitives=False): then a scalar leaf);
# - a nested dataclass or data_oriented object: another CompoundRef.
# Only the leaves a kernel reads become parameters, so a call costs per member used, not per member
# declared. They are found by translating the kernel once with the call's own values (DiscoverLeaves);
# the launcher is built for them, and later specializations are translated against that plan
# (PlannedLeaves), which raises PlanChanged if a leaf outside it is read.
import dataclasses
import typing

from quadrants.base import dtypes as _dtypes
from quadrants.data.field import Field
from quadrants.data.ndarray import Ndarray
from quadrants.frontend.tensor_params import is_tensor_annotation
from quadrants.runtime import _core
from quadrants.types.annotations import NdarrayType, Template, VectorType, scalar_dtype_name
from quadrants.types.unpacked import reject


class MemberTypeError(TypeError):
    """A dataclass member whose annotation kernels cannot take; the message names the member."""


class Member:
    """One member of a dataclass annotation: kind is 'array', 'scalar', 'template', 'tensor' or 'struct'."""

    __slots__ = ("name", "kind", "annotation", "schema")

    def __init__(self, name, kind, annotation, schema=None):
        self.name = name
        self.kind = kind
        self.annotation = annotation
        self.schema = schema


class DataclassSchema:
    """The members of a dataclass type used as a kernel or func annotation, nested ones included."""

    def __init__(self, cls, members):
        self.cls = cls
        self.members = members  # name -> Member, in declaration order

    def template_paths(self, prefix):
        """(path, kind) of the members that select a compiled kernel by their value: those annotated
        qd.template() (kind 'template') and qd.Tensor (kind 'tensor': by value for fields, see tensor_params.py)."""
        for member in self.members.values():
            if member.kind in ("template", "tensor"):
                yield prefix + (member.name,), member.kind
            elif member.kind == "struct":
                yield from member.schema.template_paths(prefix + (member.name,))


_EXPECTED = ("qd.types.ndarray(...), qd.Tensor, a scalar dtype (qd.f32, qd.i32, int, float, bool), qd.template() "
             "(for fields and compile-time values) or another dataclass")
_schemas = {}


def is_dataclass_type(annotation):
    return isinstance(annotation, type) and dataclasses.is_dataclass(annotation)


def dataclass_schema(cls, _outer=()):
    """The schema of a dataclass type (cached); raises MemberTypeError naming a member it cannot take."""
    schema = _schemas.get(cls)
    if schema is not None:
        return schema
    if cls in _outer:
        raise MemberTypeError(f"dataclass {cls.__qualname__} contains itself, which a kernel cannot flatten")
    hints = _type_hints(cls)
    members = {}
    for f in dataclasses.fields(cls):
        annotation = hints.get(f.name, f.type)
        kind = member_kind(annotation)
        if kind is None and getattr(annotation, "_data_oriented", False):
            raise MemberTypeError(
                f"member '{f.name}' of dataclass {cls.__qualname__} is annotated {_show(annotation)}, a "
                f"@qd.data_oriented class, which a dataclass annotation cannot describe; annotate the member "
                f"qd.template(), or pass the data_oriented object as a qd.template() parameter of its own"
            )
        if kind is None:
            raise MemberTypeError(
                f"member '{f.name}' of dataclass {cls.__qualname__} is annotated {_show(annotation)}, "
                f"but a dataclass member passed to a kernel must be {_EXPECTED}"
            )
        nested = dataclass_schema(annotation, _outer + (cls,)) if kind == "struct" else None
        members[f.name] = Member(f.name, kind, annotation, nested)
    schema = _schemas[cls] = DataclassSchema(cls, members)
    return schema


def member_kind(annotation):
    """'array', 'scalar', 'template', 'tensor' or 'struct' for a member annotation kernels accept, else None."""
    if annotation is Template or isinstance(annotation, Template):
        return "template"
    if is_tensor_annotation(annotation):
        return "tensor"
    if annotation is NdarrayType or isinstance(annotation, NdarrayType):
        return "array"
    if isinstance(annotation, type):
        if dataclasses.is_dataclass(annotation):
            return "struct"
        if issubclass(annotation, Field):
            return "template"
        if issubclass(annotation, Ndarray):
            return "array"
        if getattr(annotation, "_data_oriented", False):
            return None  # data_oriented objects are passed as qd.template() parameters of their own
    if isinstance(annotation, VectorType):
        reject(annotation, "annotate a @dataclasses.dataclass member with")  # upstream's error there too
        return None
    if annotation in (int, float, bool):
        return "scalar"

    try:
        _dtypes.to_dtype(annotation)
    except TypeError:
        return None
    return "scalar"


def member_annotation(member):
    """The annotation a leaf of this member is launched with (qd.types.ndarray for a bare class)."""
    if member.kind == "array" and not isinstance(member.annotation, NdarrayType):
        return NdarrayType()
    return member.annotation


def _type_hints(cls):
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable forward references: fall back to field.type
        return {}


def _show(annotation):
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation)


class CompoundRef:
    """A dataclass or data_oriented object reached from a kernel parameter, while the kernel is translated.

    path: the parameter's name, then member names. schema: set for parameters annotated with a
    dataclass, whose members are read from the annotation; obj: the object itself (None when only
    the schema is known, i.e. when a later specialization is translated without the call's values).
    """

    __slots__ = ("path", "obj", "schema", "runtime_primitives")

    def __init__(self, path, obj, schema=None, runtime_primitives=False):
        self.path = tuple(path)
        self.obj = obj
        self.schema = schema
        self.runtime_primitives = runtime_primitives

    @property
    def cls(self):
        return self.schema.cls if self.schema is not None else type(self.obj)

    def __repr__(self):
        return f"{'.'.join(self.path)} ({self.cls.__qualname__})"


class Leaf:
    """A runtime parameter reached through a CompoundRef: kind 'array', 'scalar' or 'vector' (a vector/matrix
    member of a struct passed by value, annotated with its VectorType)."""

    __slots__ = ("path", "kind", "annotation")

    def __init__(self, path, kind, annotation):
        self.path = tuple(path)
        self.kind = kind
        self.annotation = annotation

    @property
    def label(self):
        return ".".join(self.path)

    def launcher_entry(self):
        """The tuple `_core.Launcher` expects for this leaf (error messages name it 'info.member')."""
        if self.kind == "scalar":
            return ("scalar", self.label, scalar_dtype_name(self.annotation))
        if self.kind == "vector":
            dtype = float if self.annotation.dtype is None else self.annotation.dtype
            return ("vector", self.label, scalar_dtype_name(dtype), tuple(self.annotation.shape))
        return self.annotation.launcher_entry(self.label)


class PlanChanged(Exception):
    """A specialization read a leaf outside the launcher's plan; the kernel discovers its leaves again."""


class DiscoverLeaves:
    """Leaves met while translating with the call's own values; each is probed for its specialization."""

    def __init__(self, kernel_name):
        self.kernel_name = kernel_name
        self.plan = []
        self.specs = []

    def spec(self, leaf, value, has_value):
        if not has_value:
            raise AssertionError(f"DiscoverLeaves.spec(): no value for leaf '{leaf.label}'")
        spec = probe_spec(self.kernel_name, leaf.launcher_entry(), value)
        self.plan.append(leaf)
        self.specs.append(spec)
        return spec


class PlannedLeaves:
    """The leaves a launcher was built for, with their part of the specialization being compiled."""

    def __init__(self, plan, specs):
        self.plan = plan
        self.specs = specs
        self.index = {leaf.path: k for k, leaf in enumerate(plan)}

    def spec(self, leaf, value, has_value):
        k = self.index.get(leaf.path)
        if k is None or self.plan[k].kind != leaf.kind:
            raise PlanChanged(leaf.label)
        return self.specs[k]


_probes = {}


def probe_spec(kernel_name, entry, value):
    """The specialization entry of one argument, computed by the launcher's own code (never compiles)."""
    key = (kernel_name, entry)
    probe = _probes.get(key)
    if probe is None:
        probe = _probes[key] = _core.Launcher(kernel_name, [entry], None)
    return probe.spec_of(value)[0]


def is_runtime_array(value):
    """A qd.ndarray held by a data_oriented object: a leaf, read again on every call (fields are globals)."""
    return isinstance(value, Ndarray)
