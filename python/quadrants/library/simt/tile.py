# python/quadrants/library/simt/tile.py: qd.simt.Tile16x16 / Tile32x32: an N x N matrix held one row per subgroup lane.
#
# Lane i keeps row i in N locals (registers); rows meet through subgroup shuffles, never shared memory.
# Inside a kernel `Tile16x16.zeros(dtype=...)` declares the locals and gives a TileValue, which the
# translator binds like any compile-time object; slice loads and stores (`t[:] = a[r0:r1, c0:c1]`,
# `a[r0:r1, c0:c1] = t`, also with a leading batch index and on shared arrays), `t -= qd.outer(u, v)`
# and the methods below are translated here (library/simt/tile_slices.py has the translator's side). Lanes
# past the tile (a block wider than N) hold rows past the tile and only take part in the shuffles.
from quadrants.base.dtypes import i32
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.frontend.ir_builder import Expr
from quadrants.frontend.targets import VarTarget, VectorTarget
from quadrants.frontend.values import VectorValue
from quadrants.library.simt.reductions import invocation_id, shuffle
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import scalar_dtype_name, template


@func
def _eye(r, n: template()):
    lane = i32(invocation_id())
    for j in _b.static(range(n)):
        r[j] = 0
        if lane == j:
            r[j] = 1
    return r


@func
def _ger_sub(r, a, b, n: template()):
    """r -= a (this lane's) times the row of b held one entry per lane."""
    for j in _b.static(range(n)):
        r[j] = r[j] - a * shuffle(b, j)
    return r


@func
def _cholesky(r, eps, n: template()):
    """Left-looking Cholesky on the lower triangle: pivot k is sqrt(max(a_kk - |l_k|^2, eps)) with lane
    k's eps; the entries above the diagonal are left as they were."""
    lane = i32(invocation_id())
    zero = r[0] - r[0]
    norm = zero
    for k in _b.static(range(n)):
        pivot = zero
        if lane == k:
            pivot = _b.sqrt(_b.max(r[k] - norm, eps))
            r[k] = pivot
        pivot = shuffle(pivot, k)
        dot = zero
        for j in _b.static(range(k)):
            dot += shuffle(r[j], k) * r[j]
        if lane > k:
            value = (r[k] - dot) / pivot
            r[k] = value
            norm += value * value
    return r


@func
def _solve_lower(b, low, n: template()):
    """Row by row, X L^T = B: x_c = (b_c - sum_{j<c} x_j l_cj) / l_cc, l_c* read from lane c."""
    for c in _b.static(range(n)):
        dot = b[0] - b[0]
        for j in _b.static(range(c)):
            dot += b[j] * shuffle(low[j], c)
        b[c] = (b[c] - dot) / shuffle(low[c], c)
    return b


@func
def _copy_row(r, arr: template(), batch, row0, row1, col0, col1, batched: template(), n: template(),
              into_tile: template()):
    """This lane's row row0 + lane of arr, columns [col0, col1), both clipped to arr, read into r (into_tile) or
    written from it; the other entries are left as they are."""
    dims = _b.static(len(arr.shape))
    rows = arr.shape[dims - 2]
    cols = arr.shape[dims - 1]
    row = row0 + i32(invocation_id())
    if row < _b.min(row1, rows):
        for j in _b.static(range(n)):
            if col0 + j < _b.min(col1, cols):
                if _b.static(into_tile and batched):
                    r[j] = arr[batch, row, col0 + j]
                elif _b.static(into_tile):
                    r[j] = arr[row, col0 + j]
                elif _b.static(batched):
                    arr[batch, row, col0 + j] = r[j]
                else:
                    arr[row, col0 + j] = r[j]
    return r


@func
def _load(r, arr: template(), batch, row0, row1, col0, col1, batched: template(), n: template()):
    return _copy_row(r, arr, batch, row0, row1, col0, col1, batched, n, True)


@func
def _store(r, arr: template(), batch, row0, row1, col0, col1, batched: template(), n: template()):
    _copy_row(r, arr, batch, row0, row1, col0, col1, batched, n, False)


@func
def _load_column(arr: template(), batch, row0, row1, col, dtype: template(), batched: template()):
    """arr[row0 + lane, col] (with the batch index first when batched), zero past row1 or the array."""
    dims = _b.static(len(arr.shape))
    row = row0 + i32(invocation_id())
    value = _b.cast(0, dtype)
    if row < _b.min(row1, arr.shape[dims - 2]):
        if _b.static(batched):
            value = arr[batch, row, col]
        else:
            value = arr[row, col]
    return value


