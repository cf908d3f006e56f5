# python/quadrants/library/simt/tile_slices.py: the translator's side of qd.simt tiles: slice subscripts, `t[:] = ...`, `t -= qd.outer(...)`.
#
# `a[r0:r1, c0:c1]` (or `a[b, r0:r1, c0:c1]`) of an array, field or shared array is a TileSlice, which
# only a tile assignment consumes; `a[r0:r1, col]` (or `a[b, r0:r1, col]`) is this lane's element of
# the column, a scalar. Both bounds of every slice are required (simt/tile.py has the tiles).
import ast
import re
import types

from quadrants.base import registry
from quadrants.frontend.simt_values import SharedArray
from quadrants.frontend.values import ArrayRef, StaticBinding
from quadrants.library.simt import tile
from quadrants.library.simt.tile import Outer, TileValue


class TileSlice:
    """a[(batch,) row0:row1, col0:col1]: loaded by `t[:] = ...`, stored by `... = t`; not a value."""

    def __init__(self, base, row0, row1, col0, col1, batch=None):  # upstream's _TileSliceProxy order
        self.base, self.batch, self.rows, self.cols = base, batch, (row0, row1), (col0, col1)

    def _misuse(self, *_):
        raise TypeError("a tile slice a[r0:r1, c0:c1] is only valid in tile operations: t[:] = a[...] or a[...] = t")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __getitem__ = _misuse

    def __repr__(self):
        return "<tile slice - not a value; use with tile[:] = ... or ... = tile>"

    def args(self):
        return [self.base, 0 if self.batch is None else self.batch, self.rows[0], self.rows[1], self.cols[0],
                self.cols[1], self.batch is not None]


class TileRowsTarget:
    """`t[:]` of a tile, as an assignment target."""

    def __init__(self, tile):
        self.tile = tile


def slice_parts(tr, node):
    """The subscript's parts (a (start, stop) pair per slice), or None when it has no slice."""
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    if not any(isinstance(e, ast.Slice) for e in elements):
        return None
    parts = []
    for e in elements:
        if not isinstance(e, ast.Slice):
            parts.append(tr.visit(e))
            continue
        if e.step is not None:
            raise tr.fail("a slice inside a kernel cannot have a step", kind="syntax")
        if e.lower is None and e.upper is None and len(elements) == 1:
            parts.append(slice(None))  # t[:]
            continue
        if e.lower is None or e.upper is None:
            raise tr.fail("a tile slice needs both its start and stop indices (both start and stop indices are "
                          "required), e.g. a[r0:r0 + 16, c0:c0 + 16]", kind="syntax")
        bounds = (tr.visit(e.lower), tr.visit(e.upper))
        if any(_negative(b) for b in bounds):
            raise tr.fail("Negative indices are not supported in tile slices (they do not count from the end)",
                          kind="syntax")
        parts.append(bounds)
    return parts


def _negative(bound):
    if isinstance(bound, int):
        return bound < 0
    return bool(re.match(r"^\(const (int|i\d+) -\d+\)$", getattr(bound, "text", "")))


def _layout(tr, parts):
    """(batch, rows, cols_or_column, is_tile) of a slice subscript's parts."""
    kinds = [isinstance(p, tuple) for p in parts]
    if kinds in ([True, True], [True, False]):
        return None, parts[0], parts[1], kinds[1]
    if kinds in ([False, True, True], [False, True, False]):
        return parts[0], parts[1], parts[2], kinds[2]
    raise tr.fail("a slice inside a kernel must be a tile slice: a[r0:r1, c0:c1], a[b, r0:r1, c0:c1], "
                  "a[r0:r1, col] or a[b, r0:r1, col]", kind="syntax")


def slice_value(tr, base, node):
    """The value of `base[...]` when the subscript has slices, else None."""
    if not isinstance(base, (ArrayRef, SharedArray)):
        return None  # vectors have their own slices (exprs.py)
    parts = slice_parts(tr, node)
    if parts is None:
        return None
    batch, rows, cols, is_tile = _layout(tr, parts)
    if is_tile:
        return TileSlice(base, rows[0], rows[1], cols[0], cols[1], batch)
    return tr.inline_func(tile._load_column, [base, 0 if batch is None else batch, rows[0], rows[1], cols,
                                              base.dtype_name, batch is not None], {})


def slice_target(tr, base, node):
    """The target of `base[...] = ...` when the subscript has slices (or is t[:] of a tile), else None."""
    if isinstance(base, TileValue):
        parts = slice_parts(tr, node)
        if parts != [slice(None)]:
            raise tr.fail("a tile is assigned as a whole: t[:] = a[r0:r1, c0:c1]", kind="syntax")
        return TileRowsTarget(base)
    value = slice_value(tr, base, node) if isinstance(base, (ArrayRef, SharedArray)) else None
    if value is not None and not isinstance(value, TileSlice):
        raise tr.fail("a column slice a[r0:r1, col] can only be read", kind="syntax")
    return value


def store_tile(tr, target, value):
    """Stores into a TileRowsTarget or a TileSlice; False when target is neither."""
    if isinstance(target, TileRowsTarget):
        if isinstance(value, TileSlice):
            target.tile.update(tile._load, *value.args())
        elif isinstance(value, tile.TileValue) and value.SIZE == target.tile.SIZE:
            target.tile.assign(value.value())
        else:
            raise tr.fail(f"t[:] takes a tile slice a[r0:r1, c0:c1] or a tile of the same size, but got "
                          f"{type(value).__name__}", kind="type")
        return True
    if isinstance(target, TileSlice):
        if not isinstance(value, tile.TileValue):
            raise tr.fail(f"a tile slice a[r0:r1, c0:c1] can only be assigned a tile, but got {type(value).__name__}",
                          kind="type")
        tr.inline_func(tile._store, [value.value(), *target.args(), value.SIZE], {})
        return True
    return False


def tile_augmented(tr, node):
    """`t -= qd.outer(a, b)` on a tile; False when the target is not a tile."""
    if not isinstance(node.target, ast.Name):
        return False
    binding = tr.lookup_binding(node.target.id)  # not visited: reading a local has effects (autodiff)
    tile = getattr(binding, "value", None) if isinstance(binding, StaticBinding) else None
    if not isinstance(tile, TileValue):
        return False
    value = tr.visit(node.value)
    if not isinstance(node.op, ast.Sub):
        raise tr.fail(f"{type(node.op).__name__} on a tile is an unsupported augmented assignment op: a tile can "
                      "only be updated with t -= qd.outer(a, b)", kind="type")
    if not isinstance(value, Outer):
        raise tr.fail(f"t -= {type(value).__name__} on a tile is an unsupported augmented assignment: a tile can "
                      "only be updated with t -= qd.outer(a, b)", kind="type")
    tile.subtract_outer(value)
    return True


# The frontend reaches this syntax through the registry: tiles are a library built on the kernel language.
registry.provide("tile_syntax", types.SimpleNamespace(slice_value=slice_value, slice_target=slice_target,
                                                      store_tile=store_tile, tile_augmented=tile_augmented))
