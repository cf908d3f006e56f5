# python/quadrants/sparse/__init__.py: qd.sparse: sparse grids of structs on a bitmasked SNode (upstream's
# quadrants.sparse), and the fraction of a grid's cells that are active.
"""qd.sparse: sparse grids of structs (qd.sparse.grid) and the fraction of their cells in use (qd.sparse.usage)."""
# Imported under private names, so that dir(qd.sparse) is upstream's: grid and usage.
from quadrants.base.dtypes import f32 as _f32
from quadrants.data.snode import ij as _ij, ijk as _ijk, root as _root
from quadrants.data.struct import Struct as _Struct
from quadrants.frontend import builtins as _builtins
from quadrants.frontend.sparse_access import is_active as _is_active
from quadrants.kernels.kernel import kernel as _kernel
from quadrants.types.annotations import template as _template


def grid(field_dict, shape):
    """A 2-D or 3-D sparse grid: a struct field of the members `field_dict` ({name: type}) placed under
    qd.root.bitmasked(qd.ij or qd.ijk, shape), so each cell is active only once written (or activated)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else shape
    if not isinstance(shape, tuple) or len(shape) not in (2, 3):
        raise ValueError(f"qd.sparse.grid() supports 2-D and 3-D grids: shape must be a tuple of 2 or 3 ints, "
                         f"but got {shape!r}.")
    x = _Struct.field(field_dict)
    _root.bitmasked(_ij if len(shape) == 2 else _ijk, shape).place(x)
    return x


@_kernel
def usage(x: _template()) -> _f32:
    """The fraction of the sparse grid x's cells that are active, in [0, 1]."""
    count = 0
    for I in _builtins.grouped(x.parent()):
        if _is_active(x.parent(), I):
            count += 1
    total = 1.0
    for d in _builtins.static(range(len(x.shape))):
        total *= x.shape[d]
    return count / total


__all__ = ["grid", "usage"]
