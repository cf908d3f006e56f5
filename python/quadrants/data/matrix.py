# python/quadrants/data/matrix.py: qd.Matrix / qd.Vector: Python-scope values and the .field/.ndarray constructors.
#
# A value keeps its entries in a numpy array, shape (n,) for a vector and (n, m) for a matrix, and computes
# with numpy, as Quadrants does in Python scope: `+ - * / // % ** @` and comparisons go entry by entry, and
# `a == b` is a vector of bools that is true as a whole when every entry is equal (`a != b` when any
# differs). Inside kernels the frontend scalarizes vectors instead (frontend/vector_ops.py); a value a kernel
# reads from Python is a compile-time constant there. Elements of vector/matrix fields and ndarrays are
# values read and written through (element_ref.py); what numpy computes from them is detached.
import operator

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsSyntaxError, QuadrantsValueError, SwizzleValueError
from quadrants.base.swizzles import GROUPS, length_message, out_of_range_message, swizzle_indices
from quadrants.base.swizzles import patterns as swizzle_patterns
from quadrants.data import matrix_math as mm
from quadrants.data.matrix_math import describe_shape
from quadrants.runtime import init as _runtime


def _rebuild(values):
    return Matrix._wrap(values)


def wrap_result(out, truth=None):
    """A numpy result as a value: arrays of 1 or 2 dims become Vector/Matrix, numpy scalars Python numbers."""
    if isinstance(out, tuple):
        return tuple(wrap_result(o) for o in out)
    if isinstance(out, (np.ndarray, np.generic)) and out.ndim == 0:
        return out.item()
    if not isinstance(out, np.ndarray) or out.ndim not in (1, 2):
        return out
    value = Matrix._wrap(out)
    if truth is not None:
        value._truth = truth
    return value


