# python/quadrants/kernels/fastcache_args.py: upstream's fastcache rule for a call's arguments (its args_hasher):
# which arguments a @qd.kernel(fastcache=True) call may be keyed on, and the text each contributes to the key.
"""Upstream's fast cache skips the frontend for a pure kernel, so its key must name everything a translation bakes
in from the arguments: an array's kind, dtype, ndim and layout tag; a template number's value (a runtime number by
its type); an enum member; a dataclass by its members (a member marked FIELD_METADATA_CACHE_VALUE by its value too);
a data_oriented object by its members (its numbers by value, unless template_primitives=False lifts them to runtime
arguments). Fields are not fast-cacheable (upstream leaves their offsets and SNode trees out of the key): a field
disables the fast cache for the call, silently when it came through a qd.Tensor annotation, with a warning otherwise,
and any other object warns [FASTCACHE][PARAM_INVALID].

This is the rule upstream's programs and tests observe (src_ll_cache_observations, the warnings). It is not what our
translation cache keys on (kernels/argument_digest.py): that cache checks what a translation read after the lookup,
so it caches kernels that take fields, and kernels that are not declared fastcache, as well."""
import dataclasses
import enum
import hashlib
import numbers
import sys

import numpy as np

from quadrants.base import log as _logging
from quadrants.data.field import Field
from quadrants.data.ndarray import MatrixNdarray, Ndarray, VectorNdarray
from quadrants.data.struct_field import StructField
from quadrants.data.tensor import Tensor
from quadrants.frontend.data_oriented import bakes_primitives, is_data_oriented
from quadrants.frontend.tensor_params import is_tensor_annotation
from quadrants.types.annotations import Template

FIELD_METADATA_CACHE_VALUE = "add_value_to_cache_key"  # dataclasses.field(metadata={...: True}): key on the value


class FastcacheSkip(enum.Enum):
    """Why a call has no fast-cache key: FIELD_VIA_TENSOR, a field given through a qd.Tensor annotation (silent);
    WARN, an argument the user should hear about."""

    FIELD_VIA_TENSOR = "field_via_tensor"
    WARN = "warn"


class _Meta:
    """An argument's annotation as the rule reads it (upstream's ArgMetadata without the name)."""

    __slots__ = ("annotation",)

    def __init__(self, annotation):
        self.annotation = annotation


_TEMPLATE_CHILD = _Meta(Template)  # a data_oriented member that is baked in: numbers by value
_RUNTIME_CHILD = _Meta(None)  # a member of a template_primitives=False object: numbers by type


class _Walk:
    """One hash_args call's state: whether a skip should be warned about."""

    __slots__ = ("raise_on_templated_floats", "warn")

    def __init__(self, raise_on_templated_floats):
        self.raise_on_templated_floats = raise_on_templated_floats
        self.warn = False


def hash_iterable_strings(strings, separator="_"):
    """SHA-256 hex digest of the strings, each followed by `separator` (so ["ab"] and ["a", "b"] differ)."""
    digest = hashlib.sha256()
    end = separator.encode("utf-8")
    for text in strings:
        digest.update(text.encode("utf-8"))
        digest.update(end)
    return digest.hexdigest()


def _is_template(meta):
    annotation = getattr(meta, "annotation", None)
    return annotation is Template or isinstance(annotation, Template)


def _is_torch_tensor(obj):
    torch = sys.modules.get("torch")  # never imported here: a torch tensor exists only once torch is
    return torch is not None and isinstance(obj, torch.Tensor)


def _array_text(obj):
    layout = getattr(obj, "_qd_layout", None)
    tag = "" if layout is None else f"-L{layout!r}"
    if isinstance(obj, MatrixNdarray):
        return f"[ndm-{obj.n}-{obj.m}-{obj.dtype}-{len(obj.shape)}{tag}]"
    if isinstance(obj, VectorNdarray):
        return f"[ndv-{obj.n}-{obj.dtype}-{len(obj.shape)}{tag}]"
    return f"[nd-{obj.dtype}-{len(obj.shape)}{tag}]"


