# python/quadrants/types/annotations.py: qd.types: parameter annotations (ndarray, template) and vector/matrix types.
#
# Type objects build values and containers (vec3(1, 2, 3), vec3.field(...), qd.types.struct(...)): those live on
# the data floor above, so they are reached through the registry (base/registry.py), which data fills.
import numpy as np

from quadrants.base import dtypes as _dtypes, registry
from quadrants.runtime import init as _runtime
from quadrants.types.enums import Layout
from quadrants.types.unpacked import reject


class Template:
    """The annotation `qd.template()`: the parameter is bound at compile time (a field, a number...)."""

    def __repr__(self):
        return "qd.template()"


template = Template


class SparseMatrixBuilderType(Template):
    """`qd.types.sparse_matrix_builder()`: a qd.linalg.SparseMatrixBuilder argument, which the kernel fills with
    `A[i, j] += v` (a template: the builder's arrays are read through it)."""

    def __repr__(self):
        return "qd.types.sparse_matrix_builder()"


sparse_matrix_builder = SparseMatrixBuilderType


class RefType:
    """The annotation `qd.ref(dtype)` of a func parameter: the caller's local itself, not a copy (as a local given
    to a qd.template() parameter): assigning to the parameter assigns to the caller's variable."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"qd.ref({self.dtype!r})"


ref = RefType


class NdarrayType:
    """`qd.types.ndarray(dtype=None, ndim=None)`: a missing dtype or ndim is specialized per call.

    dtype may be a scalar dtype or a vector/matrix type, whose shape becomes the element shape.
    """

    def __init__(self, dtype=None, ndim=None, element_dim=None, element_shape=None, needs_grad=None,
                 boundary="unsafe"):
        if ndim is not None and (not isinstance(ndim, int) or ndim < 0):
            raise ValueError(f"qd.types.ndarray(ndim=...) expects a non-negative int or None, but got {ndim!r}.")
        if isinstance(dtype, AnyElementType):  # qd.types.vector(): element_dim= by another name
            if element_dim not in (None, dtype.element_dim):
                raise ValueError(f"qd.types.ndarray({dtype!r}, element_dim={element_dim}): the dims disagree.")
            dtype, element_dim = dtype.dtype, dtype.element_dim
        self.dtype = _element_dtype(dtype, element_dim, element_shape)
        self.ndim = ndim
        # Upstream's element_dim= without element_shape=: vector (1) or matrix (2) elements of any size. A quadrants
        # vector/matrix ndarray specializes its element shape per call, as for qd.types.ndarray(), and an external
        # array's last element_dim axes become the elements (the launcher splits them off).
        self.element_dim = element_dim if element_shape is None else len(element_shape)
        self.needs_grad = needs_grad  # accepted as upstream does; gradients come from the argument itself
        if boundary not in ("unsafe", "clamp"):
            raise ValueError(f"qd.types.ndarray(boundary=...) expects 'unsafe' or 'clamp', but got {boundary!r}.")
        # "clamp": each outer index is clamped into the array's extent (frontend/exprs.py), as upstream does.
        self.boundary = boundary

    def dtype_name(self):
        """The scalar dtype name ('f32'), or None when the dtype is specialized per call."""
        if isinstance(self.dtype, VectorType):
            return scalar_dtype_name(float if self.dtype.dtype is None else self.dtype.dtype)
        return None if self.dtype is None else scalar_dtype_name(self.dtype)

    def element_shape(self):
        return self.dtype.shape if isinstance(self.dtype, VectorType) else ()

    def launcher_entry(self, name):
        """The tuple `_core.Launcher` expects for a parameter of this type; element_dim= without an element
        shape makes an external array's last axes the vector/matrix elements."""
        element_dim = 0 if self.element_shape() else (self.element_dim or 0)
        return ("array", name, self.dtype_name(), self.ndim, tuple(self.element_shape()), element_dim)

    def __repr__(self):
        return f"qd.types.ndarray(dtype={self.dtype!r}, ndim={self.ndim!r})"

    def __class_getitem__(cls, args):
        """qd.types.NDArray[dtype, ndim], upstream's subscript spelling of qd.types.ndarray(dtype, ndim)."""
        return cls(*args) if isinstance(args, tuple) else cls(args)


def _element_dtype(dtype, element_dim, element_shape):
    """Upstream's element_shape=/element_dim= beside a scalar dtype: element_shape makes it a vector/matrix type."""
    if element_dim is None and element_shape is None:
        return dtype
    if isinstance(dtype, VectorType):
        raise TypeError(f'Cannot specifiy matrix dtype "{dtype}" and element shape or dim at the same time.')
    if element_dim is not None and not 0 <= element_dim <= 2:
        raise ValueError("Only scalars, vectors, and matrices are allowed as elements of qd.types.ndarray()")
    if element_shape is None:
        return dtype
    element_shape = tuple(element_shape)
    if element_dim is not None and len(element_shape) != element_dim:
        raise ValueError(f"Both element_shape and element_dim are specified, but shape doesn't match specified dim: "
                         f"{len(element_shape)}!={element_dim}")
    if len(element_shape) > 2:
        raise ValueError("Only scalars, vectors, and matrices are allowed as elements of qd.types.ndarray()")
    return VectorType(element_shape, dtype) if element_shape else dtype


ndarray = NdarrayType
NDArray = NdarrayType  # upstream's name, used subscripted: x: qd.types.NDArray[qd.f32, 2]