class Matrix(mm.MatrixValue):
    """A small matrix value in Python scope: qd.Matrix([[1, 2], [3, 4]], qd.f32).

    A flat list gives a vector-shaped value, as in Quadrants; qd.Vector is the usual way to make one.
    """

    # 'all' on the result of ==, 'any' on that of !=: what bool() of it means. Other values have no
    # truth value (as numpy arrays), since `if v < w:` would otherwise hide which entries compared.
    _truth = None

    def __new__(cls, arr=None, dt=None):
        # Under qd.init(qd.python) kernels run as Python on torch tensors, and a value is one too (upstream's).
        if _runtime.is_python_arch():
            return registry.get("python_backend").value(arr, dt, cls.__name__)
        return super().__new__(cls)

    def __init__(self, arr, dt=None):
        self._values = mm.entries_of(arr, dt, type(self).__name__, vector=False)

    @staticmethod
    def _wrap(values):
        obj = object.__new__(Vector if values.ndim == 1 else Matrix)
        obj._values = values
        return obj

    # --- shape ----------------------------------------------------------------------------------
    @property
    def _shape(self):
        return self._values.shape

    def get_shape(self):
        """(n,) for a vector, (n, m) for a matrix."""
        return tuple(self._shape)

    def __len__(self):
        return self.n

    # --- entries --------------------------------------------------------------------------------
    def __getitem__(self, key):
        """v[i] and m[i, j] give numbers; m[i] is row i (a vector sharing m's entries) and slices a copy."""
        mm.check_key(key, self._shape)
        value = self._values[key]
        return value.item() if np.ndim(value) == 0 else Matrix._wrap(value)

    def __setitem__(self, key, value):
        mm.check_key(key, self._shape)
        self._values[key] = mm.plain(value)

    def __iter__(self):
        # As in Quadrants: a vector's entries, a matrix's rows as lists.
        if len(self._shape) == 1:
            return (self[i] for i in range(self.n))
        return ([self[i, j] for j in range(self.m)] for i in range(self.n))

    def fill(self, val):
        """Sets every entry to val."""
        self[...] = val

    # --- conversions ----------------------------------------------------------------------------
    def to_list(self):
        """The entries as a (nested, for matrices) list of Python numbers."""
        return self._values.tolist()

    def to_numpy(self):
        """A new numpy array of the entries."""
        return np.array(self._values)

    def __array__(self, dtype=None, copy=None):
        values = self._values
        if dtype is not None:
            return values.astype(dtype)
        return values.copy() if copy else values

    def cast(self, dtype):
        """A copy with entries converted to dtype (floats to integers truncate toward zero)."""
        return wrap_result(self._values.astype(mm.cook(dtype, "cast(dtype)").numpy))

    def __str__(self):
        return str(self._values)

    def __repr__(self):
        return f"{'Vector' if len(self._shape) == 1 else 'Matrix'}({self.to_list()})"

    def __reduce__(self):
        # Copies and pickles are plain values, also of a container's element (see data/element_ref.py).
        return _rebuild, (self.to_numpy(),)

    __hash__ = object.__hash__  # by identity, as in Quadrants, although == compares entries

    def __bool__(self):
        if self._truth is None:
            raise ValueError(
                f"The truth value of {describe_shape(self._shape)} is ambiguous: use .any() or .all() "
                "(only the results of == and != have one: every entry equal, any entry different)."
            )
        values = self._values
        return bool(values.all() if self._truth == "all" else values.any())

    # --- arithmetic (binary operators are added below the class) --------------------------------
    def __neg__(self):
        return wrap_result(-self._values)

    def __pos__(self):
        return wrap_result(+self._values)

    def __abs__(self):
        return wrap_result(np.abs(self._values))

    def __invert__(self):
        return wrap_result(~self._values)

    def __matmul__(self, other):
        b = mm.operand(other)
        return NotImplemented if b is None else wrap_result(mm.matmul(self._values, b))

    def __rmatmul__(self, other):
        a = mm.operand(other)
        return NotImplemented if a is None else wrap_result(mm.matmul(a, self._values))

    def __eq__(self, other):
        return _compare(self, other, np.equal, "all")

    def __ne__(self, other):
        return _compare(self, other, np.not_equal, "any")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # numpy functions and numpy operands on the left (np.sqrt(v), np.float32(2) * v) give values too.
        if any(isinstance(o, Matrix) for o in kwargs.get("out", ())):
            return NotImplemented
        args = [x._values if isinstance(x, Matrix) else x for x in inputs]
        out = getattr(ufunc, method)(*args, **kwargs)
        truth = {np.equal: "all", np.not_equal: "any"}.get(ufunc) if method == "__call__" else None
        return wrap_result(out, truth)

    # --- reductions: numpy's own signatures, so np.sum(v) and friends work on values ------------
    def sum(self, *args, **kwargs):
        """The sum of all entries."""
        return wrap_result(self._values.sum(*args, **kwargs))

    def max(self, *args, **kwargs):
        """The largest entry."""
        return wrap_result(self._values.max(*args, **kwargs))

    def min(self, *args, **kwargs):
        """The smallest entry."""
        return wrap_result(self._values.min(*args, **kwargs))

    def any(self, *args, **kwargs):
        """Whether any entry is nonzero."""
        return wrap_result(self._values.any(*args, **kwargs))

    def all(self, *args, **kwargs):
        """Whether every entry is nonzero."""
        return wrap_result(self._values.all(*args, **kwargs))

    # --- linear algebra -------------------------------------------------------------------------
    def dot(self, other):
        """The dot product of two vectors of the same length."""
        a, b = mm.vector_pair(self._values, other, "dot()")
        return wrap_result(np.dot(a, b))

    def cross(self, other):
        """The cross product: a number for 2-vectors, a vector for 3-vectors."""
        return wrap_result(mm.cross(*mm.vector_pair(self._values, other, "cross()")))

    def outer_product(self, other):
        """The n x m matrix of a[i] * b[j] for an n-vector a and an m-vector b."""
        a, b = mm.vector_pair(self._values, other, "outer_product()", same_length=False)
        return wrap_result(np.outer(a, b))

    def norm_sqr(self):
        """The sum of the squares of the entries."""
        values = self._values
        return wrap_result(np.sum(values * values))

    def norm(self, eps=0):
        """sqrt(norm_sqr() + eps)."""
        values = self._values
        return wrap_result(np.sqrt(np.sum(values * values) + eps))

    def norm_inv(self, eps=0):
        """1 / sqrt(norm_sqr() + eps)."""
        values = self._values
        return wrap_result(1 / np.sqrt(np.sum(values * values) + eps))

    def normalized(self, eps=0):
        """The vector divided by (its length + eps)."""
        values = mm.vector_operand(self._values, "normalized()")
        return wrap_result(values * (1 / (np.sqrt(np.sum(values * values)) + eps)))

    def frobenius_inner(self, other):
        """The sum of a[i, j] * b[i, j] over two values of the same shape."""
        b = mm.operand(other)
        mm.check_same_shape(self._values, b, "frobenius_inner()")
        return wrap_result(np.sum(self._values * b))

    def transpose(self):
        """The transposed matrix (vectors have none: use a.outer_product(b) for a @ b.transpose())."""
        return wrap_result(mm.transpose(self._values))

    def trace(self):
        """The sum of the diagonal of a square matrix."""
        if self._values.ndim != 2 or self._values.shape[0] != self._values.shape[1]:
            raise QuadrantsValueError(f"trace() expected a square matrix, got shape {self._values.shape}.")
        return wrap_result(np.trace(self._values))

    def determinant(self):
        """The determinant of a square matrix (exact for integer matrices up to 4x4)."""
        return wrap_result(mm.determinant(mm.square(self._values, "determinant()")))

    def inverse(self):
        """The inverse of a square matrix."""
        return wrap_result(np.linalg.inv(mm.square(self._values, "inverse()")))

    # --- constructors ---------------------------------------------------------------------------
    @staticmethod
    def zero(dt, n, m=None):
        """A vector (m omitted) or matrix of zeros."""
        return Matrix._wrap(mm.filled("qd.Matrix.zero(dt, n, m)", dt, n, m, 0))

    @staticmethod
    def one(dt, n, m=None):
        """A vector (m omitted) or matrix of ones."""
        return Matrix._wrap(mm.filled("qd.Matrix.one(dt, n, m)", dt, n, m, 1))

    @staticmethod
    def unit(n, i, dt=None):
        """The n-vector with a one at index i and zeros elsewhere (dt defaults to default_ip)."""
        return Matrix._wrap(mm.unit(n, i, dt))

    @staticmethod
    def identity(dt, n):
        """The n x n identity matrix."""
        values = mm.filled("qd.Matrix.identity(dt, n)", dt, n, n, 0)
        np.fill_diagonal(values, 1)
        return Matrix._wrap(values)

    @staticmethod
    def diag(dim, val):
        """The dim x dim matrix with val on the diagonal and zeros elsewhere."""
        mm.check_size(dim, "qd.Matrix.diag(dim, val)", "dim")
        return Matrix([[val if i == j else 0 for j in range(dim)] for i in range(dim)])

    @staticmethod
    def rows(rows):
        """The matrix whose rows are the given vectors or lists."""
        return Matrix._wrap(mm.stack_rows(rows, "qd.Matrix.rows()"))

    @staticmethod
    def cols(cols):
        """The matrix whose columns are the given vectors or lists."""
        return Matrix._wrap(mm.stack_rows(cols, "qd.Matrix.cols()").T.copy())

    @staticmethod
    def field(n, m, dtype, shape=None, **kwargs):
        """A field of n x m matrices; its numpy shape is shape + (n, m)."""
        if _runtime.is_python_arch():
            return registry.get("python_backend").container(dtype, shape, (n, m), "qd.Matrix.field", **kwargs)
        return registry.get("matrix_field")(dtype, shape, (n, m), **kwargs)

    @staticmethod
    def ndarray(n, m, dtype, shape=None, needs_grad=False, needs_dual=False):
        """An ndarray of n x m matrices (a qd.MatrixNdarray); its numpy shape is shape + (n, m)."""
        if _runtime.is_python_arch():
            return registry.get("python_backend").container(dtype, shape, (n, m), "qd.Matrix.ndarray",
                                                            needs_grad=needs_grad, needs_dual=needs_dual)
        return registry.get("matrix_ndarray")(n, m, dtype, shape, needs_grad=needs_grad, needs_dual=needs_dual)

    @staticmethod
    def tensor(n, m, dtype, shape, **kwargs):
        """Upstream's qd.Matrix.tensor: a field or ndarray of n x m matrices by backend=, in a qd.MatrixTensor."""
        return registry.get("matrix_tensor")(n, m, dtype, shape, **kwargs)

    # --- swizzles: v.x, v.xy, v.rgba = ... (vectors only, as in Quadrants) ------------------------
    def __getattr__(self, name):
        # Only reached when normal lookup fails: the attributes upstream's matrices have per instance (n, m, ndim,
        # entries) and .T are computed here, from the entries a value or an element reference holds now.
        derived = _DERIVED.get(name)
        if derived is not None:
            return derived(self)
        indices = swizzle_indices(name) if not name.startswith("_") else None
        if indices is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._check_swizzle(name, indices)
        if len(indices) == 1:
            return self[indices[0]]
        return Vector([self[i] for i in indices])

    def __setattr__(self, name, value):
        indices = swizzle_indices(name) if not name.startswith("_") else None
        if indices is None:
            object.__setattr__(self, name, value)
            return
        self._check_swizzle(name, indices, assigning=True)
        if len(indices) == 1:
            self[indices[0]] = value
            return
        values = list(value.to_list() if isinstance(value, Matrix) else value)
        if len(values) != len(indices):
            raise SwizzleValueError(length_message(name, len(values)))
        for i, v in zip(indices, values):
            self[i] = v

    def _check_swizzle(self, name, indices, assigning=False):
        """Reading a component the vector lacks is an AttributeError (so hasattr() works); assigning one is upstream's
        QuadrantsSyntaxError."""
        if len(self._shape) != 1:
            raise AttributeError(
                f"Swizzles such as '.{name}' are for vectors, but this is {describe_shape(self._shape)}."
            )
        if max(indices) >= self.n:
            if not assigning:
                raise AttributeError(out_of_range_message(name, self.n))

            raise QuadrantsSyntaxError(out_of_range_message(name, self.n))


