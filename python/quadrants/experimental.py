# python/quadrants/experimental.py: qd.experimental, upstream's old home of real_func (now qd.real_func).
"""`qd.experimental` (floor 9), upstream's old home of `real_func`: `qd.experimental.real_func` is
`qd.real_func` with a DeprecationWarning."""
import warnings as _warnings

from quadrants.frontend.funcs import RealFunc as _RealFunc


def real_func(fn):
    """Deprecated alias of qd.real_func, kept because upstream programs still use it."""
    _warnings.warn("qd.experimental.real_func is deprecated because it is no longer experimental. "
                   "Use qd.real_func instead.", DeprecationWarning, stacklevel=2)
    return _RealFunc(fn)


__all__ = ["real_func"]