class VectorType:
    """A vector (shape (n,)) or matrix (shape (n, m)) type: an ndarray element type or a constructor.

    Called inside a kernel, `qd.math.vec3(x, y, z)` builds a vector; dtype None means default_fp.
    """

    unpacked = False  # qd.types.vector(..., unpacked=True): a struct member stored as scalars (unpacked.py)

    def __init__(self, shape, dtype=None):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def n(self):
        return self.shape[0]

    @property
    def m(self):
        return self.shape[1] if len(self.shape) == 2 else 1

    @property
    def ndim(self):
        """1 for vectors, 2 for matrices (the element's dims, as upstream's MatrixType.ndim)."""
        return len(self.shape)

    def get_shape(self):
        return self.shape

    def __call__(self, *args):
        """In Python scope: vec3(1, 2, 3), vec4(v3, 1.0), mat2([[1, 2], [3, 4]]) or mat3(1) (all ones)."""
        reject(self, "instantiate")
        return registry.get("typed_matrix")(self, args)

    def field(self, shape=None, **kwargs):
        """qd.field(self, shape, ...): a field with elements of this type."""
        reject(self, "create a field of")
        return registry.get("field")(self, shape, **kwargs)

    def ndarray(self, shape=None, **kwargs):
        """qd.ndarray(self, shape, ...): an ndarray with elements of this type."""
        reject(self, "create an ndarray of")
        return registry.get("ndarray")(self, shape, **kwargs)

    def __eq__(self, other):
        # Equal shapes and dtypes, where no dtype means default_fp (so vec3 == vector(3, f32) by default).
        if not isinstance(other, VectorType):
            return NotImplemented
        return self.shape == other.shape and _dtype_or_default(self.dtype) == _dtype_or_default(other.dtype)

    def __hash__(self):
        return hash(("VectorType", self.shape))

    def __repr__(self):
        kind = "matrix" if len(self.shape) == 2 else "vector"
        unpacked = ", unpacked=True" if self.unpacked else ""
        return f"qd.types.{kind}({', '.join(map(str, self.shape))}, {self.dtype!r}{unpacked})"


class _ElementShape(tuple):
    """A vector/matrix type's shape tuple that may also be called, as upstream's tensor type's shape()."""

    def __call__(self):
        return list(self)


class NdarrayElementType(VectorType):
    """A vector/matrix ndarray's element_type: qd.types.vector/matrix, read also through upstream's
    tensor-type methods (element_type() the scalar dtype, shape() the element shape as a list)."""

    def __init__(self, shape, dtype):
        super().__init__(shape, dtype)
        self.shape = _ElementShape(self.shape)

    def element_type(self):
        return self.dtype


class NdarrayTypeMetadata:
    """What an ndarray's get_type() reports, as upstream: its element type, shape, layout and needs_grad."""

    def __init__(self, element_type, shape=None, needs_grad=False):
        self.element_type = element_type
        self.shape = shape
        self.layout = Layout.AOS  # components of an element lie together
        self.needs_grad = needs_grad

    def __repr__(self):
        return (f"NdarrayTypeMetadata(element_type={self.element_type!r}, shape={self.shape}, "
                f"needs_grad={self.needs_grad})")


class AnyElementType:
    """qd.types.vector() / qd.types.matrix() without sizes: as an ndarray dtype, vector (element_dim 1) or
    matrix (2) elements of any size, specialized per call like qd.types.ndarray(element_dim=...)."""

    def __init__(self, element_dim, dtype=None):
        self.element_dim = element_dim
        self.dtype = dtype

    def __repr__(self):
        return f"qd.types.{'vector' if self.element_dim == 1 else 'matrix'}(dtype={self.dtype!r})"


def vector(n=None, dtype=None, unpacked=False):
    """The type of n-vectors of `dtype`; without n, vectors of any size (an ndarray annotation's dtype).
    unpacked=True: only as a struct member, stored as n scalar members (types/unpacked.py)."""
    if n is None:
        return AnyElementType(1, dtype)
    vector_type = VectorType((n,), dtype)
    vector_type.unpacked = bool(unpacked)
    return vector_type


def matrix(n=None, m=None, dtype=None):
    """The type of n x m matrices of `dtype`; without n and m, matrices of any size (an ndarray annotation's dtype)."""
    if n is None and m is None:
        return AnyElementType(2, dtype)
    if n is None or m is None:
        raise TypeError(f"qd.types.matrix(n, m) needs both sizes or neither, but got n={n!r}, m={m!r}.")
    return VectorType((n, m), dtype)


def struct(**members):
    """The struct type with these members (scalar dtypes, vector/matrix types, struct types), in order."""
    return registry.get("struct_type")(members)


def _dtype_or_default(dtype):
    return scalar_dtype_name(float if dtype is None else dtype)


def scalar_dtype_name(dtype):
    """'f32' for qd.f32, numpy/torch dtypes, `int` and `float` (the current default_ip/default_fp)."""
    if dtype is int:
        return _runtime.config().default_ip.name
    if dtype is float:
        return _runtime.config().default_fp.name
    return _dtypes.to_dtype(dtype).name


def is_tensor(dtype):
    """Whether `dtype` is a vector or matrix type rather than a scalar dtype."""
    return isinstance(dtype, VectorType)


def _numpy_dtype(dtype):
    return None if dtype is None else np.dtype(_NUMPY_NAMES[scalar_dtype_name(dtype)])


_NUMPY_NAMES = {
    "u1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
    "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16", "f32": "float32", "f64": "float64",
}


__all__ = ["AnyElementType", "NDArray", "NdarrayElementType", "NdarrayType", "NdarrayTypeMetadata", "RefType",
           "SparseMatrixBuilderType", "Template", "VectorType", "is_tensor", "matrix", "ndarray", "ref",
           "scalar_dtype_name", "sparse_matrix_builder", "struct", "template", "vector"]
