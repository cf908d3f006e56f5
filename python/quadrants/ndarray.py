# python/quadrants/ndarray.py: qd.ndarray, an array passed to kernels as an argument.
import math

from ._container import ArrayContainer, MatrixContainer
from . import _dtypes


class Ndarray(ArrayContainer):
    """A dense array that kernels take as a qd.types.ndarray() argument."""

    _kind = "ndarray"
    grad = None  # the gradient ndarray of needs_grad=True (quadrants/ad)
    dual = None  # the dual ndarray of needs_dual=True (forward mode, quadrants/ad)

    @classmethod
    def _wrap(cls, array):
        """An Ndarray around an existing _core.Array (e.g. imported through DLPack)."""
        obj = cls.__new__(cls)
        ArrayContainer.__init__(obj, _dtypes.to_dtype(array.dtype), array.shape, (), _array=array)
        return obj

    @property
    def element_shape(self):
        return self._element_shape

    def __deepcopy__(self, memo):
        """copy.deepcopy(): a new ndarray of the same type and shape holding a copy of the elements."""
        copied = Ndarray(self.dtype, self.shape, ()) if type(self) is Ndarray else \
            MatrixNdarray(self.dtype, self.shape, self._element_shape)
        copied.copy_from(self)
        memo[id(self)] = copied
        return copied

    def __reduce__(self):
        """pickle: the dtype, shape, element shape and a numpy copy of the elements (never the memory)."""
        return _unpickle, (self.dtype, self.shape, self._element_shape, self.to_numpy(), getattr(self, "_qd_layout", None))

    def _get_element_size(self):
        """Bytes per element (a vector/matrix element counts all its entries), as upstream reports it."""
        return self.dtype.numpy.itemsize * math.prod(self._element_shape)

    def _get_nelement(self):
        """The number of elements: the product of the shape (vector/matrix entries not counted)."""
        return math.prod(self.shape)


class MatrixNdarray(MatrixContainer, Ndarray):
    """An ndarray of vectors (element shape (n,)) or matrices (element shape (n, m))."""

    def __init__(self, dtype, shape, element_shape, needs_grad=False, needs_dual=False):
        super().__init__(dtype, shape, self._checked_element_shape(element_shape))
        if needs_grad:
            self.grad = _grad(self, lambda: MatrixNdarray(self.dtype, self.shape, self._element_shape))
        if needs_dual:
            from .ad._grads import dual_twin

            self.dual = dual_twin(self, lambda: MatrixNdarray(self.dtype, self.shape, self._element_shape), True)


def _unpickle(dtype, shape, element_shape, data, tensor_layout=None):
    array = MatrixNdarray(dtype, shape, element_shape) if element_shape else Ndarray(dtype, shape, ())
    array.from_numpy(data)
    if tensor_layout is not None:  # qd.tensor(layout=...) (_compat_names.py)
        array._qd_layout = tensor_layout
    return array


def ndarray(dtype, shape=None, needs_grad=False, needs_dual=False):
    """An ndarray of scalars, qd.ndarray(qd.i32, shape=(10,)), or of vectors/matrices, qd.ndarray(qd.math.vec3, 10)."""
    from .field import element_dtype
    from .lang.types import VectorType

    if isinstance(dtype, VectorType):
        return MatrixNdarray(element_dtype(dtype), shape, dtype.shape, needs_grad=needs_grad, needs_dual=needs_dual)
    from .struct import StructType, unsupported_ndarray_message

    if isinstance(dtype, StructType):
        raise TypeError(unsupported_ndarray_message(dtype))
    array = Ndarray(dtype, shape, ())
    if needs_grad:
        array.grad = _grad(array, lambda: Ndarray(array.dtype, array.shape, ()))
    if needs_dual:
        from .ad._grads import dual_twin

        array.dual = dual_twin(array, lambda: Ndarray(array.dtype, array.shape, ()), True)
    return array


def _grad(primal, make):
    from .ad._grads import grad_twin

    return grad_twin(primal, make, True)
