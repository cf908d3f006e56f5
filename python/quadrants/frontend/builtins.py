# python/quadrants/frontend/builtins.py: qd.sqrt, qd.atomic_add, qd.static, qd.ndrange ...: kernel built-ins.
#
# Each built-in is a `Builtin`: called from Python it runs its Python fallback; inside a kernel the
# translator recognizes it and dispatches on `kind` (translator.calls), so this module holds no
# translation logic and imports nothing from the translator.
import functools
import itertools

import numpy as np

from quadrants.base import registry
from quadrants.base.errors import QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.base.python_scope import KernelScopeError
from quadrants.data.matrix import Matrix, Vector, wrap_result
from quadrants.frontend.random_numbers import python_randn, python_random
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import _numpy_dtype


class Builtin:
    """A kernel built-in. kind: 'unary'/'binary' (an IR op), 'atomic', 'cast', 'bit_cast', 'static',
    'static_assert', 'static_print', 'ndrange', 'grouped', 'select', 'loop_config' or 'composite'
    (impl(ops, *args) written with the vector ops).

    doc: this built-in's own docstring, which help() and the API reference show (the instance's __doc__
    shadows this class docstring); its first line is the call signature, as autodoc reads it."""

    def __init__(self, name, python_impl, kind, op=None, impl=None, doc=None):
        self.__name__ = self.name = name
        self._python_impl = python_impl
        self.kind = kind
        self.op = op
        self.impl = impl
        if doc is not None:
            self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        return self._python_impl(*args, **kwargs)

    def __repr__(self):
        return f"<quadrants builtin {self.name}>"


def kernel_only(name):
    def fail(*args, **kwargs):
        raise KernelScopeError(f"qd.{name}() can only be called inside a @qd.kernel or @qd.func.")

    return fail


def _unary(name, numpy_fn, op=None, doc=None):
    return Builtin(name, numpy_fn, "unary", op or name, doc=doc)


def _binary(name, numpy_fn, op=None, doc=None):
    return Builtin(name, numpy_fn, "binary", op or name, doc=doc)


# The docstrings of the math built-ins: what each computes, then how it treats integer kernel values
# (src/passes/infer_types.cpp), then what runs in Python scope.
_INT_TO_FLOAT = "An integer kernel value is converted to the default float type (qd.init's default_fp) first."
_REAL_ONLY = ("An integer kernel value is a compile error (cast it first, e.g. `qd.{name}(qd.cast(x, qd.f32))`); "
              "Python int constants fold at compile time.")


def _math_doc(signature, what, ints, numpy_name):
    name = signature.split("(")[0]
    return (f"{signature}\n\n{what} Inside kernels x is a scalar, vector or matrix (elementwise). "
            f"{ints.format(name=name)} In Python scope this is numpy's `{numpy_name}`.")


sqrt = _unary("sqrt", np.sqrt, doc=_math_doc("sqrt(x)", "The square root of x.", _INT_TO_FLOAT, "np.sqrt"))
rsqrt = _unary("rsqrt", lambda x: 1.0 / np.sqrt(x),
               doc=_math_doc("rsqrt(x)", "1 / sqrt(x), the reciprocal square root.", _INT_TO_FLOAT, "1.0 / np.sqrt(x)"))
sin = _unary("sin", np.sin, doc=_math_doc("sin(x)", "The sine of x (radians).", _REAL_ONLY, "np.sin"))
cos = _unary("cos", np.cos, doc=_math_doc("cos(x)", "The cosine of x (radians).", _REAL_ONLY, "np.cos"))
tan = _unary("tan", np.tan, doc=_math_doc("tan(x)", "The tangent of x (radians).", _REAL_ONLY, "np.tan"))
asin = _unary("asin", np.arcsin,
              doc=_math_doc("asin(x)", "The arcsine of x, in radians in [-pi/2, pi/2].", _REAL_ONLY, "np.arcsin"))
acos = _unary("acos", np.arccos,
              doc=_math_doc("acos(x)", "The arccosine of x, in radians in [0, pi].", _REAL_ONLY, "np.arccos"))
atan = _unary("atan", np.arctan, doc=_math_doc("atan(x)", "The arctangent of x, in radians in [-pi/2, pi/2] (qd.atan2 "
                                               "takes two arguments).", _INT_TO_FLOAT, "np.arctan"))
