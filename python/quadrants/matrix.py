# python/quadrants/matrix.py: qd.Matrix / qd.Vector: Python-scope values and the .field/.ndarray constructors.
import numpy as np


class Matrix:
    """A small matrix value in Python scope; inside kernels the frontend scalarizes Matrix(...)."""

    def __init__(self, values, dt=None):
        self._values = np.array(values, dtype=None if dt is None else dt.numpy)
        if self._values.ndim not in (1, 2):
            raise ValueError(f"qd.Matrix expects a 1-d or 2-d list of numbers, but got shape {self._values.shape}.")

    @classmethod
    def _wrap(cls, values):
        obj = (Vector if values.ndim == 1 else Matrix).__new__(Vector if values.ndim == 1 else Matrix)
        obj._values = values
        return obj

    @property
    def n(self):
        return self._values.shape[0]

    @property
    def m(self):
        return 1 if self._values.ndim == 1 else self._values.shape[1]

    def to_numpy(self):
        return self._values.copy()

    def to_list(self):
        return self._values.tolist()

    def __getitem__(self, key):
        value = self._values[key]
        return value.item() if np.ndim(value) == 0 else Matrix._wrap(value)

    def __setitem__(self, key, value):
        self._values[key] = value

    def __len__(self):
        return self.n

    def __iter__(self):
        return (self[i] for i in range(self.n))

    def __eq__(self, other):
        other = other._values if isinstance(other, Matrix) else np.asarray(other)
        return bool(np.array_equal(self._values, other))

    def __repr__(self):
        return f"{type(self).__name__}({self._values.tolist()})"

    @staticmethod
    def field(n, m, dtype, shape=None, **kwargs):
        """A field of n x m matrices; its numpy shape is shape + (n, m)."""
        from .field import MatrixField

        return MatrixField(dtype, shape, (n, m), **kwargs)

    @staticmethod
    def ndarray(n, m, dtype, shape=None, **kwargs):
        """An ndarray of n x m matrices; its numpy shape is shape + (n, m)."""
        from .ndarray import Ndarray

        return Ndarray(dtype, shape, (n, m), **kwargs)


class Vector(Matrix):
    """A small vector value in Python scope."""

    def __init__(self, values, dt=None):
        super().__init__(values, dt)
        if self._values.ndim != 1:
            raise ValueError(f"qd.Vector expects a flat list of numbers, but got shape {self._values.shape}.")

    @staticmethod
    def field(n, dtype, shape=None, **kwargs):
        """A field of n-vectors; its numpy shape is shape + (n,)."""
        from .field import MatrixField

        return MatrixField(dtype, shape, (n,), **kwargs)

    @staticmethod
    def ndarray(n, dtype, shape=None, **kwargs):
        """An ndarray of n-vectors; its numpy shape is shape + (n,)."""
        from .ndarray import Ndarray

        return Ndarray(dtype, shape, (n,), **kwargs)
