# python/quadrants/lang/simt/__init__.py: qd.simt: block, subgroup and grid operations inside kernels (upstream's module path).
from quadrants.library.simt import block, grid, subgroup, warp
from quadrants.library.simt.tile import Tile16x16, Tile32x32

__all__ = ["block", "grid", "subgroup", "warp", "Tile16x16", "Tile32x32"]