tanh = _unary("tanh", np.tanh, doc=_math_doc("tanh(x)", "The hyperbolic tangent of x.", _REAL_ONLY, "np.tanh"))
exp = _unary("exp", np.exp, doc=_math_doc("exp(x)", "e raised to the power x.", _INT_TO_FLOAT, "np.exp"))
log = _unary("log", np.log, doc=_math_doc("log(x)", "The natural logarithm of x.", _INT_TO_FLOAT, "np.log"))
abs = _unary("abs", np.abs, doc=_math_doc(  # noqa: A001 - qd.abs mirrors the Quadrants API name on purpose
    "abs(x)", "The absolute value of x, of x's own type.", "The most negative integer of a signed type wraps to "
    "itself, as in numpy.", "np.abs"))
_ROUNDED = ("Inside kernels x is a float scalar, vector or matrix (elementwise) and the result is a float of x's "
            "type, or x's value cast to dt when dt is given (`qd.{name}(x, qd.i32)`); an integer kernel value is a "
            "compile error, while Python int constants fold at compile time. In Python scope this is numpy's "
            "`np.{name}`, keeping a qd.Vector/Matrix one, and dt converts the result.")


def _python_rounded(numpy_fn):
    """Python-scope floor/ceil/round, as upstream's: numpy's function on the entries (np.round is no ufunc, so a
    qd.Vector/Matrix is rebuilt by hand rather than through __array_ufunc__), then dtype converts if given."""

    def rounded(x, dtype=None):
        if isinstance(x, Matrix):
            result = wrap_result(numpy_fn(x.to_numpy()))
            return result if dtype is None else result.cast(dtype)
        result = numpy_fn(x)
        return result if dtype is None else _numpy_dtype(dtype).type(result)

    return rounded


floor = _unary("floor", _python_rounded(np.floor), doc="floor(x, dt=None)\n\nThe largest integer not greater than x. " +
               _ROUNDED.format(name="floor"))
ceil = _unary("ceil", _python_rounded(np.ceil), doc="ceil(x, dt=None)\n\nThe smallest integer not less than x. " +
              _ROUNDED.format(name="ceil"))
round = _unary("round", _python_rounded(np.round), doc=(  # noqa: A001
    "round(x, dt=None)\n\nx rounded to the nearest integer. Inside kernels a halfway case rounds away from zero "
    "(C's round: 2.5 gives 3.0); numpy's `np.round` rounds it to even (2.5 gives 2.0). " +
    _ROUNDED.format(name="round")))
log2 = _unary("log2", np.log2, doc=_math_doc("log2(x)", "The base-2 logarithm of x.", _INT_TO_FLOAT, "np.log2"))
exp2 = _unary("exp2", np.exp2, doc=_math_doc("exp2(x)", "2 raised to the power x.", _INT_TO_FLOAT, "np.exp2"))
isnan = _unary("isnan", np.isnan, doc=_math_doc(
    "isnan(x)", "1 if x is a NaN, else 0, as an i32.", "It tests the bits, so it holds under fast_math; an integer "
    "gives 0.", "np.isnan"))
isinf = _unary("isinf", np.isinf, doc=_math_doc(
    "isinf(x)", "1 if x is plus or minus infinity, else 0, as an i32.", "It tests the bits, so it holds under "
    "fast_math; an integer gives 0.", "np.isinf"))
atan2 = _binary("atan2", np.arctan2, doc=(
    "atan2(y, x)\n\nThe angle of the point (x, y) from the positive x axis, in radians in [-pi, pi]. Inside kernels "
    "y and x are scalars, or vectors or matrices of one shape (elementwise); two integers compute in default_fp. In "
    "Python scope this is numpy's `np.arctan2`."))
# upstream's qd.lang.ops logical operators: 0/1 results, like `not`, `and`, `or` on kernel values
logical_not = _unary("logical_not", np.logical_not, op="not")
logical_and = _binary("logical_and", np.logical_and, op="and")
logical_or = _binary("logical_or", np.logical_or, op="or")
pow = _binary("pow", np.power, doc=(  # noqa: A001
    "pow(x, a)\n\nx raised to the power a, as `x ** a`. Inside kernels (elementwise on vectors and matrices) two "
    "integers give an integer, which wraps on overflow, and a negative exponent gives 0 (in debug mode it fails "
    "an assertion instead); a float to an integer power is computed by repeated multiplication in the float type "
    "(`x ** 2` is exactly `x * x`); otherwise C's pow in the wider float type. In Python scope this is numpy's "
    "`np.power`."))
