# python/quadrants/data/element_ref.py: one vector/matrix element of a field or ndarray, read and written through.
#
# `x[i]` on a container of vectors or matrices returns one of these, as in Quadrants: a qd.Vector or
# qd.Matrix whose entries live in the container, so `x[i][j] = v`, `x[i][j] += v`, `x[i].x = v` and
# `x[i][r, c] = v` change x. Nothing is cached: every read goes to the container, so a kernel's later
# writes are seen. Arithmetic on one gives plain, detached values, and so do copies and pickles.
import numbers

import numpy as np

from quadrants.data.matrix import Matrix, Vector
from quadrants.data.matrix_math import check_key, plain


def element_ref(container, index):
    """The element of `container` at the outer `index` (a list of ints), as a live Vector or Matrix."""
    element_shape = container._element_shape
    # Reads one entry so that a bad index, or a container freed by qd.reset(), fails here with the
    # container's own message (naming the index and the shape), not at some later use.
    container._array.get(index + [0] * len(element_shape))
    cls = VectorRef if len(element_shape) == 1 else MatrixRef
    return cls._bind(container, index, element_shape)


class _ElementRef:
    """Entries at container index `_base + (i,)` (vectors) or `_base + (i, j)` (matrices)."""

    @classmethod
    def _bind(cls, container, base, shape):
        ref = object.__new__(cls)
        object.__setattr__(ref, "_container", container)
        object.__setattr__(ref, "_base", list(base))
        object.__setattr__(ref, "_ref_shape", tuple(shape))
        return ref

    @property
    def _shape(self):
        return self._ref_shape

    @property
    def _values(self):
        """A fresh numpy copy of the entries, read from the container now."""
        get, base = self._container._array.get, self._base
        values = np.empty(self._ref_shape, self._container.dtype.numpy)
        for entry in np.ndindex(*self._ref_shape):
            values[entry] = get(base + list(entry))
        return values

    def _entry_index(self, key):
        """The index list of the one entry `key` names (negative indices count from the end), else None."""
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != len(self._ref_shape) or not all(_is_int(k) for k in key):
            return None
        index = []
        for k, extent in zip(key, self._ref_shape):
            k = int(k)
            if not -extent <= k < extent:
                raise IndexError(f"Index {key} is out of range for {_describe(self._ref_shape)}.")
            index.append(k + extent if k < 0 else k)
        return index

    def _row(self, key):
        """Row `key` of a matrix element, itself written through, or None when key is not one int."""
        if len(self._ref_shape) != 2 or not _is_int(key):
            return None
        rows = self._ref_shape[0]
        if not -rows <= key < rows:
            raise IndexError(f"Row {key} is out of range for {_describe(self._ref_shape)}.")
        return VectorRef._bind(self._container, self._base + [int(key) % rows], self._ref_shape[1:])

    def __getitem__(self, key):
        index = self._entry_index(key)
        if index is not None:
            return self._container._array.get(self._base + index)
        row = self._row(key)
        if row is not None:
            return row
        return Matrix.__getitem__(self, key)  # slices: a detached value

    def __setitem__(self, key, value):
        index = self._entry_index(key)
        if index is not None:
            self._container._array.set(self._base + index, value)
            return
        values = self._values
        check_key(key, self._ref_shape)
        values[key] = plain(value)
        self._store(values)

    def _store(self, values):
        set_entry, base = self._container._array.set, self._base
        for entry in np.ndindex(*self._ref_shape):
            set_entry(base + list(entry), values[entry].item())


class VectorRef(_ElementRef, Vector):
    """A vector element of a container (see the module comment)."""


class MatrixRef(_ElementRef, Matrix):
    """A matrix element of a container (see the module comment)."""


def _is_int(k):
    return isinstance(k, numbers.Integral) and not isinstance(k, bool)


def _describe(shape):
    return f"a {shape[0]}-vector" if len(shape) == 1 else f"a {shape[0]}x{shape[1]} matrix"
