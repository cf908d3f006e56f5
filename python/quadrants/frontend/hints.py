# python/quadrants/frontend/hints.py: qd.assume_in_range and qd.cache_read_only, upstream's hints to its optimizer.
#
# Upstream uses them to size block-local scratch buffers (assume_in_range) and to load read-only data through
# the GPU's read-only cache (cache_read_only). Neither changes what a kernel computes, and quadrants' code
# generators make no use of either, so here each checks its arguments and compiles to nothing: the value passes
# through, the fields are read as before.
from quadrants.frontend.builtins import Builtin, kernel_only
from quadrants.frontend.struct_values import StructField
from quadrants.frontend.values import ArrayRef
from quadrants.frontend.vector_ops import describe


def _python_assume_in_range(val, base, low, high):
    return val


def _assume_in_range(ops, *args):
    """qd.assume_in_range(val, base, low, high): val, promised to lie in [base + low, base + high)."""
    if len(args) != 4:
        raise ops.tr.fail(f"qd.assume_in_range() takes 4 arguments (val, base, low, high), but got {len(args)}",
                          kind="type")
    val, _base, low, high = args
    if isinstance(low, int) and isinstance(high, int) and low >= high:
        raise ops.tr.fail(f"qd.assume_in_range(val, base, low, high) needs low < high (the range is "
                          f"[base + low, base + high)), but got low={low}, high={high}", kind="value")
    return val


def _cache_read_only(ops, *args):
    """qd.cache_read_only(x, ...): the fields or ndarrays x, ... are only read by this kernel."""
    for arg in args:
        if not isinstance(arg, (ArrayRef, StructField)):
            raise ops.tr.fail(f"qd.cache_read_only() takes fields or ndarrays, but got {describe(arg)}",
                              kind="type", hint="pass the field itself (qd.cache_read_only(x)), not an element.")


assume_in_range = Builtin("assume_in_range", _python_assume_in_range, "composite", impl=_assume_in_range)
cache_read_only = Builtin("cache_read_only", kernel_only("cache_read_only"), "composite", impl=_cache_read_only)
assume_in_range.__doc__ = ("assume_in_range(val, base, low, high)\n\nReturns val, which the program promises lies in "
                           "[base + low, base + high); an optimizer hint upstream uses, with no effect here.")
cache_read_only.__doc__ = ("cache_read_only(x, ...)\n\nIn a kernel: the fields or ndarrays x, ... are only read by "
                           "it; an optimizer hint upstream uses, with no effect here.")

__all__ = ["assume_in_range", "cache_read_only"]