# Bit counts over an integer's bit pattern, as i32 (qd_popcnt/qd_clz/qd_ffs in the runtime header).
_BITS = ("Inside kernels only (in Python scope it raises RuntimeError): x is an integer scalar, vector or matrix "
         "(elementwise), read as its bit pattern (a narrow type zero-extended); a float is a compile error.")
popcnt = _unary("popcnt", kernel_only("math.popcnt"),
                doc=f"popcnt(x)\n\nThe number of set bits of x, as an i32. {_BITS}")
clz = _unary("clz", kernel_only("math.clz"),
             doc=f"clz(x)\n\nThe number of leading zero bits of x (its width for 0), as an i32. {_BITS}")
ffs = _unary("ffs", kernel_only("math.ffs"), doc=(
    f"ffs(x)\n\n1 + the index of the lowest set bit of x (0 for 0), as an i32. {_BITS}"))


def _python_min(*args):
    # Pairwise, so a qd.Vector/qd.Matrix operand keeps its type (through its __array_ufunc__).
    return functools.reduce(np.minimum, args)


def _python_max(*args):
    return functools.reduce(np.maximum, args)


min = _binary("min", _python_min, doc=(  # noqa: A001 - variadic inside kernels: qd.min(a, b, c)
    "min(a, b, *more)\n\nThe smallest of its two or more arguments, in the type they promote to. Inside kernels "
    "the arguments are scalars, vectors or matrices (elementwise; a scalar pairs with every entry). In Python "
    "scope it is numpy's `np.minimum`, applied pairwise."))
max = _binary("max", _python_max, doc=(  # noqa: A001
    "max(a, b, *more)\n\nThe largest of its two or more arguments, in the type they promote to. Inside kernels "
    "the arguments are scalars, vectors or matrices (elementwise; a scalar pairs with every entry). In Python "
    "scope it is numpy's `np.maximum`, applied pairwise."))


def _python_raw_div(a, b):
    """C division: integers truncate toward zero (the quotient of a - fmod(a, b), which is exact)."""
    a, b = np.asarray(a), np.asarray(b)
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        return (a - np.fmod(a, b)) // b
    return np.true_divide(a, b)




def _python_bit_shr(x, n):
    """Logical shift right of numpy integers (their own width): zeros shift in."""
    x = np.asarray(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"qd.bit_shr() takes integers, but got {x.dtype}.")
    bits = x.dtype.itemsize * 8
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    shifted = np.where((np.asarray(n) >= 0) & (np.asarray(n) < bits), unsigned >> np.asarray(n, unsigned.dtype) % bits, 0)
    return shifted.astype(unsigned.dtype).view(x.dtype)[()]


# x >> n shifts the sign in for signed integers; bit_shr shifts zeros in (the IR's lshr).
bit_shr = _binary("bit_shr", _python_bit_shr, op="lshr", doc=(
    "bit_shr(x, n)\n\nThe logical right shift of the integer x by n bits: zeros shift in, also for signed types "
    "(`x >> n` shifts the sign bit in), and n outside [0, bits) gives 0. The result has x's type (n is cast to "
    "it). Works inside kernels (elementwise on vectors) and in Python scope on numpy integers of x's width."))
bit_sar = _binary("bit_sar", lambda x, n: np.right_shift(x, n), op="shr")
bit_shl = _binary("bit_shl", lambda x, n: np.left_shift(x, n), op="shl")

# C semantics, unlike // and %: the quotient truncates toward zero, the remainder takes the dividend's sign.
raw_div = _binary("raw_div", _python_raw_div, doc=(
    "raw_div(a, b)\n\na / b as C divides: two integers give the quotient truncated toward zero (`a // b` floors "
    "instead), and floats divide exactly. Inside kernels an integer division by zero gives 0 and `MIN / -1` "
    "wraps to MIN. Works inside kernels (elementwise on vectors) and in Python scope (numpy)."))
raw_mod = _binary("raw_mod", np.fmod, doc=(
    "raw_mod(a, b)\n\nThe remainder of C's division: it takes the sign of a (`a % b` takes the sign of b), and "
    "is `fmod` for floats. Inside kernels an integer remainder by zero gives 0. Works inside kernels "
    "(elementwise on vectors) and in Python scope, where it is numpy's `np.fmod`."))


