# python/quadrants/linalg/sparse_matrix.py: qd.linalg.SparseMatrix (compressed rows on the host) and
# qd.linalg.SparseMatrixBuilder, which kernels fill with `builder[i, j] += value`.
#
# A builder is a data_oriented object holding three triplet ndarrays and a counter; a kernel parameter
# annotated qd.types.sparse_matrix_builder() is a template, and the frontend turns `builder[i, j] += v`
# into a call of its `_qd_subscript_iadd` func (frontend/stmts.py), which claims a slot with an atomic add.
# Triplets past max_num_triplets are counted but not stored; build() then raises rather than drop them.
# A matrix is host memory in compressed sparse rows (numpy), with duplicates summed as upstream does.
import numpy as np

from quadrants.base import dtypes as _dtypes
from quadrants.base.errors import QuadrantsRuntimeError
from quadrants.data.ndarray import Ndarray, ndarray as make_ndarray
from quadrants.frontend.builtins import atomic_add
from quadrants.frontend.data_oriented import data_oriented
from quadrants.frontend.funcs import func

_STORAGE_FORMATS = ("col_major", "row_major")


def _numpy_dtype(dtype):
    if dtype not in (_dtypes.f32, _dtypes.f64):
        raise TypeError(f"qd.linalg: sparse matrices hold qd.f32 or qd.f64 values, but got dtype {dtype!r}.")
    return np.float32 if dtype == _dtypes.f32 else np.float64


def _check_storage_format(storage_format):
    if storage_format not in _STORAGE_FORMATS:
        raise ValueError(f"qd.linalg: storage_format must be one of {_STORAGE_FORMATS}, but got {storage_format!r}.")


