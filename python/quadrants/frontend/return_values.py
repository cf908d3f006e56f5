# python/quadrants/frontend/return_values.py: what kernels return: scalars, vectors, matrices, structs, tuples of them.
#
# A kernel's return annotation becomes a ReturnSpec tree. The IR returns the tree's scalars in order
# (`(returns T...)`, docs/IR.md); the launcher hands them back as one tuple, which build() turns into
# the qd.Vector/qd.Matrix/qd.Struct/tuple values the annotation names. A kernel returning one plain
# scalar needs no build step: the launcher returns the number itself.
#
# Annotations: a dtype (qd.f32, int, float), qd.types.vector/matrix and qd.math.vec3 ..., a struct
# type, and tuples of those written (qd.i32, qd.f32), tuple[qd.i32, qd.f32] or typing.Tuple[...].
import typing

import numpy as np

from quadrants.data.matrix import Matrix
from quadrants.data.struct import StructType
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import VectorType, _numpy_dtype, scalar_dtype_name

_NUMPY_DTYPES = {}  # dtype -> numpy dtype, for building returned vectors


class ReturnSpec:
    """kind: 'scalar' (annotation is a dtype), 'vector' (a VectorType), 'struct' (a struct type;
    children by member name) or 'tuple' (children in order)."""

    __slots__ = ("kind", "annotation", "children")

    def __init__(self, kind, annotation, children=None):
        self.kind = kind
        self.annotation = annotation
        self.children = children

    @property
    def is_plain_scalar(self):
        return self.kind == "scalar"

    def leaves(self):
        """The scalar leaves in order, as (kind, annotation): ('scalar', dtype) or ('vector', VectorType)."""
        if self.kind in ("scalar", "vector"):
            return [self]
        children = self.children.values() if self.kind == "struct" else self.children
        return [leaf for child in children for leaf in child.leaves()]

    def dtype_names(self, default_fp, default_ip):
        """The IR type of every returned scalar, in order."""
        names = []
        for leaf in self.leaves():
            if leaf.kind == "scalar":
                names.append(_dtype_name(leaf.annotation, default_fp, default_ip))
            else:
                dtype = _dtype_name(leaf.annotation.dtype, default_fp, default_ip)
                names += [dtype] * _size(leaf.annotation.shape)
        return names

    def build(self, values, k=0):
        """(the Python value of the returned scalars values[k:], shaped as the annotation; the next k)."""
        if self.kind == "scalar":
            return values[k], k + 1
        if self.kind == "vector":
            shape = self.annotation.shape
            size = shape[0] if len(shape) == 1 else shape[0] * shape[1]
            entries = np.array(values[k : k + size], dtype=self.numpy_dtype())
            return _wrap_matrix(entries if len(shape) == 1 else entries.reshape(shape)), k + size
        if self.kind == "struct":
            members = {}
            for key, child in self.children.items():
                members[key], k = child.build(values, k)
            return self.annotation(**members), k
        items = []
        for child in self.children:
            item, k = child.build(values, k)
            items.append(item)
        return tuple(items), k

    def numpy_dtype(self):
        """A vector's numpy dtype; `float`, `int` and no dtype follow qd.init()'s defaults."""
        dtype = self.annotation.dtype
        if dtype in (None, float, int):
            config = _runtime_config()
            dtype = config.default_ip if dtype is int else config.default_fp
        found = _NUMPY_DTYPES.get(dtype)
        if found is None:
            found = _NUMPY_DTYPES[dtype] = _numpy_dtype(dtype)
        return found

    def result_fn(self):
        """What the launcher calls with the tuple of returned scalars; None where that tuple (or its one
        number) is the result already: a plain scalar, or a tuple of plain scalars."""
        scalars = self.kind == "tuple" and len(self.children) > 1 and all(c.kind == "scalar" for c in self.children)
        if self.kind == "scalar" or scalars:
            return None
        return lambda values: self.build(values)[0]

    def __repr__(self):
        if self.kind == "tuple":
            return "(" + ", ".join(map(repr, self.children)) + ")"
        return repr(self.annotation)


def return_spec(annotation):
    """The ReturnSpec of a return annotation, None without one; a TypeError says what is not returnable."""
    if annotation is None or annotation is type(None):
        return None
    return _spec(annotation)


def _spec(annotation):
    if isinstance(annotation, VectorType):
        return ReturnSpec("vector", annotation)
    if isinstance(annotation, StructType):
        return ReturnSpec("struct", annotation, {key: _spec(t) for key, t in annotation.members.items()})
    items = tuple_items(annotation)
    if items is not None:
        if not items:
            raise TypeError("an empty tuple is not a return type")
        return ReturnSpec("tuple", annotation, [_spec(item) for item in items])
    if annotation not in (int, float):
        try:
            scalar_dtype_name(annotation)
        except (TypeError, ValueError):
            raise TypeError(f"{annotation!r} is not a dtype, vector, matrix, struct or tuple type") from None
    return ReturnSpec("scalar", annotation)


def tuple_items(annotation):
    """The item annotations of a tuple annotation ((a, b), tuple[a, b], typing.Tuple[a, b]); None otherwise."""
    if isinstance(annotation, (tuple, list)):
        return list(annotation)
    if typing.get_origin(annotation) is tuple:
        args = typing.get_args(annotation)
        if Ellipsis in args:
            raise TypeError(f"{annotation!r} has no fixed length, so it cannot be a return type")
        return list(args)
    return None


def _dtype_name(dtype, default_fp, default_ip):
    if dtype is None or dtype is float:
        return default_fp
    if dtype is int:
        return default_ip
    return scalar_dtype_name(dtype)


def _size(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n


def _wrap_matrix(entries):
    global _wrap_matrix
    _wrap_matrix = Matrix._wrap  # imported on first use: quadrants.matrix imports the language modules
    return _wrap_matrix(entries)


def _runtime_config():
    global _runtime_config
    _runtime_config = _runtime.config
    return _runtime_config()