_ATOMIC_TARGETS = ("x names what is updated: an element of a field, ndarray or qd.simt shared array, or a local "
                   "variable; a vector or matrix of them is updated entry by entry (y a like-shaped vector or a "
                   "scalar). Inside kernels only: in Python scope it raises RuntimeError, except under qd.init(qd.python), "
                   "where kernels run as Python and x is an element of a torch tensor, updated in place.")


def _python_atomic(name, op):
    """Python scope: under qd.init(qd.python), where kernels run as Python, an in-place update of a tensor view
    (interop/python_backend.py); elsewhere an error, as there is nothing to update atomically."""
    outside = kernel_only(name)

    def run(*args, **kwargs):
        if _runtime.is_python_arch():
            return registry.get("python_backend").atomic(name, op, *args, **kwargs)
        return outside(*args, **kwargs)

    return run


def _atomic(op, what, name=None, doc=None):
    name = name or f"atomic_{op}"
    doc = doc or f"{name}(x, y)\n\nAtomically {what}, and returns the old value of x. {_ATOMIC_TARGETS}"
    return Builtin(name, _python_atomic(name, op), "atomic", op, doc=doc)


atomic_add = _atomic("add", "x = x + y")
atomic_sub = _atomic("sub", "x = x - y")
atomic_min = _atomic("min", "x = min(x, y)")
atomic_max = _atomic("max", "x = max(x, y)")
atomic_and = _atomic("and", "x = x & y (x an integer)")
atomic_or = _atomic("or", "x = x | y (x an integer)")
atomic_xor = _atomic("xor", "x = x ^ y (x an integer)")
atomic_mul = _atomic("mul", "x = x * y")
atomic_exchange = _atomic("xchg", "x = y", "atomic_exchange")
atomic_cas = _atomic("cas", None, "atomic_cas", doc=(
    "atomic_cas(x, expected, desired)\n\nAtomic compare-and-swap: stores desired into x if x equals expected, "
    "and returns the old value of x either way (the swap happened if it equals expected). x is one element of "
    "a field or ndarray, or a local variable, of an integer type of 8 to 64 bits (i8 ... u64). Inside kernels "
    "only: in Python scope it raises RuntimeError."))


def _python_cast(value, dtype):
    if _runtime.is_python_arch():  # kernels run as Python on torch tensors: upstream's cast of those
        return registry.get("python_backend").cast(value, dtype)
    return _numpy_dtype(dtype).type(value)


cast = Builtin("cast", _python_cast, "cast", doc=(
    "cast(x, dtype)\n\nx converted to dtype (`qd.f32`, `qd.i64`, ...; Python's int and float mean the default "
    "integer and float types). Inside kernels x is a scalar, vector or matrix (elementwise) and conversions "
    "follow C: a float to an integer truncates toward zero. In Python scope x is a scalar and the result is a "
    "numpy scalar of dtype."))


def _python_bit_cast(value, dtype):
    return np.asarray(value).view(_numpy_dtype(dtype))[()]


bit_cast = Builtin("bit_cast", _python_bit_cast, "bit_cast", doc=(
    "bit_cast(x, dtype)\n\nThe bits of x read as a value of dtype (an f32 1.0 gives the i32 1065353216); the two "
    "types must have the same size, or the kernel fails to compile. Inside kernels x is a scalar, vector or "
    "matrix (elementwise). In Python scope it is numpy's view of x as dtype (a Python float counts as an f64)."))


def _python_random(dtype=float):
    return python_random(dtype)


random = Builtin("random", _python_random, "random", doc=(  # see random_numbers.py
    "random(dtype=float)\n\nA random value of dtype: a float is uniform in [0, 1), an integer uniform over the "
    "type's whole range, `qd.u1` 0 or 1; float means the default float type. Inside kernels the numbers come "
    "from a counter-based generator (Philox4x32-10) keyed by qd.init(random_seed=...), the launch and the "
    "iteration of the parallel loop, so a seed gives the same numbers whatever the thread count, and no two "
    "launches share them; it cannot be called in a @qd.real_func. In Python scope it draws from numpy's "
    "generator, which random_seed does not seed."))


def _python_randn(dtype=float):
    return python_randn(dtype)


randn = Builtin("randn", _python_randn, "randn", doc=(
    "randn(dtype=float)\n\nA standard normal random value (mean 0, variance 1) of a float dtype (float: the "
    "default float type). Inside kernels it is the Box-Muller transform of two qd.random() draws; in Python "
    "scope, numpy's standard_normal as a Python float."))


