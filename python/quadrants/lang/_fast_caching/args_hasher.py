# python/quadrants/lang/_fast_caching/args_hasher.py: upstream's argument hasher, answered by the translation cache:
# the part of a kernel's cache key (kernels/translation_cache.py) that a call's arguments give.
"""`hash_args(raise_on_templated_floats, args, arg_metas)` hashes what our translation cache keys a call's arguments
on, each argument by its annotation (an ArgMetadata, or None for none):

- a template argument (`qd.template()`, `qd.Template`) and a field by their description (translation_inputs.describe):
  a value by itself, a field or ndarray by dtype, shapes, memory order and SNode path, a user object by its class.
  Fields are cacheable here (upstream skips its fast cache for them);
- an array (qd.ndarray, numpy, torch) by the launcher's specialization: dtype, ndim, element shape, contiguity,
  writability;
- a scalar by its annotation's dtype (the kernel converts the value), or by its type when it has no annotation;
- a dataclass by its members' names and their parts (the class itself is the parameter annotation's business).

What the cache checks before it uses an entry instead of hashing it is not in this hash: the attributes a translation
read from a user object (a data_oriented member, a dataclass member a kernel reads at compile time), the sources of
the functions it inlined. So two data_oriented objects of one class hash equal whatever their members hold, and
FIELD_METADATA_CACHE_VALUE changes nothing here: a member read at compile time is checked whether marked or not.
An argument the cache cannot describe gives FastcacheSkip.WARN, as a translation that read one is not cached."""
import dataclasses
import enum
import hashlib

import numpy as np

from quadrants.base.dtypes import DataType
from quadrants.data.field import Field
from quadrants.data.ndarray import Ndarray
from quadrants.data.struct_field import StructField
from quadrants.data.tensor import Tensor
from quadrants.frontend.compound_params import probe_spec
from quadrants.frontend.templated_floats import check_template_arguments
from quadrants.kernels.translation_inputs import Undescribable, describe
from quadrants.types.annotations import NdarrayType, Template, scalar_dtype_name

FIELD_METADATA_CACHE_VALUE = "add_value_to_cache_key"  # upstream's dataclass field marker; see the header

_ANY_ARRAY = NdarrayType()  # a parameter that takes any array: its specialization is the array's own


class FastcacheSkip(enum.Enum):
    """Why an argument list has no cache key: WARN, an argument the cache cannot describe. FIELD_VIA_TENSOR is
    upstream's name for a field passed through qd.Tensor; fields are cacheable here, so it is never returned."""

    FIELD_VIA_TENSOR = "field_via_tensor"
    WARN = "warn"


def _is_template(annotation):
    return annotation is Template or isinstance(annotation, Template)


def _is_array(value):
    return isinstance(value, (Ndarray, np.ndarray)) or type(value).__module__.split(".", 1)[0] == "torch"


def _part(value, annotation):
    """What the key holds for one argument (see the header); raises Undescribable."""
    if value is None:
        return ("None",)
    if _is_template(annotation) or isinstance(value, (Field, StructField, Tensor)):
        return ("described", describe(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ("dataclass", tuple((member.name, _part(getattr(value, member.name), member.type))
                                   for member in dataclasses.fields(value)))
    if _is_array(value):
        array_type = annotation if isinstance(annotation, NdarrayType) else _ANY_ARRAY
        try:
            return probe_spec("hash_args", array_type.launcher_entry("arg"), value)
        except Exception as exc:  # the launcher's own refusal of this array: no translation either
            raise Undescribable(f"an array the launcher refuses ({exc})") from exc
    if isinstance(value, (bool, int, float, complex, np.generic)):
        if isinstance(annotation, DataType):  # the kernel converts the value to the parameter's dtype
            return ("scalar", scalar_dtype_name(annotation))
        return ("scalar", type(value).__module__, type(value).__qualname__)
    return ("described", describe(value))  # data_oriented objects and the like: by class, members checked


def hash_args(raise_on_templated_floats, args, arg_metas):
    """The hex digest of what the cache keys these arguments on, or FastcacheSkip.WARN when one cannot be described.
    raise_on_templated_floats: refuse a float template argument (or data_oriented member) with qd.init's
    raise_on_templated_floats=True error."""
    if len(args) != len(arg_metas):
        raise ValueError(f"hash_args: args and arg_metas must have the same length, got {len(args)} and "
                         f"{len(arg_metas)}")
    annotations = [getattr(meta, "annotation", None) for meta in arg_metas]
    if raise_on_templated_floats:
        positions = [k for k, annotation in enumerate(annotations) if _is_template(annotation)]
        params = [meta if getattr(meta, "name", None) else _Named(f"arg{k}") for k, meta in enumerate(arg_metas)]
        check_template_arguments("hash_args", params, positions, args)
    try:
        parts = [_part(value, annotation) for value, annotation in zip(args, annotations)]
    except (Undescribable, RecursionError):
        return FastcacheSkip.WARN
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class _Named:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


__all__ = ["FIELD_METADATA_CACHE_VALUE", "FastcacheSkip", "hash_args"]