_DERIVED = {
    "n": lambda v: v._shape[0],  # the number of rows (a vector's length)
    "m": lambda v: 1 if len(v._shape) == 1 else v._shape[1],  # the number of columns: 1 for a vector
    "ndim": lambda v: len(v._shape),  # 1 for a vector, 2 for a matrix
    "entries": lambda v: v._values,  # a numpy array of the value's shape; writing it changes a plain value
    "T": lambda v: v.transpose(),  # numpy's and the kernel language's name
    # numpy's and torch's spelling of to_list(): upstream's qd.python backend hands out torch tensors, whose programs
    # call x[i].tolist() on an element
    "tolist": lambda v: v.to_list,
}


def _swizzle_property(name):
    """v.xy as a class attribute, as upstream's: reading and writing go the way __getattr__/__setattr__ take."""
    return property(lambda self: Matrix.__getattr__(self, name), lambda self, value: Matrix.__setattr__(self, name, value),
                    doc=f"The swizzle .{name} of a vector.")


for _pattern in (p for group in GROUPS for p in swizzle_patterns(group)):
    setattr(Matrix, _pattern, _swizzle_property(_pattern))


def _binary_operator(symbol, fn, reflected):
    def apply(self, other):
        b = mm.operand(other)
        if b is None:
            return NotImplemented
        a = self._values
        if reflected:
            mm.check_same_shape(b, a, f"'{symbol}'")
            return wrap_result(fn(b, a))
        mm.check_same_shape(a, b, f"'{symbol}'")
        return wrap_result(fn(a, b))

    return apply