def _python_static(*values):
    return values[0] if len(values) == 1 else values


static = Builtin("static", _python_static, "static", doc=(
    "static(x, *more)\n\nx, marked as a value known at compile time (a tuple for several arguments). Inside "
    "kernels `if qd.static(cond):` compiles only the branch taken, and `for i in qd.static(range(n)):` (or over "
    "a list, tuple or qd.ndrange) unrolls the loop. The arguments must be compile-time values: Python values, "
    "template arguments, closure variables; a kernel value is a compile error. In Python scope it returns its "
    "arguments."))


def _python_static_assert(cond, msg=None):
    if msg is not None:
        assert cond, msg
    else:
        assert cond


# Checked and printed while a kernel compiles, never at run time (the translator's static_assert/static_print).
static_assert = Builtin("static_assert", _python_static_assert, "static_assert", doc=(
    "static_assert(cond, msg=None)\n\nFails the compile of the kernel (a QuadrantsTypeError, \"Static assertion "
    "failed: msg\") when the compile-time value cond is false; a kernel value as cond is a compile error (a plain "
    "`assert` checks kernel values, in debug mode). In Python scope it is `assert cond, msg`."))
static_print = Builtin("static_print", print, "static_print", doc=(
    "static_print(*values, sep=' ', end='\\n', file=None, flush=False)\n\nPython's print(), run while the kernel "
    "compiles, not when it runs: once each time the kernel is translated for a new signature or template "
    "value. A kernel value prints as `<kernel value IR>`, its IR. In Python scope it is print()."))


class NdRange:
    """`qd.ndrange(n, (a, b), ...)`: each argument is an extent n (meaning [0, n)) or a pair (a, b).

    Bounds may be Python ints or (inside kernels) IR expressions. axes= orders the iteration: axes[0] is the
    outermost dimension visited, axes[-1] the innermost; the loop variables stay bound to their own dimensions.
    """

    def __init__(self, *dims, axes=None):
        self.bounds = []
        for dim in dims:
            if isinstance(dim, (tuple, list)):
                if len(dim) != 2:
                    raise QuadrantsSyntaxError("Every argument of ndrange should be a scalar or a tuple/list like "
                                               f"(begin, end), but got {dim!r}.")
                self.bounds.append((dim[0], dim[1]))
            else:
                self.bounds.append((0, dim))
        for bound in (b for pair in self.bounds for b in pair):
            if isinstance(bound, (float, str, type(None), np.floating)):
                raise QuadrantsTypeError("Every argument of ndrange should be an integer scalar or a tuple/list of "
                                         f"(int, int), but got {bound!r}.")
        self.axes = _checked_axes(axes, len(self.bounds))

    def __iter__(self):
        axes = self.axes or tuple(range(len(self.bounds)))
        ranges = [range(*self.bounds[axis]) for axis in axes]
        if len(ranges) == 1:
            return iter(ranges[0])
        return (tuple(visit[axes.index(d)] for d in range(len(axes))) for visit in itertools.product(*ranges))

    def grouped(self):
        """The index vectors of this range in its iteration order (axes= included), as qd.grouped(self)."""
        return Grouped(self)


def _checked_axes(axes, ndim):
    """ndrange(axes=...) as a tuple, or None for the natural order; upstream's errors for anything else."""
    if axes is None:
        return None

    axes = tuple(axes)
    if any(type(a) is not int for a in axes):  # bool is an int, but True/False as axes is a mistake
        raise QuadrantsTypeError(f"qd.ndrange(axes={axes!r}): entries must be Python ints naming dimensions.")
    if len(axes) != ndim:
        raise QuadrantsSyntaxError(f"qd.ndrange(axes={axes!r}) has {len(axes)} entries but ndrange has {ndim} "
                                   "dimensions; give one entry per dimension.")
    if sorted(axes) != list(range(ndim)):
        raise QuadrantsSyntaxError(f"qd.ndrange(axes={axes!r}) is not a permutation of range({ndim}).")
    return None if axes == tuple(range(ndim)) else axes