def stringify_obj_type(raise_on_templated_floats, path, obj, arg_meta):
    """The text the key holds for one argument (path: where it sits, for messages; arg_meta: its annotation, or
    None), or None when it is not fast-cacheable."""
    return _text(_Walk(raise_on_templated_floats), path, obj, arg_meta)


def _text(walk, path, obj, meta):
    if isinstance(obj, Tensor):
        obj = obj._unwrap()
    if isinstance(obj, Ndarray):
        return _array_text(obj)
    if isinstance(obj, (Field, StructField)):
        if meta is not None and not is_tensor_annotation(getattr(meta, "annotation", None)):
            walk.warn = True
        return None
    if _is_torch_tensor(obj):
        return f"[pt-{obj.dtype}-{obj.ndim}]"
    if isinstance(obj, np.ndarray):
        return f"[np-{obj.dtype}-{obj.ndim}]"
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _dataclass_text(walk, path, obj)
    if is_data_oriented(obj):
        return _data_oriented_text(walk, path, obj)
    if isinstance(obj, (numbers.Number, np.number)):
        if not _is_template(meta):
            return str(type(obj))
        if walk.raise_on_templated_floats and isinstance(obj, float):
            raise ValueError(f"Floats should not be used in template parameters: {'.'.join(path)} is {obj!r} "
                             "(qd.init(raise_on_templated_floats=True)).")
        return f"{type(obj)}={obj}"
    if isinstance(obj, np.bool_):
        return f"np.bool_={obj}" if _is_template(meta) else "np.bool_"
    if isinstance(obj, enum.Enum):
        return f"enum-{obj.name}-{obj.value}"
    if obj is None:
        return "None"  # a singleton: its type is its value
    walk.warn = True
    _logging.warn(f"[FASTCACHE][PARAM_INVALID] Parameter with path {path} and type {type(obj)} not allowed by "
                  "fast cache.")
    return None


def _dataclass_text(walk, path, obj):
    parts = []
    for member in dataclasses.fields(obj):
        value = getattr(obj, member.name)
        text = _text(walk, path + (member.name,), value, None)
        if text is None:
            if isinstance(value, (Field, StructField)) and not is_tensor_annotation(member.type):
                walk.warn = True
            return None
        part = f"{member.name}: ({text})"
        if member.metadata.get(FIELD_METADATA_CACHE_VALUE, False):
            part += f" = {value}"
        parts.append(part)
    return "[" + ",".join(parts) + "]"


def _data_oriented_text(walk, path, obj):
    asdict = getattr(obj, "_asdict", None)  # a data_oriented NamedTuple
    members = asdict() if callable(asdict) else vars(obj)
    child = _TEMPLATE_CHILD if bakes_primitives(obj) else _RUNTIME_CHILD
    parts = ["da"]
    for name, value in members.items():
        text = _text(walk, path + (name,), value, child)
        if text is None:
            if walk.warn:
                _logging.warn(f"A fastcache kernel was given a @qd.data_oriented {type(obj).__qualname__} at "
                              f"{'.'.join(path)} whose member {name} ({type(value).__qualname__}) is not "
                              "fast-cacheable, so the call is not fast-cached.")
            return None
        parts.append(f"{name}: {text}")
    return ", ".join(parts)


def hash_args(raise_on_templated_floats, args, arg_metas):
    """The hex digest of the arguments' texts, or a FastcacheSkip when one is not fast-cacheable. arg_metas: one
    per argument, an object with .annotation (upstream's ArgMetadata, our KernelParam) or None."""
    if len(args) != len(arg_metas):
        raise ValueError(f"hash_args: args and arg_metas must have the same length, got {len(args)} and "
                         f"{len(arg_metas)}")
    walk = _Walk(raise_on_templated_floats)
    texts = []
    for k, (arg, meta) in enumerate(zip(args, arg_metas)):
        text = _text(walk, (str(k),), arg, meta)
        if not text:
            return FastcacheSkip.WARN if walk.warn else FastcacheSkip.FIELD_VIA_TENSOR
        texts.append(text)
    return hash_iterable_strings(texts)


__all__ = ["FIELD_METADATA_CACHE_VALUE", "FastcacheSkip", "hash_args", "hash_iterable_strings", "stringify_obj_type"]