_BINARY_OPERATORS = {
    "add": ("+", operator.add), "sub": ("-", operator.sub), "mul": ("*", operator.mul),
    "truediv": ("/", operator.truediv), "floordiv": ("//", operator.floordiv), "mod": ("%", operator.mod),
    "pow": ("**", operator.pow), "and": ("&", operator.and_), "or": ("|", operator.or_),
    "xor": ("^", operator.xor), "lshift": ("<<", operator.lshift), "rshift": (">>", operator.rshift),
}
_COMPARISONS = {
    "lt": ("<", operator.lt), "le": ("<=", operator.le), "gt": (">", operator.gt), "ge": (">=", operator.ge),
}

# In-place operators are left undefined: `v += w` rebinds v to a new value, as Quadrants does in Python
# scope, and `x[i] += w` on a container then stores it back through x.__setitem__.
for _name, (_symbol, _fn) in _BINARY_OPERATORS.items():
    setattr(Matrix, f"__{_name}__", _binary_operator(_symbol, _fn, reflected=False))
    setattr(Matrix, f"__r{_name}__", _binary_operator(_symbol, _fn, reflected=True))
for _name, (_symbol, _fn) in _COMPARISONS.items():
    setattr(Matrix, f"__{_name}__", _binary_operator(_symbol, _fn, reflected=False))


