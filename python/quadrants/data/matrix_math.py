# python/quadrants/data/matrix_math.py: numpy helpers behind Python-scope qd.Vector/qd.Matrix values.
#
# Entries, operands and shapes are checked here, so that a bad value gets an error naming what was
# expected and what was given; matrix.py wraps the numpy results as values.
import numbers

import numpy as np

from quadrants.runtime import init as _runtime

_NUMERIC_KINDS = "biuf"  # bool, signed, unsigned, float: what a vector entry may be


class MatrixValue:
    """The base of qd.Matrix and qd.Vector (matrix.py): entries in the numpy array `_values`. The helpers here
    recognize values by this class, so that they need not import the classes built on them."""

    __slots__ = ()


def describe_shape(shape):
    """'a 3-vector', 'a 2x3 matrix' or 'an array of shape (...)', for messages."""
    shape = tuple(shape)
    if len(shape) == 1:
        return f"a {shape[0]}-vector"
    if len(shape) == 2:
        return f"a {shape[0]}x{shape[1]} matrix"
    return "a number" if not shape else f"an array of shape {shape}"


def cook(dt, what):
    """The DataType for dt (Python's float and int are default_fp and default_ip); TypeError naming `what`."""
    try:
        return _runtime.cook_dtype(dt)
    except TypeError:
        raise TypeError(f"{what}: expected a dtype such as qd.f32, but got {dt!r}.") from None


def entries_of(arr, dt, who, vector):
    """The entries of qd.Vector(arr, dt) / qd.Matrix(arr, dt) as a numpy array of 1 (or, for matrices, 2) dims."""
    if isinstance(arr, MatrixValue):
        arr = arr._values
    elif not isinstance(arr, (list, tuple, np.ndarray)):
        raise TypeError(f"qd.{who}() takes a list, tuple or numpy array of numbers, but got {type(arr).__name__}.")
    elif any(isinstance(x, MatrixValue) for x in arr):
        raise TypeError(f"qd.{who}() takes numbers (or rows of numbers), but got a list of vectors; "
                        "build a matrix from vectors with qd.Matrix.rows([...]) or qd.Matrix.cols([...]).")
    numpy_dtype = None if dt is None else cook(dt, f"qd.{who}(arr, dt)").numpy
    try:
        values = np.array(arr, dtype=numpy_dtype)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"qd.{who}() takes numbers, or rows of numbers of equal length, but got {arr!r} "
                         f"({exc}).") from None
    if values.dtype.kind not in _NUMERIC_KINDS:
        raise TypeError(f"qd.{who}() takes numbers, but got {arr!r}.")
    if vector and values.ndim != 1:
        raise ValueError(f"qd.Vector() takes a flat list of numbers, but got data of shape {values.shape}; "
                         "use qd.Matrix() for rows.")
    if values.ndim not in (1, 2):
        raise ValueError(f"qd.{who}() takes a list of numbers (a vector) or a list of rows (a matrix), but got "
                         f"data of shape {values.shape}.")
    return values


def plain(value):
    """value with Vector/Matrix values turned into numpy arrays, for numpy assignment."""
    return value._values if isinstance(value, MatrixValue) else value


def check_key(key, shape):
    """IndexError for more indices than a vector (1) or matrix (2) has."""
    if isinstance(key, tuple) and sum(k is not Ellipsis and k is not None for k in key) > len(shape):
        raise IndexError(f"{describe_shape(shape)} takes at most {len(shape)} indices, but got {key!r}.")


def operand(x):
    """x as a number or numpy array for arithmetic with a value, or None when it cannot be one."""
    if isinstance(x, MatrixValue):
        return x._values
    if isinstance(x, (numbers.Number, np.generic)):
        return x
    if isinstance(x, (list, tuple, np.ndarray)):
        try:
            values = np.asarray(x)
        except ValueError:
            return None
        return values if values.dtype.kind in _NUMERIC_KINDS else None
    return None


def check_same_shape(a, b, what):
    """ValueError unless a and b have the same shape or one of them is a number (kernels require as much)."""
    a_shape, b_shape = np.shape(a), np.shape(b)
    if a_shape and b_shape and a_shape != b_shape:
        raise ValueError(f"{what} needs operands of the same shape (or a number), but got "
                         f"{describe_shape(a_shape)} and {describe_shape(b_shape)}.")