ndrange = Builtin("ndrange", NdRange, "ndrange", doc=(
    "ndrange(*dims, axes=None)\n\nA loop over a box of indices, `for i, j in qd.ndrange(n, (a, b)):`. Each argument "
    "is one dimension: an extent n (indices 0 to n - 1) or a pair (begin, end) (begin to end - 1); bounds are "
    "integers, inside kernels also kernel values. An outermost loop over it is parallel. axes=, a permutation of "
    "the dimensions, sets the visiting order (axes[0] outermost, axes[-1] innermost) while each loop variable "
    "keeps its own dimension. In Python scope iterating it gives ints (one dimension) or tuples of ints."))


class Grouped:
    """`qd.grouped(x)`: loop over x's index space with one index vector instead of one name per dimension."""

    def __init__(self, container):
        self.container = container

    def __iter__(self):
        if not isinstance(self.container, NdRange):
            if _runtime.is_python_arch():  # kernels run as Python: the container's index vectors
                return iter(registry.get("python_backend").grouped(self.container))
            kind = type(self.container).__name__
            raise TypeError(f"qd.grouped() outside kernels needs a qd.ndrange(), but got {kind}.")
        return self._range_indices()

    def _range_indices(self):
        for index in self.container:  # the range's own order, so axes= holds here as in kernels
            yield Vector(list(index) if isinstance(index, tuple) else [index])


grouped = Builtin("grouped", Grouped, "grouped", doc=(
    "grouped(x)\n\nThe index space of x with one loop variable, a vector of the indices: `for I in qd.grouped(x):` "
    "gives I = qd.Vector([i, j]) where `for i, j in x:` gives i and j. Inside kernels x is a field, an ndarray, "
    "an SNode or a qd.ndrange(...); in Python scope only a qd.ndrange, whose order (axes=) it keeps."))
select = Builtin("select", lambda cond, a, b: np.where(cond, a, b), "select", doc=(
    "select(cond, a, b)\n\na where cond is nonzero, else b; both are evaluated. Inside kernels a vector or matrix "
    "cond selects entry by entry (a and b of its shape, or scalars), a scalar cond picks all of a or all of b, "
    "and a compile-time cond picks at compile time. In Python scope it is numpy's `np.where`."))


def _python_loop_config(*, serialize=False, block_dim=None, parallelize=None, name=None, block_dim_adaptive=True,
                        bit_vectorize=False):
    return None


loop_config = Builtin("loop_config", _python_loop_config, "loop_config", doc=(
    "loop_config(*, serialize=False, block_dim=None, parallelize=None, name=None, block_dim_adaptive=True, "
    "bit_vectorize=False)\n\n"
    "Settings for the next for loop of the kernel (call it on the line before the loop). serialize=True, or "
    "parallelize=1, runs that loop serially, in order. block_dim: on the CPU, the iterations per chunk of the "
    "thread pool; on CUDA, and in qd.simt block loops, the threads per block. Other values of parallelize, "
    "name, block_dim_adaptive and bit_vectorize (upstream's word-at-a-time loops over 1-bit quant_array fields, "
    "an optimization with the same results) are accepted and have no effect here. In Python scope it does nothing."))

# Translated in extra_builtins.py. stop_grad: loads of a field in the calling block pass no gradient;
# volatile_load: an array element read from memory every time; block_local: upstream's CUDA cache hint.
stop_grad = Builtin("stop_grad", kernel_only("stop_grad"), "stop_grad", doc=(
    "stop_grad(x)\n\nIn the whole block it is called in (reads before the call too, as upstream) and the blocks "
    "inside it, reads of the field or ndarray x pass no gradient to x under autodiff; the values are unchanged. "
    "x is the container itself, not an element; for a struct field, call it on each member field. Inside "
    "kernels only: in Python scope it raises RuntimeError."))
volatile_load = Builtin("volatile_load", kernel_only("volatile_load"), "volatile_load", doc=(
    "volatile_load(x)\n\nThe element x (`a[i]` of a field or ndarray; a vector or matrix element reads each "
    "entry so), read from memory each time the expression is evaluated, never taken from an earlier read or "
    "hoisted out of a loop: for waiting on a value another thread writes. Inside kernels only: in Python "
    "scope it raises RuntimeError."))
block_local = Builtin("block_local", kernel_only("block_local"), "block_local", doc=(
    "block_local(*fields)\n\nUpstream's hint to cache the fields in CUDA shared memory during the next parallel "
    "loop. Accepted and without effect here: quadrants does not stage fields in shared memory, and the "
    "results are the same either way. Arguments that are not fields are a compile error. Inside kernels "
    "only: in Python scope it raises RuntimeError."))
