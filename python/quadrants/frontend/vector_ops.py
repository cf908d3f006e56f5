# python/quadrants/frontend/vector_ops.py: arithmetic on translated values: scalars, constants, scalarized vectors.
#
# Operands are Python numbers (folded at compile time), `Expr`s or `VectorValue`s. Vector operations
# expand to one scalar expression per entry; entries with side effects (atomics) are first stored in
# a temporary by the translator so that expansion never repeats them.
import math
import operator

import numpy as np

from quadrants.frontend.ir_builder import Expr, const_text
from quadrants.frontend.matrix_elimination import MAX_ELIMINATION_SIZE, inverse_by_elimination
from quadrants.frontend.values import ArrayRef, FormattedText, VectorValue

_FOLD_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "min": min, "max": max,
    "atan2": math.atan2, "bit_and": operator.and_, "bit_or": operator.or_, "bit_xor": operator.xor,
    "shl": operator.lshift, "shr": operator.rshift, "eq": operator.eq, "ne": operator.ne,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "and": lambda a, b: a and b, "or": lambda a, b: a or b,
    "raw_div": lambda a, b: _c_division(a, b, True), "raw_mod": lambda a, b: _c_division(a, b, False),
}


def _c_division(a, b, quotient):
    """qd.raw_div/raw_mod of constants as qd_raw_div/qd_raw_mod compute them: C's signs, and an
    integer division by zero gives 0 (a float one gives inf or nan)."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return 0
        q = abs(a) // abs(b) if (a < 0) == (b < 0) else -(abs(a) // abs(b))
        return q if quotient else a - b * q
    if b == 0:  # IEEE: x / ±0 is ±inf (nan for 0 / 0), fmod(x, 0) is nan
        if quotient and a != 0 and not math.isnan(a):
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return math.nan
    return a / b if quotient else math.fmod(a, b)


def _round_half_away(x):
    """qd.round of a constant as the generated code computes it (C's round): a float, halves away from 0.

    Python's round() would give an int, which would make `v = qd.round(2.5)` an integer local.
    """
    whole = math.trunc(x)
    if abs(x - whole) >= 0.5:
        whole += 1 if x > 0 else -1
    return math.copysign(float(whole), x)


# round gives a float, as at run time: an int would fix a local declared from it to an integer type.
_FOLD_UNARY = {
    "neg": operator.neg, "not": operator.not_, "bit_not": operator.invert, "sqrt": math.sqrt,
    "rsqrt": lambda x: 1.0 / math.sqrt(x), "sin": math.sin, "cos": math.cos, "tan": math.tan,
    "asin": math.asin, "acos": math.acos, "atan": math.atan, "tanh": math.tanh, "exp": math.exp,
    "log": math.log, "abs": abs,
    # floor/ceil keep a float a float (math.floor would turn 2.5 into the int 2 and retype the local).
    "floor": lambda x: float(math.floor(x)) if isinstance(x, float) else x,
    "ceil": lambda x: float(math.ceil(x)) if isinstance(x, float) else x,
    "round": _round_half_away, "log2": math.log2, "exp2": lambda x: 2.0 ** x,
    "isnan": lambda x: int(isinstance(x, float) and math.isnan(x)),
    "isinf": lambda x: int(isinstance(x, float) and math.isinf(x)),
    "popcnt": lambda x: bin(_constant_bits(x)[0]).count("1"),
    "clz": lambda x: _constant_bits(x)[1] - _constant_bits(x)[0].bit_length(),
    "ffs": lambda x: (_constant_bits(x)[0] & -_constant_bits(x)[0]).bit_length(),
}


def _constant_bits(x):
    """(bit pattern, width) of a Python int constant, an i32 where it fits (as a literal's type), else 64-bit."""
    if not isinstance(x, int) or isinstance(x, bool):
        raise TypeError(f"bit counts need an integer operand, but got {x!r}")
    width = 32 if -2**31 <= x < 2**32 else 64
    return x & ((1 << width) - 1), width


def is_number(value):
    return isinstance(value, (bool, int, float)) and not isinstance(value, type)


class Ops:
    """Value-level operations for one translation; `tr` supplies `materialize` and `fail`."""

    def __init__(self, tr):
        self.tr = tr

    def text(self, value):
        """The IR text of a scalar operand."""
        if isinstance(value, Expr):
            return self.tr.materialize(value).text
        if is_number(value):
            return const_text(value)
        if isinstance(value, (np.integer, np.floating, np.bool_)):  # np.int32 from a captured array or *unpacking
            return const_text(value.item())
        raise self.tr.fail(f"expected a scalar value here, but got {describe(value)}", kind="type")

    def bin(self, op, a, b):
        if isinstance(a, VectorValue) or isinstance(b, VectorValue):
            return self._elementwise(lambda x, y: self.bin(op, x, y), a, b, op)
        if is_number(a) and is_number(b) and op in _FOLD_BINARY:  # lshr needs the type's width: the IR folds it
            return _FOLD_BINARY[op](a, b)
        return Expr(f"(bin {op} {self.text(a)} {self.text(b)})")

    def un(self, op, a):
        if isinstance(a, VectorValue):
            return VectorValue([self.un(op, x) for x in a.entries], a.shape)
        if is_number(a):
            return _FOLD_UNARY[op](a)
        return Expr(f"(un {op} {self.text(a)})")

    def cast(self, dtype_name, a):
        if isinstance(a, VectorValue):
            return VectorValue([self.cast(dtype_name, x) for x in a.entries], a.shape)
        return Expr(f"(cast {dtype_name} {self.text(a)})")

    def bit_cast(self, dtype_name, a):
        if isinstance(a, VectorValue):
            return VectorValue([self.bit_cast(dtype_name, x) for x in a.entries], a.shape)
        return Expr(f"(bit_cast {dtype_name} {self.text(a)})")

    def cast_default_fp(self, a):
        return self.cast(self.tr.default_fp, a)

    def select(self, cond, a, b):
        if isinstance(a, VectorValue) or isinstance(b, VectorValue):
            cond = self.tr.materialize_value(cond)
            return self._elementwise(lambda x, y: self.select(cond, x, y), a, b, "select")
        return Expr(f"(select {self.text(cond)} {self.text(a)} {self.text(b)})")

    def _elementwise(self, fn, a, b, what):
        a, b = self.tr.materialize_value(a), self.tr.materialize_value(b)
        if not isinstance(a, VectorValue):
            return VectorValue([fn(a, y) for y in b.entries], b.shape)
        if not isinstance(b, VectorValue):
            return VectorValue([fn(x, b) for x in a.entries], a.shape)
        if a.shape != b.shape:
            prefix = "Cannot broadcast tensor to tensor: " if what == "select" else ""  # upstream's words first
            raise self.tr.fail(
                f"{prefix}'{what}' needs operands of the same shape, but got {_shape_text(a.shape)} and "
                f"{_shape_text(b.shape)}",
                kind="type",
            )
        return VectorValue([fn(x, y) for x, y in zip(a.entries, b.entries)], a.shape)

    def sum(self, entries):
        total = entries[0]
        for entry in entries[1:]:
            total = self.bin("add", total, entry)
        return total

    def matmul(self, a, b):
        a, b = self.vector_operand(a, "@"), self.vector_operand(b, "@")
        if not a.is_matrix and not b.is_matrix:
            return self.dot(a, b)
        a_rows, a_cols = a.shape if a.is_matrix else (1, a.shape[0])
        b_rows, b_cols = b.shape if b.is_matrix else (b.shape[0], 1)
        if a_cols != b_rows:
            raise self.tr.fail(
                f"'@' cannot multiply shapes {_shape_text(a.shape)} and {_shape_text(b.shape)}", kind="type"
            )
        a, b = self.tr.materialize_value(a), self.tr.materialize_value(b)
        entries = [
            self.sum([self.bin("mul", a.entries[i * a_cols + k], b.entries[k * b_cols + j]) for k in range(a_cols)])
            for i in range(a_rows)
            for j in range(b_cols)
        ]
        if not a.is_matrix:
            return VectorValue(entries, (b_cols,))
        if not b.is_matrix:
            return VectorValue(entries, (a_rows,))
        return VectorValue(entries, (a_rows, b_cols))

    def dot(self, a, b):
        a, b = self.vector_operand(a, "dot"), self.vector_operand(b, "dot")
        if a.shape != b.shape:
            raise self.tr.fail(
                f"dot() needs vectors of the same length, but got {_shape_text(a.shape)} and "
                f"{_shape_text(b.shape)}",
                kind="type",
            )
        return self.sum([self.bin("mul", x, y) for x, y in zip(a.entries, b.entries)])

    def cross(self, a, b):
        a, b = self.vector_operand(a, "cross"), self.vector_operand(b, "cross")
        a, b = self.tr.materialize_value(a), self.tr.materialize_value(b)
        x, y = a.entries, b.entries
        if a.shape == b.shape == (2,):
            return self.bin("sub", self.bin("mul", x[0], y[1]), self.bin("mul", x[1], y[0]))
        if a.shape == b.shape == (3,):
            return VectorValue(
                [self.bin("sub", self.bin("mul", x[(k + 1) % 3], y[(k + 2) % 3]),
                          self.bin("mul", x[(k + 2) % 3], y[(k + 1) % 3])) for k in range(3)],
                (3,),
            )
        raise self.tr.fail(
            f"cross() needs two 2-vectors or two 3-vectors, but got {_shape_text(a.shape)} and "
            f"{_shape_text(b.shape)}",
            kind="type",
        )

    def norm_sqr(self, a):
        a = self.tr.materialize_value(self.vector_operand(a, "norm_sqr"))
        return self.sum([self.bin("mul", x, x) for x in a.entries])

    def norm(self, a):
        return self.un("sqrt", self.norm_sqr(a))

    def normalized(self, a):
        a = self.tr.materialize_value(self.vector_operand(a, "normalized"))
        inverse_length = self.tr.materialize_value(self.bin("truediv", 1.0, self.norm(a)))
        return self.bin("mul", a, inverse_length)

    def transpose(self, a):
        a = self.vector_operand(a, "transpose")
        if not a.is_matrix:  # as in Python scope (matrix_math.transpose): a vector is not a 1 x n matrix
            raise self.tr.fail("`transpose()` cannot apply to a vector. If you want something like "
                               "`a @ b.transpose()`, write `a.outer_product(b)` instead.", kind="value")
        n, m = a.shape
        return VectorValue([a.entries[i * m + j] for j in range(m) for i in range(n)], (m, n))

    def reduce(self, op, a):
        a = self.tr.materialize_value(self.vector_operand(a, op))
        result = a.entries[0]
        for entry in a.entries[1:]:
            result = self.bin(op, result, entry)
        return result

    def trace(self, a):
        a = self.vector_operand(a, "trace")
        if not a.is_matrix or a.shape[0] != a.shape[1]:
            raise self.tr.fail(f"trace() expected a square matrix, got shape {a.shape}", kind="type")
        return self.sum([a.at(i, i) for i in range(a.shape[0])])

    def determinant(self, a):
        a = self.tr.materialize_value(self.vector_operand(a, "determinant"))
        if a.shape not in ((1, 1), (2, 2), (3, 3), (4, 4)):
            raise self.tr.fail(
                f"determinant() supports 1x1 to 4x4 matrices, as upstream, but got {_shape_text(a.shape)}",
                kind="type")
        return self.det_of_rows(_rows(a))

    def det_of_rows(self, rows):
        """The determinant of a square matrix given as lists of entries: cofactor expansion along row 0."""
        n = len(rows)
        if n == 1:
            return rows[0][0]
        if n == 2:
            return self.bin("sub", self.bin("mul", rows[0][0], rows[1][1]), self.bin("mul", rows[0][1], rows[1][0]))
        if n == 3:
            terms = []
            for j in range(3):
                minor = self.bin(
                    "sub",
                    self.bin("mul", rows[1][(j + 1) % 3], rows[2][(j + 2) % 3]),
                    self.bin("mul", rows[1][(j + 2) % 3], rows[2][(j + 1) % 3]),
                )
                terms.append(self.bin("mul", rows[0][j], minor))
            return self.sum(terms)
        return self.sum([self.bin("mul", rows[0][j], self.cofactor(rows, 0, j)) for j in range(n)])

    def cofactor(self, rows, i, j):
        minor = [[x for c, x in enumerate(row) if c != j] for r, row in enumerate(rows) if r != i]
        det = self.det_of_rows(minor)
        return det if (i + j) % 2 == 0 else self.un("neg", det)

    def inverse(self, a):
        """Up to 4x4 the adjugate over the determinant, each cofactor and 1/det computed once, in a temporary;
        5x5 to 12x12 by Gauss elimination with partial pivoting (matrix_elimination.py), as upstream."""
        a = self.vector_operand(a, "inverse")
        n = a.shape[0]
        if not a.is_matrix or a.shape[1] != n or not 1 <= n <= MAX_ELIMINATION_SIZE:
            raise self.tr.fail(f"inverse() supports square matrices from 1x1 to {MAX_ELIMINATION_SIZE}x"
                               f"{MAX_ELIMINATION_SIZE}, as upstream, but got {_shape_text(a.shape)}", kind="type")
        rows = _rows(self.tr.snapshot(a))
        if n == 1:
            return VectorValue([self.bin("truediv", 1.0, rows[0][0])], (1, 1))
        if n > 4:
            inverse = inverse_by_elimination(self, self.tr, rows)
            return VectorValue([x for row in inverse for x in row], (n, n))
        cofactors = [[self.tr.snapshot(self.cofactor(rows, i, j)) for j in range(n)] for i in range(n)]
        det = self.sum([self.bin("mul", rows[0][j], cofactors[0][j]) for j in range(n)])
        inverse_det = self.tr.snapshot(self.bin("truediv", 1.0, det))
        return VectorValue([self.bin("mul", cofactors[j][i], inverse_det) for i in range(n) for j in range(n)],
                           (n, n))

    def outer_product(self, a, b):
        a, b = self.vector_operand(a, "outer_product"), self.vector_operand(b, "outer_product")
        a, b = self.tr.materialize_value(a), self.tr.materialize_value(b)
        return VectorValue([self.bin("mul", x, y) for x in a.entries for y in b.entries], (a.shape[0], b.shape[0]))

    def vector_operand(self, value, what):
        if isinstance(value, VectorValue):
            return value
        raise self.tr.fail(f"{what} needs a vector or matrix, but got {describe(value)}", kind="type")


def _constant_matrix(ops, what, dtype, shape, entry):
    """A compile-time matrix of `shape` whose entry (i, j) is entry(i, j), cast to `dtype`."""
    for extent in shape:
        if not isinstance(extent, int) or isinstance(extent, bool) or extent < 1:
            raise ops.tr.fail(f"{what} needs positive compile-time int sizes, but got {describe(extent)}", kind="type")
    dtype_name = ops.tr.default_fp if dtype is None else ops.tr.dtype_argument(dtype)
    if len(shape) == 1:
        entries = [entry(i, None) for i in range(shape[0])]
    else:
        entries = [entry(i, j) for i in range(shape[0]) for j in range(shape[1])]
    return ops.cast(dtype_name, VectorValue(entries, shape))


def vector_zero(ops, dt, n):  # upstream's parameter names, which callers pass as keywords (dt=, n=)
    return _constant_matrix(ops, "qd.Vector.zero(dt, n)", dt, (n,), lambda i, j: 0)


def vector_one(ops, dt, n):
    return _constant_matrix(ops, "qd.Vector.one(dt, n)", dt, (n,), lambda i, j: 1)


def vector_unit(ops, n, i, dt=None):
    """Entry i is 1, the others 0, of dt or, as upstream, the default int type. A kernel value i gives the vectors
    (i == k) (all zeros when i is out of range), as upstream's."""
    if isinstance(i, Expr):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ops.tr.fail(f"qd.Vector.unit(n, i) needs a positive compile-time int n, but got {describe(n)}",
                              kind="type")
        i = ops.tr.materialize(i)
        dtype_name = ops.tr.default_ip if dt is None else ops.tr.dtype_argument(dt)
        return ops.cast(dtype_name, VectorValue([ops.bin("eq", i, k) for k in range(n)], (n,)))
    if not isinstance(n, int) or not isinstance(i, int) or not 0 <= i < n:
        raise ops.tr.fail(f"qd.Vector.unit(n, i) needs compile-time ints with 0 <= i < n, but got n={describe(n)} "
                          f"and i={describe(i)}", kind="type")
    return _constant_matrix(ops, "qd.Vector.unit(n, i)", int if dt is None else dt, (n,), lambda k, _: int(k == i))


def matrix_zero(ops, dt, n, m=None):
    shape = (n,) if m is None else (n, m)
    return _constant_matrix(ops, "qd.Matrix.zero(dt, n, m)", dt, shape, lambda i, j: 0)


def matrix_one(ops, dt, n, m=None):
    shape = (n,) if m is None else (n, m)
    return _constant_matrix(ops, "qd.Matrix.one(dt, n, m)", dt, shape, lambda i, j: 1)


def matrix_identity(ops, dt, n):
    return _constant_matrix(ops, "qd.Matrix.identity(dt, n)", dt, (n, n), lambda i, j: int(i == j))


def matrix_diag(ops, dim, val):
    """The dim x dim matrix with the scalar val (a kernel value or a constant) on its diagonal, zeros elsewhere,
    typed as qd.Matrix([[val, 0], [0, val]]) would be."""
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
        raise ops.tr.fail(f"qd.Matrix.diag(dim, val) needs a positive compile-time int dim, but got {describe(dim)}",
                          kind="type")
    if isinstance(val, VectorValue):
        raise ops.tr.fail(f"qd.Matrix.diag(dim, val) needs a scalar val, but got {describe(val)}", kind="type")
    entries = [ops.tr.scalar(val if i == j else 0, "a matrix entry") for i in range(dim) for j in range(dim)]
    return VectorValue(entries, (dim, dim))


# qd.Vector.zero(...) and friends inside kernels, by class and attribute name.
MATRIX_CONSTRUCTORS = {
    ("Vector", "zero"): vector_zero, ("Vector", "one"): vector_one, ("Vector", "unit"): vector_unit,
    ("Matrix", "zero"): matrix_zero, ("Matrix", "one"): matrix_one, ("Matrix", "identity"): matrix_identity,
    ("Matrix", "diag"): matrix_diag,
}


def _rows(matrix):
    return [matrix.entries[i * matrix.shape[1] : (i + 1) * matrix.shape[1]] for i in range(matrix.shape[0])]


def _shape_text(shape):
    return "x".join(map(str, shape)) if len(shape) == 2 else f"{shape[0]}-vector"


def describe(value):
    """How an error message names a translated value."""
    if hasattr(type(value), "describe_value"):  # struct values (struct_values.py)
        return value.describe_value()
    if isinstance(value, VectorValue):
        kind = "matrix" if value.is_matrix else "vector"
        return f"a {_shape_text(value.shape)} {kind}" if value.is_matrix else f"a {_shape_text(value.shape)}"
    if isinstance(value, ArrayRef):
        return f"array '{value.label}'"
    if isinstance(value, Expr):
        return "a scalar expression"
    if isinstance(value, FormattedText):
        return "an f-string of kernel values (only print() can show one)"
    return f"the Python value {value!r} ({type(value).__name__})"