class Outer:
    """qd.outer(a, b) of per-lane scalars: only `tile -= qd.outer(a, b)` consumes it."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def _misuse(self, *_):
        raise TypeError("qd.outer(a, b) does not support composition; it can only be subtracted from a tile "
                        "(t -= qd.outer(a, b)), one update at a time")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __getitem__ = _misuse


class TileValue:
    """A tile inside a kernel: its N row locals in the calling lane, of one dtype."""

    def __init__(self, tr, size, dtype_name, names):
        self.tr, self.SIZE, self.dtype_name, self.names = tr, size, dtype_name, names
        self.depth = tr.parallel_depth

    def value(self):
        return VectorValue([Expr(f"(var {n})") for n in self.names], (self.SIZE,))

    def assign(self, value):
        self.tr.store(VectorTarget([VarTarget(n, self.depth) for n in self.names], (self.SIZE,)), value)

    def update(self, body, *args):
        self.assign(self.tr.inline_func(body, [self.value(), *args, self.SIZE], {}))

    def _method(self, name, impl):
        return _b.Builtin(f"Tile{self.SIZE}x{self.SIZE}.{name}", _b.kernel_only(name), "composite", impl=impl)

    @property
    def eye_(self):
        return self._method("eye_", lambda ops: self.update(_eye))

    @property
    def cholesky_(self):
        return self._method("cholesky_", lambda ops, eps: self.update(_cholesky, eps))

    @property
    def solve_triangular_(self):
        def impl(ops, other, lower=True):
            if lower is not True:
                raise TypeError(f"Tile{self.SIZE}x{self.SIZE}.solve_triangular_: only lower=True is supported")
            if not isinstance(other, TileValue) or other.SIZE != self.SIZE:
                raise ops.tr.fail(f"solve_triangular_(B) needs a Tile{self.SIZE}x{self.SIZE} B, but got "
                                  f"{type(other).__name__}", kind="type")
            other.update(_solve_lower, self.value())

        return self._method("solve_triangular_", impl)

    def subtract_outer(self, outer):
        self.update(_ger_sub, outer.a, outer.b)

    # upstream's private methods (simt/_tile.py)
    def _slice_method(self, name, batched, load):
        def impl(ops, arr, *bounds):
            batch, bounds = (bounds[0], bounds[1:]) if batched else (0, bounds)
            if len(bounds) != 4:
                raise ops.tr.fail(f"{name}() takes the array, {'a batch index, ' if batched else ''}row_start, "
                                  "row_stop, col_start and col_stop", kind="type")
            args = [arr, batch, *bounds, batched]
            if load:
                self.update(_load, *args)
            else:
                self.tr.inline_func(_store, [self.value(), *args, self.SIZE], {})

        return self._method(name, impl)

    _load = property(lambda self: self._slice_method("_load", False, True))
    _store = property(lambda self: self._slice_method("_store", False, False))
    _load3d = property(lambda self: self._slice_method("_load3d", True, True))
    _store3d = property(lambda self: self._slice_method("_store3d", True, False))
    _ger_sub = property(lambda self: self._method("_ger_sub", lambda ops, a, b: self.update(_ger_sub, a, b)))
    _trsm = property(lambda self: self._method("_trsm", lambda ops, low: self.update(_solve_lower, low.value())))


class TileType:
    """qd.simt.Tile16x16 / Tile32x32: SIZE, and zeros()/eye() inside kernels."""

    def __init__(self, size):
        self.SIZE = size
        name = f"qd.simt.Tile{size}x{size}"
        self.zeros = _b.Builtin(f"{name}.zeros", _b.kernel_only(f"{name}.zeros"), "composite",
                                impl=lambda ops, dtype=None: self.make_on_gpu(ops, dtype, identity=False))
        self.eye = _b.Builtin(f"{name}.eye", _b.kernel_only(f"{name}.eye"), "composite",
                              impl=lambda ops, dtype=None: self.make_on_gpu(ops, dtype, identity=True))

    def make_on_gpu(self, ops, dtype, identity):
        """The public .zeros()/.eye(): GPU-only, as upstream 1.3.3 rejects them on the CPU at compile time, so a
        program that runs here runs there too (upstream's private _make_tile classes are not checked, as there)."""
        config = _runtime.config()
        if not config.is_cuda:
            raise ops.tr.fail(f"Tile{self.SIZE}x{self.SIZE} requires a GPU backend (CUDA here), but the current "
                              f"arch is {config.arch.name}",
                              hint="run the kernel under qd.init(arch=qd.cuda), or write the N x N matrix "
                              "as qd.Matrix values for the CPU.")
        return self.make(ops, dtype, identity)

    def make(self, ops, dtype, identity):
        tr = ops.tr
        dtype_name = tr.default_fp if dtype is None else scalar_dtype_name(dtype)
        names = [tr.names.fresh(f"tile{self.SIZE}_r{j}") for j in range(self.SIZE)]
        for n in names:
            tr.builder.emit(f"decl {n} {dtype_name} (const int 0)")
        tile = TileValue(tr, self.SIZE, dtype_name, names)
        if identity:
            tile.update(_eye)
        return tile

    def __call__(self, *args, **kwargs):
        raise TypeError(f"use qd.simt.Tile{self.SIZE}x{self.SIZE}.zeros(dtype=...) or .eye(dtype=...) inside a kernel")

    def __repr__(self):
        return f"qd.simt.Tile{self.SIZE}x{self.SIZE}"


Tile16x16 = TileType(16)
Tile32x32 = TileType(32)


def outer_impl(ops, a, b):
    tr = ops.tr
    return Outer(tr.materialize(tr.scalar(a, "qd.outer()'s first argument")),
                 tr.materialize(tr.scalar(b, "qd.outer()'s second argument")))


def _outer_python(a, b):
    return Outer(a, b)


outer = _b.Builtin("outer", _outer_python, "composite", impl=outer_impl, doc=(
    "outer(a, b)\n\nThe outer product of per-lane scalars a and b, for one use: `tile -= qd.outer(a, b)` on a "
    "qd.simt.Tile16x16 or Tile32x32 inside a kernel, which subtracts lane i's a times lane j's b from entry "
    "(i, j) through subgroup shuffles. Any other use of the result (adding, multiplying, indexing) raises "
    "TypeError."))
