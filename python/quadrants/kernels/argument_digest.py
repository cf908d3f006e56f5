# python/quadrants/kernels/argument_digest.py: what the translation cache (translation_cache.py) keys a call's
# arguments on, as one digest; upstream's fast-cache args_hasher (lang/_fast_caching/args_hasher.py) answers with it.
"""Each argument by its annotation (None for none):

- a template argument (`qd.template()`, `qd.Template`) and a field by their description (translation_inputs.describe):
  a value by itself, a field or ndarray by dtype, shapes, memory order and SNode path, a user object by its class;
- an array (qd.ndarray, numpy, torch) by the launcher's specialization: dtype, ndim, element shape, contiguity,
  writability;
- a scalar by its annotation's dtype (the kernel converts the value), or by its type when it has no annotation;
- a dataclass by its members' names and their parts (the class itself is the parameter annotation's business).

What the cache checks before it uses an entry instead of keying on it is not in the digest: the attributes a
translation read from a user object (data_oriented members, dataclass members read at compile time) and the sources
of the functions it inlined. So two data_oriented objects of one class digest equal whatever their members hold."""
import dataclasses
import hashlib

import numpy as np

from quadrants.base.dtypes import DataType
from quadrants.data.field import Field
from quadrants.data.ndarray import Ndarray
from quadrants.data.struct_field import StructField
from quadrants.data.tensor import Tensor
from quadrants.frontend.compound_params import probe_spec
from quadrants.kernels.translation_inputs import Undescribable, describe
from quadrants.types.annotations import NdarrayType, Template, scalar_dtype_name

_ANY_ARRAY = NdarrayType()  # a parameter that takes any array: its specialization is the array's own


def is_template(annotation):
    return annotation is Template or isinstance(annotation, Template)


def _is_array(value):
    return isinstance(value, (Ndarray, np.ndarray)) or type(value).__module__.split(".", 1)[0] == "torch"


def argument_part(value, annotation):
    """What the key holds for one argument (see the module's docstring); raises Undescribable."""
    if value is None:
        return ("None",)
    if is_template(annotation) or isinstance(value, (Field, StructField, Tensor)):
        return ("described", describe(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ("dataclass", tuple((member.name, argument_part(getattr(value, member.name), member.type))
                                   for member in dataclasses.fields(value)))
    if _is_array(value):
        array_type = annotation if isinstance(annotation, NdarrayType) else _ANY_ARRAY
        try:
            return probe_spec("arguments_digest", array_type.launcher_entry("arg"), value)
        except Exception as exc:  # the launcher's own refusal of this array: no translation either
            raise Undescribable(f"an array the launcher refuses ({exc})") from exc
    if isinstance(value, (bool, int, float, complex, np.generic)):
        if isinstance(annotation, DataType):  # the kernel converts the value to the parameter's dtype
            return ("scalar", scalar_dtype_name(annotation))
        return ("scalar", type(value).__module__, type(value).__qualname__)
    return ("described", describe(value))  # data_oriented objects and the like: by class, members checked


def arguments_digest(args, annotations):
    """The hex digest of what the cache keys these arguments on, or None when one cannot be described."""
    try:
        parts = [argument_part(value, annotation) for value, annotation in zip(args, annotations)]
    except (Undescribable, RecursionError):
        return None
    return hashlib.sha256(repr(parts).encode()).hexdigest()
