# python/quadrants/lang/simt/_tile.py: upstream's private tile module names, which its tests and some programs import.
#
# _make_tile(N, dtype) is a tile class of one dtype (cached per (N, dtype) in _tile_cache): inside a
# kernel `Tile()` and `Tile.zeros()` give a zero tile, `Tile.eye()` the identity, and a tile has
# upstream's private methods _load/_store(arr, r0, r1, c0, c1), _load3d/_store3d(arr, b, ...),
# _ger_sub(a, b) and _trsm(L) besides the public ones (tile.py).
from quadrants.frontend import builtins as _b
from quadrants.library.simt import tile as _public
from quadrants.library.simt.tile_slices import TileSlice as _TileSliceProxy  # noqa: F401  the deferred a[r0:r1, c0:c1]

_tile_cache = {}


class _VecSliceProxy:
    """Upstream's deferred column slice a[r0:r1, col]. Here a column slice is this lane's element at
    once (tile_slices.py), so the class only keeps upstream's errors for using one as a value."""

    def __init__(self, arr, row_start, row_stop, col, batch_idx=None):
        self.arr, self.rows, self.col, self.batch = arr, (row_start, row_stop), col, batch_idx

    def _misuse(self, *_):
        raise TypeError("a column slice proxy is only valid in tile operations")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __getitem__ = _misuse

    def __repr__(self):
        return "<column slice - not a value; use with qd.outer(...)>"


class _TileClass(_b.Builtin):
    """A tile class of one size and dtype: calling it (or .zeros()) in a kernel gives a zero tile."""

    def __init__(self, size, dtype):
        self.SIZE, self.dtype = size, dtype
        tile_type = _public.TileType(size)
        super().__init__(f"Tile{size}x{size}", lambda: _PythonTile(size), "composite",
                         impl=lambda ops: tile_type.make(ops, dtype, identity=False))
        self.zeros = self
        self.eye = _b.Builtin(f"Tile{size}x{size}.eye", _b.kernel_only("eye"), "composite",
                              impl=lambda ops: tile_type.make(ops, dtype, identity=True))


class _PythonTile:
    """Tile() in Python scope: holds nothing; its methods say they work in kernels (lower=False is a
    TypeError first, as upstream checks it before anything runs)."""

    def __init__(self, size):
        self.SIZE = size

    def solve_triangular_(self, other, lower=True):
        if lower is not True:
            raise TypeError(f"Tile{self.SIZE}x{self.SIZE}.solve_triangular_: only lower=True is supported")
        raise RuntimeError("tiles work only inside a @qd.kernel or @qd.func")


def _make_tile(N, dtype=None):
    """The tile class of size N and dtype (None: default_fp), the same object for equal (N, dtype)."""
    if N not in (16, 32):
        raise ValueError(f"tiles are 16x16 or 32x32, but N={N!r}")
    key = (N, dtype)
    if key not in _tile_cache:
        _tile_cache[key] = _TileClass(N, dtype)
    return _tile_cache[key]
