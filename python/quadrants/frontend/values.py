# python/quadrants/frontend/values.py: what a kernel expression can stand for while it is being translated.
#
# A translated expression is one of: a plain Python value (known at compile time: numbers, modules,
# fields, ranges, tuples such as `x.shape`...), an `Expr` (a scalar IR expression), a `VectorValue`
# (a scalarized vector or matrix), or an `ArrayRef` (an array parameter or a global field).
from quadrants.frontend.ir_builder import Expr


class VectorValue:
    """A vector (shape (n,)) or matrix (shape (n, m)) as a row-major list of scalars.

    Entries are `Expr`s or Python numbers; the IR never sees a vector.
    """

    __slots__ = ("entries", "shape")

    def __init__(self, entries, shape):
        assert len(entries) == _size(shape), "VectorValue(): entry count does not match the shape"
        self.entries = list(entries)
        self.shape = tuple(shape)

    @property
    def is_matrix(self):
        return len(self.shape) == 2

    def at(self, i, j=None):
        return self.entries[i if j is None else i * self.shape[1] + j]

    def row(self, i):
        m = self.shape[1]
        return VectorValue(self.entries[i * m : (i + 1) * m], (m,))


def _size(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n


class ArrayRef:
    """An array parameter or global field: `name` is its IR param name.

    `static_shape` is the outer shape when it is known at compile time (fields), else None. `path` is
    where a runtime array argument comes from ((param,) or a leaf's path), whose .grad/.dual a kernel can read.
    """

    __slots__ = ("name", "dtype_name", "ndim", "element_shape", "static_shape", "label", "path", "clamp")

    def __init__(self, name, dtype_name, ndim, element_shape, static_shape=None, label=None, path=None,
                 clamp=False):
        self.clamp = clamp  # qd.types.ndarray(boundary="clamp"): indices are clamped into the extents
        self.name = name
        self.dtype_name = dtype_name
        self.ndim = ndim
        self.element_shape = tuple(element_shape)
        self.static_shape = static_shape
        self.label = label or name
        self.path = path


class LocalVar:
    """A scalar kernel local: reads give `(var NAME)`.

    `parallel_depth` is 1 when it was declared inside a parallel loop: `+=` from inside a parallel
    loop on a local declared outside (depth 0) is atomic, since every iteration shares it.
    """

    __slots__ = ("name", "parallel_depth")

    def __init__(self, name, parallel_depth):
        self.name = name
        self.parallel_depth = parallel_depth


class VectorVar:
    """A scalarized vector/matrix local: one IR local per entry, row-major (see LocalVar)."""

    __slots__ = ("names", "shape", "parallel_depth")

    def __init__(self, names, shape, parallel_depth):
        self.names = list(names)
        self.shape = tuple(shape)
        self.parallel_depth = parallel_depth


class StaticBinding:
    """A local bound to a compile-time value (a field, a template argument, a static loop variable)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ParamVar:
    """A scalar kernel parameter: reads give `(arg NAME)`; assigning to it declares a local instead."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class FormattedText:
    """An f-string with kernel values in it: only print() can show it, as strings and values in order."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = list(parts)


def is_runtime(value):
    """True for values that exist only when the kernel runs (IR expressions and vectors of them)."""
    return isinstance(value, (Expr, VectorValue))
