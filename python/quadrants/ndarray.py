# python/quadrants/ndarray.py: qd.ndarray, an array passed to kernels as an argument.
from ._container import ArrayContainer
from . import _dtypes


class Ndarray(ArrayContainer):
    """A dense array that kernels take as a qd.types.ndarray() argument."""

    _kind = "ndarray"

    @classmethod
    def _wrap(cls, array):
        """An Ndarray around an existing _core.Array (e.g. imported through DLPack)."""
        obj = cls.__new__(cls)
        ArrayContainer.__init__(obj, _dtypes.to_dtype(array.dtype), array.shape, (), _array=array)
        return obj

    @property
    def element_shape(self):
        return self._element_shape


def ndarray(dtype, shape=None):
    """An ndarray of scalars: qd.ndarray(qd.i32, shape=(10,))."""
    return Ndarray(dtype, shape, ())