class SparseMatrix:
    """An n x m sparse matrix of f32 or f64 values. Build one with a SparseMatrixBuilder or build_from_ndarray;
    it supports +, -, * (by a scalar, or elementwise by a matrix), @ (by a matrix or a vector), transpose() and
    A[i, j] reads and writes. storage_format is kept for upstream's API; the storage is always compressed rows."""

    def __init__(self, n=None, m=None, sm=None, dtype=_dtypes.f32, storage_format="col_major"):
        _check_storage_format(storage_format)
        self.dtype = dtype
        self.storage_format = storage_format
        self._np_dtype = _numpy_dtype(dtype)
        if sm is not None:  # (indptr, indices, data, (n, m)), as the operators below make them
            self._indptr, self._indices, self._data, (self.n, self.m) = sm
            return
        if n is None:
            raise TypeError("qd.linalg.SparseMatrix() needs its shape: SparseMatrix(n, m, dtype=...).")
        self.n, self.m = int(n), int(m if m is not None else n)
        self._indptr = np.zeros(self.n + 1, np.int64)
        self._indices = np.zeros(0, np.int64)
        self._data = np.zeros(0, self._np_dtype)

    # ---- construction ----------------------------------------------------------------------------------
    @classmethod
    def _from_triplets(cls, n, m, rows, cols, values, dtype, storage_format="col_major"):
        """The matrix with values summed per (row, col); raises naming an index outside n x m."""
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        bad = (rows < 0) | (rows >= n) | (cols < 0) | (cols >= m)
        if bad.any():
            k = int(np.argmax(bad))
            raise IndexError(f"qd.linalg: entry ({rows[k]}, {cols[k]}) is outside the {n}x{m} sparse matrix.")
        values = np.asarray(values, _numpy_dtype(dtype))
        keys = rows * m + cols
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        unique, starts = np.unique(keys, return_index=True)
        data = np.add.reduceat(values, starts) if len(values) else values
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(unique // m, minlength=n), out=indptr[1:])
        return cls(sm=(indptr, unique % m, data.astype(_numpy_dtype(dtype)), (n, m)), dtype=dtype,
                   storage_format=storage_format)

    def _triplets(self):
        rows = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self._indptr))
        return rows, self._indices, self._data

    def _like(self, n, m, rows, cols, values):
        return SparseMatrix._from_triplets(n, m, rows, cols, values, self.dtype, self.storage_format)

    def build_from_ndarray(self, ndarray):
        """Sets the matrix from triplets (row, col, value): a qd.Vector.ndarray(3, ...) or a flat ndarray
        whose length is a multiple of 3. Entries given twice are summed."""
        flat = np.asarray(ndarray.to_numpy() if hasattr(ndarray, "to_numpy") else ndarray, np.float64).reshape(-1)
        if flat.size % 3:
            raise ValueError(f"build_from_ndarray(): the ndarray holds (row, col, value) triplets, so its size must "
                             f"be a multiple of 3, but it has {flat.size} values.")
        triplets = flat.reshape(-1, 3)
        built = self._like(self.n, self.m, triplets[:, 0], triplets[:, 1], triplets[:, 2])
        self._indptr, self._indices, self._data = built._indptr, built._indices, built._data

    # ---- reading ---------------------------------------------------------------------------------------
    @property
    def shape(self):
        return (self.n, self.m)

    def _slot(self, indices):
        if not (isinstance(indices, tuple) and len(indices) == 2):
            raise TypeError(f"a sparse matrix is indexed with A[i, j], but got A[{indices!r}].")
        i, j = (int(k) for k in indices)
        if not (0 <= i < self.n and 0 <= j < self.m):
            raise IndexError(f"index ({i}, {j}) is outside the {self.n}x{self.m} sparse matrix.")
        start, end = self._indptr[i], self._indptr[i + 1]
        k = start + int(np.searchsorted(self._indices[start:end], j))
        return i, j, k, k < end and self._indices[k] == j

    def __getitem__(self, indices):
        _, _, k, present = self._slot(indices)
        return self._data[k].item() if present else 0.0

    def __setitem__(self, indices, value):
        i, j, k, present = self._slot(indices)
        if present:
            self._data[k] = value
            return
        self._indices = np.insert(self._indices, k, j)
        self._data = np.insert(self._data, k, value)
        self._indptr[i + 1:] += 1

    def to_numpy(self):
        """The matrix as a dense numpy array (for inspection and small matrices)."""
        dense = np.zeros((self.n, self.m), self._np_dtype)
        rows, cols, values = self._triplets()
        dense[rows, cols] = values
        return dense

    def __str__(self):
        return "\n".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in self.to_numpy())

    def __repr__(self):
        return f"<qd.linalg.SparseMatrix {self.n}x{self.m} {self.dtype!r}, {len(self._data)} stored entries>"

    def mmwrite(self, filename):
        """Writes the matrix in Matrix Market coordinate format (1-based indices)."""
        rows, cols, values = self._triplets()
        with open(filename, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{self.n} {self.m} {len(values)}\n")
            for r, c, v in zip(rows, cols, values):
                f.write(f"{r + 1} {c + 1} {v!r}\n")

    # ---- arithmetic ------------------------------------------------------------------------------------
    def _check_same_shape(self, other, op):
        if not isinstance(other, SparseMatrix):
            raise TypeError(f"sparse matrix {op}: expected another qd.linalg.SparseMatrix, but got "
                            f"{type(other).__name__}.")
        if other.shape != self.shape:
            raise ValueError(f"sparse matrix {op}: shapes {self.shape} and {other.shape} differ.")

    def __add__(self, other):
        self._check_same_shape(other, "+")
        (r1, c1, v1), (r2, c2, v2) = self._triplets(), other._triplets()
        return self._like(self.n, self.m, np.concatenate([r1, r2]), np.concatenate([c1, c2]),
                          np.concatenate([v1, v2]))

    def __sub__(self, other):
        self._check_same_shape(other, "-")
        return self + other * -1.0

    def __neg__(self):
        return self * -1.0

    def __mul__(self, other):
        if isinstance(other, SparseMatrix):  # elementwise: only positions stored in both survive
            self._check_same_shape(other, "*")
            (r1, c1, v1), (r2, c2, v2) = self._triplets(), other._triplets()
            _, a, b = np.intersect1d(r1 * self.m + c1, r2 * self.m + c2, assume_unique=True, return_indices=True)
            return self._like(self.n, self.m, r1[a], c1[a], v1[a] * v2[b])
        if isinstance(other, (int, float, np.number)):
            return SparseMatrix(sm=(self._indptr.copy(), self._indices.copy(),
                                    (self._data * other).astype(self._np_dtype), self.shape),
                                dtype=self.dtype, storage_format=self.storage_format)
        raise TypeError(f"a sparse matrix can be multiplied by a number or another sparse matrix, but got "
                        f"{type(other).__name__}; use @ for a matrix product.")

    __rmul__ = __mul__

    def transpose(self):
        rows, cols, values = self._triplets()
        return self._like(self.m, self.n, cols, rows, values)

    def __matmul__(self, other):
        if isinstance(other, SparseMatrix):
            return self._matmul_sparse(other)
        return self._matmul_vector(other)

    def _matmul_sparse(self, other):
        if self.m != other.n:
            raise ValueError(f"sparse matrix @: a {self.n}x{self.m} matrix cannot multiply a "
                             f"{other.n}x{other.m} one.")
        rows, cols, values = self._triplets()
        # Each stored A[i, k] meets every stored B[k, j]: expand those pairs, then sum per (i, j).
        lengths = np.diff(other._indptr)[cols]
        pair_rows = np.repeat(rows, lengths)
        pair_values = np.repeat(values, lengths)
        starts = np.repeat(other._indptr[cols], lengths)
        offsets = np.arange(len(pair_rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        picked = starts + offsets
        return self._like(self.n, other.m, pair_rows, other._indices[picked], pair_values * other._data[picked])

    def _matmul_vector(self, other):
        """A @ x for a vector x: a qd.ndarray gives a qd.ndarray, a field or numpy array a numpy array."""
        x = other.to_numpy() if hasattr(other, "to_numpy") else np.asarray(other)
        if x.shape != (self.m,):
            raise ValueError(f"sparse matrix @: a {self.n}x{self.m} matrix needs a vector of {self.m} values, "
                             f"but got one of shape {x.shape}.")
        result = self._dot(x.astype(self._np_dtype, copy=False))
        if isinstance(other, Ndarray):
            out = make_ndarray(other.dtype, self.n)
            out.from_numpy(result.astype(out.to_numpy().dtype))
            return out
        return result

    def _dot(self, x):
        """A @ x for a 1-d numpy array, summed per row without a dense matrix."""
        rows, cols, values = self._triplets()
        return np.bincount(rows, weights=values * x[cols], minlength=self.n).astype(self._np_dtype)


@data_oriented
class SparseMatrixBuilder:
    """Collects (row, col, value) triplets from kernels (`builder[i, j] += v` on a parameter annotated
    qd.types.sparse_matrix_builder()); build() sums them into a SparseMatrix and empties the builder."""

    def __init__(self, num_rows=None, num_cols=None, max_num_triplets=0, dtype=_dtypes.f32,
                 storage_format="col_major"):
        if num_rows is None or num_rows <= 0 or (num_cols is not None and num_cols <= 0):
            raise ValueError(f"SparseMatrixBuilder(): num_rows and num_cols must be positive, but got "
                             f"{num_rows} and {num_cols}.")
        if max_num_triplets <= 0:
            raise ValueError(f"SparseMatrixBuilder(): max_num_triplets must be positive, but got {max_num_triplets}.")
        _check_storage_format(storage_format)
        _numpy_dtype(dtype)
        self.num_rows, self.num_cols = int(num_rows), int(num_cols if num_cols is not None else num_rows)
        self.dtype = dtype
        self.storage_format = storage_format
        self.max_num_triplets = int(max_num_triplets)
        self._rows = make_ndarray(_dtypes.i32, self.max_num_triplets)
        self._cols = make_ndarray(_dtypes.i32, self.max_num_triplets)
        self._values = make_ndarray(dtype, self.max_num_triplets)
        self._count = make_ndarray(_dtypes.i32, 1)

    @func
    def _qd_subscript_iadd(self, i, j, value):
        k = atomic_add(self._count[0], 1)
        if k < self.max_num_triplets:
            self._rows[k] = i
            self._cols[k] = j
            self._values[k] = value

    @func
    def _qd_subscript_isub(self, i, j, value):
        self._qd_subscript_iadd(i, j, -value)

    def _stored(self):
        count = int(self._count.to_numpy()[0])
        if count > self.max_num_triplets:
            raise QuadrantsRuntimeError(
                f"SparseMatrixBuilder: kernels added {count} triplets, more than max_num_triplets="
                f"{self.max_num_triplets}; the extra ones were not stored. Make the builder with a larger "
                f"max_num_triplets.")
        return (self._rows.to_numpy()[:count], self._cols.to_numpy()[:count], self._values.to_numpy()[:count])

    def print_triplets(self):
        rows, cols, values = self._stored()
        print(f"n={self.num_rows}, m={self.num_cols}, num_triplets={len(values)} (max={self.max_num_triplets})")
        for r, c, v in zip(rows, cols, values):
            print(f"({r}, {c}) val={v}")

    def build(self, dtype=None, _format="CSR"):
        """The matrix of the triplets added so far (duplicates summed); the builder is empty afterwards."""
        dtype = self.dtype if dtype is None else dtype
        rows, cols, values = self._stored()
        matrix = SparseMatrix._from_triplets(self.num_rows, self.num_cols, rows, cols, values, dtype,
                                             self.storage_format)
        self._count.from_numpy(np.zeros(1, np.int32))
        return matrix