def _compare(value, other, ufunc, truth):
    b = mm.operand(other)
    if b is None:
        return NotImplemented
    a = value._values
    if np.ndim(b) and np.shape(b) != a.shape:
        return truth == "any"  # values of different shapes are simply unequal
    return wrap_result(ufunc(a, b), truth)


class Vector(Matrix):
    """A small vector value in Python scope: qd.Vector([1, 2, 3], qd.f32)."""

    def __init__(self, arr, dt=None):
        self._values = mm.entries_of(arr, dt, "Vector", vector=True)

    @staticmethod
    def field(n, dtype, shape=None, **kwargs):
        """A field of n-vectors; its numpy shape is shape + (n,)."""
        if _runtime.is_python_arch():
            return registry.get("python_backend").container(dtype, shape, (n,), "qd.Vector.field", **kwargs)
        return registry.get("matrix_field")(dtype, shape, (n,), **kwargs)

    @staticmethod
    def ndarray(n, dtype, shape=None, needs_grad=False, needs_dual=False):
        """An ndarray of n-vectors (a qd.VectorNdarray); its numpy shape is shape + (n,)."""
        if _runtime.is_python_arch():
            return registry.get("python_backend").container(dtype, shape, (n,), "qd.Vector.ndarray",
                                                            needs_grad=needs_grad, needs_dual=needs_dual)
        return registry.get("vector_ndarray")(n, dtype, shape, needs_grad=needs_grad, needs_dual=needs_dual)

    @staticmethod
    def tensor(n, dtype, shape, **kwargs):
        """Upstream's qd.Vector.tensor: a field or ndarray of n-vectors by backend=, in a qd.VectorTensor."""
        return registry.get("vector_tensor")(n, dtype, shape, **kwargs)


def construct_typed(vector_type, args):
    """`qd.math.vec3(1, 2, 3)`, `vec4(v3, 1)`, `vec3([1, 2, 3])`, `mat2([[1, 2], [3, 4]])` or `mat3(1)`
    (every entry 1) in Python scope: entries are concatenated in order, converted to the type's dtype."""
    if _runtime.is_python_arch():
        return registry.get("python_backend").typed_value(vector_type, args)
    return Matrix._wrap(mm.typed_entries(vector_type, args))


registry.provide("typed_matrix", construct_typed)  # vec3(1, 2, 3) of a qd.types.vector type (types/annotations.py)
