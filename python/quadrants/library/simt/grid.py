# python/quadrants/library/simt/grid.py: qd.simt.grid: the device-scope memory fence (no grid-wide barrier, as upstream).
from quadrants.library.simt import _ir

mem_fence = _ir._stmt_op("fence grid", "qd.simt.grid.mem_fence")


memfence = _ir.deprecated(globals(), "memfence", "mem_fence", mem_fence)
