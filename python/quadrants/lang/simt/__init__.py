# python/quadrants/lang/simt/__init__.py: qd.simt: block, subgroup and grid operations inside kernels (upstream's module path).
from . import block, grid, subgroup

warp = subgroup  # upstream's older name for the subgroup namespace

__all__ = ["block", "grid", "subgroup", "warp"]
