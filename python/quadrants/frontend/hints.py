# python/quadrants/frontend/hints.py: qd.assume_in_range, qd.cache_read_only and loop_unique, upstream's hints to
# its optimizer.
#
# Upstream uses them to size block-local scratch buffers (assume_in_range), to load read-only data through
# the GPU's read-only cache (cache_read_only) and to demote atomics on elements that a loop index reaches through a
# value the program promises is unique per iteration (loop_unique, upstream's quadrants.lang.misc). None changes
# what a kernel computes, and quadrants' code generators make no use of any, so here each checks its arguments and
# compiles to nothing: the value passes through, the fields are read as before (atomics stay atomics).
from quadrants.data.snode import SNode
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


def _loop_unique_arguments(val, covers=None):
    return val, covers


def _loop_unique(ops, *args, **kwargs):
    """loop_unique(val, covers=None): val, promised to differ between the iterations of the enclosing loop."""
    try:
        val, covers = _loop_unique_arguments(*args, **kwargs)
    except TypeError as e:
        raise ops.tr.fail(f"loop_unique(val, covers=None): {e}".replace("_loop_unique_arguments() ", ""),
                          kind="type") from None
    covers = [] if covers is None else covers if isinstance(covers, (list, tuple)) else [covers]
    for cover in covers:
        if not isinstance(cover, (ArrayRef, StructField, SNode)):
            raise ops.tr.fail(f"loop_unique(val, covers) takes fields or SNodes in covers, but got {describe(cover)}",
                              kind="type", hint="pass the fields whose accesses val indexes uniquely, or leave it out.")
    return val


assume_in_range = Builtin("assume_in_range", _python_assume_in_range, "composite", impl=_assume_in_range)
cache_read_only = Builtin("cache_read_only", kernel_only("cache_read_only"), "composite", impl=_cache_read_only)
loop_unique = Builtin("loop_unique", kernel_only("lang.misc.loop_unique"), "composite", impl=_loop_unique, doc=(
    "loop_unique(val, covers=None)\n\nIn a kernel: returns val, which the program promises differs between the "
    "iterations of the enclosing parallel loop (covers: the fields it indexes uniquely); an optimizer hint "
    "upstream uses to demote atomics, with no effect here."))
assume_in_range.__doc__ = ("assume_in_range(val, base, low, high)\n\nReturns val, which the program promises lies in "
                           "[base + low, base + high); an optimizer hint upstream uses, with no effect here.")
cache_read_only.__doc__ = ("cache_read_only(x, ...)\n\nIn a kernel: the fields or ndarrays x, ... are only read by "
                           "it; an optimizer hint upstream uses, with no effect here.")

__all__ = ["assume_in_range", "cache_read_only", "loop_unique"]
