# python/quadrants/lang/simt/__init__.py: qd.simt: block, subgroup and grid operations inside kernels (upstream's module path).
from . import block, grid, subgroup, warp

__all__ = ["block", "grid", "subgroup", "warp"]
