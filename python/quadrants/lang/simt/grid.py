# python/quadrants/lang/simt/grid.py: qd.simt.grid: the device-scope memory fence (no grid-wide barrier, as upstream).
import warnings

from . import _ir

mem_fence = _ir._stmt_op("fence grid", "qd.simt.grid.mem_fence")


def memfence():
    """Deprecated name of mem_fence()."""
    warnings.warn("qd.simt.grid.memfence() is deprecated; use qd.simt.grid.mem_fence() instead.",
                  DeprecationWarning, stacklevel=2)
    return mem_fence()
