# python/quadrants/matrix.py: qd.Matrix / qd.Vector: Python-scope values and the .field/.ndarray constructors.
import numpy as np

_SWIZZLE_GROUPS = ("xyzw", "rgba", "stpq")


def _swizzle_indices(name):
    """The components a swizzle such as 'x', 'xy' or 'rgba' names, or None when name is not one."""
    if not 1 <= len(name) <= 4:
        return None
    for group in _SWIZZLE_GROUPS:
        if all(c in group for c in name):
            return [group.index(c) for c in name]
    return None


def _rebuild(values):
    return Matrix._wrap(values)


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
    def _shape(self):
        return self._values.shape

    @property
    def n(self):
        return self._shape[0]

    @property
    def m(self):
        return 1 if len(self._shape) == 1 else self._shape[1]

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
        return f"{'Vector' if len(self._shape) == 1 else 'Matrix'}({self.to_list()})"

    def __reduce__(self):
        # Copies and pickles are plain values, also of a container's element (see _element_ref.py).
        return _rebuild, (self.to_numpy(),)

    # --- swizzles: v.x, v.xy, v.rgba = ... (vectors only, as in Quadrants) ------------------------
    def __getattr__(self, name):
        indices = _swizzle_indices(name) if not name.startswith("_") else None
        if indices is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._check_swizzle(name, indices)
        if len(indices) == 1:
            return self[indices[0]]
        return Vector([self[i] for i in indices])

    def __setattr__(self, name, value):
        indices = _swizzle_indices(name) if not name.startswith("_") else None
        if indices is None:
            object.__setattr__(self, name, value)
            return
        self._check_swizzle(name, indices)
        if len(indices) == 1:
            self[indices[0]] = value
            return
        values = list(value.to_list() if isinstance(value, Matrix) else value)
        if len(values) != len(indices):
            raise ValueError(f"Swizzle '{name}' takes {len(indices)} values, but got {len(values)}.")
        for i, v in zip(indices, values):
            self[i] = v

    def _check_swizzle(self, name, indices):
        if len(self._shape) != 1:
            raise AttributeError(f"Swizzles such as '.{name}' are for vectors, but this is a {self.n}x{self.m} matrix.")
        if max(indices) >= self.n:
            group = next(g for g in _SWIZZLE_GROUPS if name[0] in g)
            raise AttributeError(f"A {self.n}-vector has components {', '.join(group[: self.n])}, but got '.{name}'.")

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
