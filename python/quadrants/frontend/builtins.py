# python/quadrants/frontend/builtins.py: qd.sqrt, qd.atomic_add, qd.static, qd.ndrange ...: kernel built-ins.
#
# Each built-in is a `Builtin`: called from Python it runs its Python fallback; inside a kernel the
# translator recognizes it and dispatches on `kind` (translator.calls), so this module holds no
# translation logic and imports nothing from the translator.
import functools
import itertools

import numpy as np

from quadrants.base.errors import QuadrantsSyntaxError, QuadrantsTypeError
from quadrants.data.matrix import Vector
from quadrants.frontend.random_numbers import python_randn, python_random
from quadrants.types.annotations import _numpy_dtype


class Builtin:
    """A kernel built-in. kind: 'unary'/'binary' (an IR op), 'atomic', 'cast', 'bit_cast', 'static',
    'static_assert', 'static_print', 'ndrange', 'grouped', 'select', 'loop_config' or 'composite'
    (impl(ops, *args) written with the vector ops)."""

    def __init__(self, name, python_impl, kind, op=None, impl=None):
        self.__name__ = self.name = name
        self._python_impl = python_impl
        self.kind = kind
        self.op = op
        self.impl = impl

    def __call__(self, *args, **kwargs):
        return self._python_impl(*args, **kwargs)

    def __repr__(self):
        return f"<quadrants builtin {self.name}>"


def kernel_only(name):
    def fail(*args, **kwargs):
        raise RuntimeError(f"qd.{name}() can only be called inside a @qd.kernel or @qd.func.")

    return fail


def _unary(name, numpy_fn, op=None):
    return Builtin(name, numpy_fn, "unary", op or name)


def _binary(name, numpy_fn, op=None):
    return Builtin(name, numpy_fn, "binary", op or name)


sqrt = _unary("sqrt", np.sqrt)
rsqrt = _unary("rsqrt", lambda x: 1.0 / np.sqrt(x))
sin = _unary("sin", np.sin)
cos = _unary("cos", np.cos)
tan = _unary("tan", np.tan)
asin = _unary("asin", np.arcsin)
acos = _unary("acos", np.arccos)
atan = _unary("atan", np.arctan)
tanh = _unary("tanh", np.tanh)
exp = _unary("exp", np.exp)
log = _unary("log", np.log)
abs = _unary("abs", np.abs)  # noqa: A001 - qd.abs mirrors the Quadrants API name on purpose
floor = _unary("floor", np.floor)
ceil = _unary("ceil", np.ceil)
round = _unary("round", np.round)  # noqa: A001
log2 = _unary("log2", np.log2)
exp2 = _unary("exp2", np.exp2)
isnan = _unary("isnan", np.isnan)
isinf = _unary("isinf", np.isinf)
atan2 = _binary("atan2", np.arctan2)
# upstream's qd.lang.ops logical operators: 0/1 results, like `not`, `and`, `or` on kernel values
logical_not = _unary("logical_not", np.logical_not, op="not")
logical_and = _binary("logical_and", np.logical_and, op="and")
logical_or = _binary("logical_or", np.logical_or, op="or")
pow = _binary("pow", np.power)  # noqa: A001
# Bit counts over an integer's bit pattern, as i32 (qd_popcnt/qd_clz/qd_ffs in the runtime header).
popcnt = _unary("popcnt", kernel_only("math.popcnt"))
clz = _unary("clz", kernel_only("math.clz"))
ffs = _unary("ffs", kernel_only("math.ffs"))


def _python_min(*args):
    # Pairwise, so a qd.Vector/qd.Matrix operand keeps its type (through its __array_ufunc__).
    return functools.reduce(np.minimum, args)


def _python_max(*args):
    return functools.reduce(np.maximum, args)


min = _binary("min", _python_min)  # noqa: A001 - variadic inside kernels: qd.min(a, b, c)
max = _binary("max", _python_max)  # noqa: A001


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
bit_shr = _binary("bit_shr", _python_bit_shr, op="lshr")
bit_sar = _binary("bit_sar", lambda x, n: np.right_shift(x, n), op="shr")
bit_shl = _binary("bit_shl", lambda x, n: np.left_shift(x, n), op="shl")

# C semantics, unlike // and %: the quotient truncates toward zero, the remainder takes the dividend's sign.
raw_div = _binary("raw_div", _python_raw_div)
raw_mod = _binary("raw_mod", np.fmod)


def _atomic(op, name=None):
    name = name or f"atomic_{op}"
    return Builtin(name, kernel_only(name), "atomic", op)


atomic_add = _atomic("add")
atomic_sub = _atomic("sub")
atomic_min = _atomic("min")
atomic_max = _atomic("max")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_mul = _atomic("mul")
atomic_exchange = _atomic("xchg", "atomic_exchange")  # stores the value; returns the old one
atomic_cas = _atomic("cas", "atomic_cas")  # (x, expected, desired): stores desired where x == expected; the old x


def _python_cast(value, dtype):
    return _numpy_dtype(dtype).type(value)


cast = Builtin("cast", _python_cast, "cast")


def _python_bit_cast(value, dtype):
    return np.asarray(value).view(_numpy_dtype(dtype))[()]


bit_cast = Builtin("bit_cast", _python_bit_cast, "bit_cast")


def _python_random(dtype=float):
    return python_random(dtype)


random = Builtin("random", _python_random, "random")  # qd.random(dtype=float); see random_numbers.py


def _python_randn(dtype=float):
    return python_randn(dtype)


randn = Builtin("randn", _python_randn, "randn")  # qd.randn(dtype=float): standard normal


def _python_static(*values):
    return values[0] if len(values) == 1 else values


static = Builtin("static", _python_static, "static")


def _python_static_assert(cond, msg=None):
    if msg is not None:
        assert cond, msg
    else:
        assert cond


# Checked and printed while a kernel compiles, never at run time (the translator's static_assert/static_print).
static_assert = Builtin("static_assert", _python_static_assert, "static_assert")
static_print = Builtin("static_print", print, "static_print")


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


ndrange = Builtin("ndrange", NdRange, "ndrange")


class Grouped:
    """`qd.grouped(x)`: loop over x's index space with one index vector instead of one name per dimension."""

    def __init__(self, container):
        self.container = container

    def __iter__(self):
        if not isinstance(self.container, NdRange):
            kind = type(self.container).__name__
            raise TypeError(f"qd.grouped() outside kernels needs a qd.ndrange(), but got {kind}.")
        for index in self.container:  # the range's own order, so axes= holds here as in kernels
            yield Vector(list(index) if isinstance(index, tuple) else [index])


grouped = Builtin("grouped", Grouped, "grouped")
select = Builtin("select", lambda cond, a, b: np.where(cond, a, b), "select")


def _python_loop_config(*, serialize=False, block_dim=None, parallelize=None, name=None, block_dim_adaptive=True):
    return None


loop_config = Builtin("loop_config", _python_loop_config, "loop_config")

# Translated in extra_builtins.py. stop_grad: loads of a field in the calling block pass no gradient;
# volatile_load: an array element read from memory every time; block_local: upstream's CUDA cache hint.
stop_grad = Builtin("stop_grad", kernel_only("stop_grad"), "stop_grad")
volatile_load = Builtin("volatile_load", kernel_only("volatile_load"), "volatile_load")
block_local = Builtin("block_local", kernel_only("block_local"), "block_local")