def matmul(a, b):
    """a @ b for vectors and matrices: a number for two vectors, a vector for a matrix and a vector."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise ValueError(f"'@' needs vectors or matrices, but got {describe_shape(a.shape)} and "
                         f"{describe_shape(b.shape)}.")
    if a.shape[-1] != b.shape[0]:
        raise ValueError(f"'@' cannot multiply {describe_shape(a.shape)} by {describe_shape(b.shape)}: "
                         f"{a.shape[-1]} columns against {b.shape[0]} rows.")
    return a @ b


def vector_operand(values, what):
    if np.ndim(values) != 1:
        raise ValueError(f"{what} needs a vector, but got {describe_shape(np.shape(values))}.")
    return values


def vector_pair(a, other, what, same_length=True):
    """(a, other) as numpy vectors; ValueError naming both shapes otherwise."""
    b = operand(other)
    if b is None:
        raise TypeError(f"{what} needs a vector, but got {type(other).__name__}.")
    a_shape, b_shape = np.shape(a), np.shape(b)
    if len(a_shape) != 1 or len(b_shape) != 1 or (same_length and a_shape != b_shape):
        length = " of the same length" if same_length else ""
        raise ValueError(f"{what} needs two vectors{length}, but got {describe_shape(a_shape)} and "
                         f"{describe_shape(b_shape)}.")
    return a, b


def cross(a, b):
    if a.shape == (2,):
        return a[0] * b[1] - a[1] * b[0]
    if a.shape == (3,):
        return np.cross(a, b)
    raise ValueError(f"cross() needs two 2-vectors or two 3-vectors, but got {describe_shape(a.shape)} and "
                     f"{describe_shape(b.shape)}.")


def transpose(values):
    if values.ndim == 1:
        # Quadrants' own message: a vector is not a 1 x n matrix.
        raise ValueError("`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, "
                         "write `a.outer_product(b)` instead.")
    return values.T.copy()


def square(values, what):
    if values.ndim != 2 or values.shape[0] != values.shape[1]:
        raise ValueError(f"{what} needs a square matrix, but got {describe_shape(values.shape)}.")
    return values


def determinant(values):
    """Cofactor expansion on Python numbers for integer matrices up to 4x4 (exact), numpy otherwise."""
    if values.dtype.kind in "biu" and values.shape[0] <= 4:
        return _cofactor_determinant((values.astype(np.int64) if values.dtype.kind == "b" else values).tolist())
    return np.linalg.det(values)


def _cofactor_determinant(rows):
    if len(rows) == 1:
        return rows[0][0]
    total = 0
    for j, entry in enumerate(rows[0]):
        minor = [row[:j] + row[j + 1 :] for row in rows[1:]]
        total += (-1) ** j * entry * _cofactor_determinant(minor)
    return total


def check_size(n, what, name):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{what}: {name} must be a positive int, but got {n!r}.")


def filled(what, dt, n, m, value):
    """A numpy vector (m None) or matrix of dtype dt, every entry `value`."""
    check_size(n, what, "n")
    if m is not None:
        check_size(m, what, "m")
    return np.full((n,) if m is None else (n, m), value, dtype=cook(dt, what).numpy)


def unit(n, i, dt):
    what = "qd.Vector.unit(n, i, dt)"
    check_size(n, what, "n")
    if not isinstance(i, numbers.Integral) or not 0 <= i < n:
        raise ValueError(f"{what}: i must be an int in [0, {n}), but got {i!r}.")
    values = np.zeros(n, dtype=cook(int if dt is None else dt, what).numpy)
    values[i] = 1
    return values


def stack_rows(rows, what):
    """A matrix from a list of vectors or lists of numbers, one per row."""
    if not isinstance(rows, (list, tuple)) or not rows:
        raise TypeError(f"{what} takes a non-empty list of vectors or lists, but got {rows!r}.")
    arrays = []
    for row in rows:
        if isinstance(row, MatrixValue) and row.ndim == 1:
            arrays.append(row._values)
        elif isinstance(row, (list, tuple)):
            arrays.append(entries_of(list(row), None, "Vector", vector=True))
        else:
            raise TypeError(f"{what} takes vectors or lists of numbers, but got {describe_value(row)}.")
    lengths = [len(a) for a in arrays]
    if len(set(lengths)) != 1:
        raise ValueError(f"{what} needs vectors of the same length, but got lengths {lengths}.")
    return np.stack(arrays)


def describe_value(value):
    if isinstance(value, MatrixValue):
        return describe_shape(value._shape)
    return f"{value!r} ({type(value).__name__})"


def typed_entries(vector_type, args):
    """The entries of vector_type(*args) in Python scope (see matrix.construct_typed)."""
    who = repr(vector_type)
    size = int(np.prod(vector_type.shape))
    entries = []
    for arg in args:
        entries.extend(_flatten(arg, who))
    if len(args) == 1 and len(entries) == 1 and np.ndim(args[0]) == 0:
        entries = entries * size  # mat3(1): every entry, as in Quadrants
    if len(entries) != size:
        raise ValueError(f"{who} needs {size} values, but got {len(entries)}: {args!r}.")
    dtype = cook(float if vector_type.dtype is None else vector_type.dtype, who)
    return np.array(entries, dtype=dtype.numpy).reshape(vector_type.shape)


def _flatten(arg, who):
    if isinstance(arg, MatrixValue):
        return arg._values.ravel().tolist()
    if isinstance(arg, np.ndarray):
        return arg.ravel().tolist()
    if isinstance(arg, (list, tuple)):
        return [entry for item in arg for entry in _flatten(item, who)]
    if isinstance(arg, (numbers.Number, np.generic)):
        return [arg]
    raise TypeError(f"{who} takes numbers, vectors and lists of numbers, but got {describe_value(arg)}.")
