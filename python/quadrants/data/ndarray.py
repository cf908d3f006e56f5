# python/quadrants/data/ndarray.py: qd.ndarray, an array passed to kernels as an argument.
#
# The classes are upstream's: qd.ScalarNdarray(dtype, shape), qd.VectorNdarray(n, dtype, shape) and
# qd.MatrixNdarray(n, m, dtype, shape), all qd.Ndarray. qd.ndarray() and qd.Vector/Matrix.ndarray() pick one;
# code here builds them through make_ndarray(dtype, shape, element_shape).
import math
import numbers

from quadrants.base import dtypes as _dtypes, registry
from quadrants.data.buffer_view import view_of_slice
from quadrants.data.container import ArrayContainer, HostCopies, MatrixContainer, positive_shape
from quadrants.data.field import element_dtype
from quadrants.data.grads import dual_twin, grad_twin
from quadrants.data.ndarray_handle import NdarrayHandle
from quadrants.data.ndarray_layout import physical_shape, set_layout
from quadrants.data.struct import StructType, unsupported_ndarray_message
from quadrants.runtime import init as _runtime
from quadrants.runtime.dlpack import import_dlpack
from quadrants.types.annotations import NdarrayElementType, NdarrayTypeMetadata, VectorType


class Ndarray(ArrayContainer):
    """A dense array that kernels take as a qd.types.ndarray() argument."""

    _kind = "ndarray"
    _memory_layout = None  # the layout tag (ndarray_layout.py); None: row-major, the shape as allocated
    _identity_tag = None  # the identity order, when it was written as the tag (which changes no memory)

    @classmethod
    def _wrap(cls, array):
        """An ndarray around an existing scalar _core.Array (e.g. imported through DLPack)."""
        target = ScalarNdarray if cls is Ndarray else cls
        obj = target.__new__(target)
        ArrayContainer.__init__(obj, _dtypes.to_dtype(array.dtype), array.shape, (), _array=array)
        return obj

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def shape(self):
        """The extents of the outer dims; None once qd.reset() freed the ndarray, as upstream's."""
        array = getattr(self, "_array", None)  # not yet there while the container is being created
        return None if array is not None and array.released else self._shape

    def __getattr__(self, name):
        # Upstream's `arr`, the handle of the allocation (arr.device_allocation_ptr(), arr.total_shape():
        # ndarray_handle.py), is an instance attribute there, so not a class property here (upstream's test_api
        # lists the class's names); made on each read, as the handle keeps the ndarray alive.
        if name == "arr":  # None once qd.reset() freed the allocation, as upstream's
            return None if self._array.released else NdarrayHandle(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def layout(self):
        """The axis order given to qd.tensor(layout=...), or None for the identity order (upstream's attribute)."""
        return self._memory_layout

    @property
    def _qd_layout(self):
        """Upstream's tag: the canonical axes outermost in memory first, or None when untagged (an identity order
        written as the tag reads back as written). Setting it reinterprets the row-major memory of the current
        physical shape in that order (ndarray_layout.py)."""
        layout = self._memory_layout
        return self._identity_tag if layout is None else layout

    @_qd_layout.setter
    def _qd_layout(self, layout):
        set_layout(self, layout)

    @property
    def _physical_shape(self):
        """The shape of the row-major allocation: the canonical shape permuted by the layout (upstream's name)."""
        return physical_shape(self._shape, self._memory_layout)

    def __getitem__(self, key):
        """An element (see ArrayContainer); a slice of a 1-D ndarray, arr[a:b], is the qd.BufferView of its elements."""
        if type(key) is slice:
            return view_of_slice(self, key)
        return ArrayContainer.__getitem__(self, key)

    def get_type(self):
        """Upstream's type record of this ndarray: element_type, shape, layout and needs_grad."""
        return NdarrayTypeMetadata(self.element_type, self._shape, self.grad is not None)

    def has_grad(self):
        return self.grad is not None

    def has_dual(self):
        return self.dual is not None

    def _empty_like(self):
        """A new zeroed ndarray of the same class, dtype, shape, element shape and memory order."""
        return make_in_layout(self.dtype, self._shape, self._element_shape, self._memory_layout)

    def __deepcopy__(self, memo):
        """copy.deepcopy(): a new ndarray of the same type and shape holding a copy of the elements."""
        copied = self._empty_like()  # in the same memory order
        copied.copy_from(self)
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        """pickle: the dtype, shape, element shape and a numpy copy of the elements (never the memory)."""
        return _unpickle, (self.dtype, self._shape, self._element_shape, self.to_numpy(), self._memory_layout)

    def _get_element_size(self):
        """Bytes per element (a vector/matrix element counts all its entries), as upstream reports it."""
        return self.dtype.numpy.itemsize * math.prod(self._element_shape)

    def _get_nelement(self):
        """The number of elements: the product of the shape (vector/matrix entries not counted)."""
        return math.prod(self._shape)

    def _add_twins(self, needs_grad, needs_dual):
        """needs_grad / needs_dual: the zeroed gradient and dual ndarrays (floating-point dtypes only)."""
        if needs_grad:
            self.grad = grad_twin(self, self._empty_like, True)
        if needs_dual:
            self.dual = dual_twin(self, self._empty_like, True)


class ScalarNdarray(HostCopies, Ndarray):
    """An ndarray of scalars: qd.ScalarNdarray(qd.f32, (4, 5)), as qd.ndarray(qd.f32, (4, 5))."""

    def __init__(self, dtype, arr_shape, needs_grad=False, needs_dual=False):
        super().__init__(dtype, arr_shape, ())
        self._add_twins(needs_grad, needs_dual)


class _ElementNdarray(MatrixContainer, HostCopies, Ndarray):
    """The vector and matrix ndarrays' shared part; element_shape (n,) or (n, m)."""

    def _init(self, dtype, shape, element_shape, needs_grad, needs_dual):
        Ndarray.__init__(self, dtype, shape, self._checked_element_shape(element_shape))
        self._add_twins(needs_grad, needs_dual)

    def _describe_elements(self):
        """n, m (MatrixContainer) and element_type: qd.types.vector/matrix of the elements, also upstream's tensor
        type, with element_type() and shape()."""
        MatrixContainer._describe_elements(self)
        self.element_type = NdarrayElementType(self._element_shape, self.dtype)


class VectorNdarray(_ElementNdarray):
    """An ndarray of n-vectors: qd.VectorNdarray(3, qd.f32, shape), as qd.Vector.ndarray(3, qd.f32, shape)."""

    def __init__(self, n, dtype, shape, needs_grad=False, needs_dual=False):
        self._init(dtype, shape, (_size("qd.VectorNdarray", "n", n),), needs_grad, needs_dual)


class MatrixNdarray(_ElementNdarray):
    """An ndarray of n x m matrices: qd.MatrixNdarray(2, 3, qd.f32, shape), as qd.Matrix.ndarray(2, 3, ...)."""

    def __init__(self, n, m, dtype, shape, needs_grad=False, needs_dual=False):
        self._init(dtype, shape, (_size("qd.MatrixNdarray", "n", n), _size("qd.MatrixNdarray", "m", m)), needs_grad,
                   needs_dual)


def _size(what, name, value):
    """A vector/matrix size argument, checked: a positive int (numpy ints too)."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{what}(): {name} must be a positive int, but got {value!r} ({type(value).__name__}).")
    return int(value)


def make_ndarray(dtype, shape, element_shape=(), needs_grad=False, needs_dual=False):
    """The ndarray class that fits element_shape: () scalars, (n,) vectors, (n, m) matrices."""
    if not element_shape:
        return ScalarNdarray(dtype, shape, needs_grad, needs_dual)
    element_shape = MatrixContainer._checked_element_shape(element_shape)  # names the element type's shape
    if len(element_shape) == 1:
        return VectorNdarray(element_shape[0], dtype, shape, needs_grad, needs_dual)
    if len(element_shape) == 2:
        return MatrixNdarray(element_shape[0], element_shape[1], dtype, shape, needs_grad, needs_dual)
    raise ValueError(f"ndarray elements are scalars, vectors or matrices, but got the element shape "
                     f"{tuple(element_shape)}.")


def make_in_layout(dtype, shape, element_shape, layout, needs_grad=False, needs_dual=False):
    """A zeroed ndarray of canonical shape `shape` stored in `layout` (upstream's qd.tensor(..., layout=...))."""
    array = make_ndarray(dtype, physical_shape(shape, layout), element_shape, needs_grad, needs_dual)
    if layout is not None:
        set_layout(array, layout)
    return array


def _unpickle(dtype, shape, element_shape, data, tensor_layout=None):
    """The pickled ndarray: canonical `shape`, stored in `tensor_layout` (qd.tensor(layout=...)), holding `data`."""
    array = make_in_layout(dtype, shape, element_shape, tensor_layout)
    array.from_numpy(data)
    return array


def ndarray(dtype, shape=None, needs_grad=False, needs_dual=False):
    """An ndarray of scalars, qd.ndarray(qd.i32, shape=(10,)), or of vectors/matrices, qd.ndarray(qd.math.vec3, 10).
    Under qd.init(qd.python) it is a torch tensor (interop/python_backend.py). A zero extent is refused, as
    upstream's qd.ndarray() refuses it (its qd.Vector.ndarray() and vec3.ndarray() take one: _ndarray_of)."""
    if _runtime.is_python_arch():
        return registry.get("python_backend").ndarray(dtype, shape, needs_grad=needs_grad, needs_dual=needs_dual)
    return _ndarray_of(dtype, positive_shape(shape, "qd.ndarray()"), needs_grad, needs_dual)


def _ndarray_of(dtype, shape=None, needs_grad=False, needs_dual=False):
    """qd.ndarray() without its shape rule: the element type's vec3.ndarray(shape) (types/annotations.py)."""
    if _runtime.is_python_arch():
        return registry.get("python_backend").ndarray(dtype, shape, needs_grad=needs_grad, needs_dual=needs_dual)
    if isinstance(dtype, VectorType):
        return make_ndarray(element_dtype(dtype), shape, dtype.shape, needs_grad, needs_dual)

    if isinstance(dtype, StructType):
        raise TypeError(unsupported_ndarray_message(dtype))
    return ScalarNdarray(dtype, shape, needs_grad, needs_dual)


def from_dlpack(obj):
    """A qd.ndarray sharing memory with any DLPack producer: writes on either side are seen by both."""
    return Ndarray._wrap(import_dlpack(obj))


registry.provide("ndarray", _ndarray_of)  # vec3.ndarray(...) (types/annotations.py)
registry.provide("vector_ndarray", VectorNdarray)  # qd.Vector.ndarray (matrix.py)
registry.provide("matrix_ndarray", MatrixNdarray)
