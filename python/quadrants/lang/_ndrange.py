# python/quadrants/lang/_ndrange.py: upstream's module path `quadrants.lang._ndrange`, for compatibility only.
#
# _Ndrange is the class of qd.ndrange(...) (builtins.NdRange: bounds, axes=, Python-scope iteration and grouped());
# GroupedNDRange is what _Ndrange.grouped() and qd.grouped(qd.ndrange(...)) return in Python scope.
from .builtins import Grouped as GroupedNDRange
from .builtins import NdRange as _Ndrange
from .builtins import ndrange

__all__ = ["ndrange"]
