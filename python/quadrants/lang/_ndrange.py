# python/quadrants/lang/_ndrange.py: upstream's module path `quadrants.lang._ndrange`, for compatibility only.
#
# _Ndrange is the class of qd.ndrange(...) (builtins.NdRange: bounds, axes=, Python-scope iteration and grouped());
# GroupedNDRange is what _Ndrange.grouped() and qd.grouped(qd.ndrange(...)) return in Python scope.
from quadrants.frontend.builtins import Grouped as GroupedNDRange, NdRange as _Ndrange, ndrange

__all__ = ["ndrange"]
