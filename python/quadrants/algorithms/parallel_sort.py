# python/quadrants/algorithms/parallel_sort.py: qd.algorithms.parallel_sort, a stable LSD radix sort of a 1-D field or
# ndarray of keys (and the values that travel with them), built from ordinary kernels.
"""How the sort runs.

Keys are first mapped to unsigned integers whose order is the keys' order (signed integers flip their
sign bit; floats flip every bit when negative, else the sign bit), next to their original positions.
Then one kernel per 8-bit digit, least significant first, does a stable counting sort of those pairs:

1. the keys are cut into `tiles` runs of `tile_size` keys; one thread per tile counts its digits into
   `hist[digit * tiles + tile]` (digit-major, so an exclusive scan of hist gives every (digit, tile)
   its first output slot, earlier tiles first: that order is what keeps each pass stable);
2. hist is scanned in three steps: chunk sums in parallel, the chunk sums serially, then each chunk;
3. each tile walks its keys in order and scatters them to the slots its scanned counts give.

Finally the keys are mapped back and written in order, and the values are gathered through the
sorted positions. The radix kernels take only ndarrays, so they compile once per key width; only the
small load and store kernels specialize on the user's containers.
"""
import math
import warnings

from quadrants.base import dtypes as qdt
from quadrants.data.ndarray import ScalarNdarray, make_ndarray
from quadrants.data.tensor import Tensor
from quadrants.frontend import builtins as ops
from quadrants.frontend.funcs import func
from quadrants.kernels.kernel import kernel
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import ndarray, template

RADIX_BITS = 8
RADIX_BUCKETS = 1 << RADIX_BITS
SCAN_CHUNK = 1024  # hist entries one thread scans in step 2
# Tiles per pass: enough to keep every CPU core or GPU thread busy, few enough that hist (256 entries
# per tile) stays small next to the keys.
_MAX_TILES = {"cpu": 256, "cuda": 8192}
_MIN_TILE_SIZE = {"cpu": 1024, "cuda": 64}

_WIDE = (qdt.i64, qdt.u64, qdt.f64)  # keys sorted as 64-bit ordered bits; the others as 32-bit


# Each transform is one small @qd.func per kind of key; the kernels pick one with qd.static at compile time.
@func
def _float_to_bits(key):
    bits = ops.bit_cast(ops.cast(key, qdt.f32), qdt.u32)
    return bits ^ ops.select(bits >> 31 == qdt.u32(1), qdt.u32(0xFFFFFFFF), qdt.u32(0x80000000))


@func
def _double_to_bits(key):
    bits = ops.bit_cast(key, qdt.u64)
    return bits ^ ops.select(bits >> 63 == qdt.u64(1), qdt.u64(0xFFFFFFFFFFFFFFFF), qdt.u64(0x8000000000000000))


@func
def _int_to_bits(key):
    return ops.bit_cast(ops.cast(key, qdt.i32), qdt.u32) ^ qdt.u32(0x80000000)


@func
def _long_to_bits(key):
    return ops.bit_cast(key, qdt.u64) ^ qdt.u64(0x8000000000000000)


@func
def _unsigned_to_bits(key):
    return ops.cast(key, qdt.u32)


@func
def _unsigned_long_to_bits(key):
    return key


@func
def _bits_to_float(bits):
    return ops.bit_cast(bits ^ ops.select(bits >> 31 == qdt.u32(1), qdt.u32(0x80000000), qdt.u32(0xFFFFFFFF)), qdt.f32)


@func
def _bits_to_double(bits):
    return ops.bit_cast(bits ^ ops.select(bits >> 63 == qdt.u64(1), qdt.u64(0x8000000000000000),
                                        qdt.u64(0xFFFFFFFFFFFFFFFF)), qdt.f64)


@func
def _bits_to_int(bits):
    return ops.bit_cast(bits ^ qdt.u32(0x80000000), qdt.i32)


@func
def _bits_to_long(bits):
    return ops.bit_cast(bits ^ qdt.u64(0x8000000000000000), qdt.i64)


@func
def _bits_to_unsigned(bits):
    return bits


# key dtype -> (to ordered bits, back from them); narrow keys widen to 32 bits first, which keeps their order
_TRANSFORMS = {
    qdt.f16: (_float_to_bits, _bits_to_float), qdt.f32: (_float_to_bits, _bits_to_float),
    qdt.f64: (_double_to_bits, _bits_to_double),
    qdt.i8: (_int_to_bits, _bits_to_int), qdt.i16: (_int_to_bits, _bits_to_int), qdt.i32: (_int_to_bits, _bits_to_int),
    qdt.i64: (_long_to_bits, _bits_to_long),
    qdt.u8: (_unsigned_to_bits, _bits_to_unsigned), qdt.u16: (_unsigned_to_bits, _bits_to_unsigned),
    qdt.u32: (_unsigned_to_bits, _bits_to_unsigned), qdt.u64: (_unsigned_long_to_bits, _bits_to_unsigned),
}


@kernel
def _load_keys(keys: Tensor, base: qdt.i32, n: qdt.i32, bits: ndarray(), index: ndarray(),
               key_dtype: template()):
    for i in range(n):
        bits[i] = ops.static(_TRANSFORMS[key_dtype][0])(keys[base + i])
        index[i] = i


@kernel
def _store_keys(keys: Tensor, base: qdt.i32, n: qdt.i32, bits: ndarray(), key_dtype: template()):
    for i in range(n):
        keys[base + i] = ops.cast(ops.static(_TRANSFORMS[key_dtype][1])(bits[i]), key_dtype)


@kernel
def _gather_values(values: Tensor, base: qdt.i32, n: qdt.i32, index: ndarray(), out: ndarray()):
    for i in range(n):
        out[i] = values[base + index[i]]


@kernel
def _store_values(values: Tensor, base: qdt.i32, n: qdt.i32, sorted_values: ndarray()):
    for i in range(n):
        values[base + i] = sorted_values[i]


@kernel
def _radix_pass(src_bits: ndarray(), src_index: ndarray(), dst_bits: ndarray(), dst_index: ndarray(),
                hist: ndarray(), chunk_sums: ndarray(), n: qdt.i32, tiles: qdt.i32, tile_size: qdt.i32,
                shift: qdt.i32):
    """One stable counting sort of (src_bits, src_index) by the digit at shift into (dst_bits, dst_index)."""
    # Each thread owns one tile and its column of hist, so plain (non-atomic) updates are race-free.
    for t in range(tiles):
        for d in range(RADIX_BUCKETS):
            hist[d * tiles + t] = 0
        for i in range(t * tile_size, ops.min(t * tile_size + tile_size, n)):
            slot = ops.cast((src_bits[i] >> shift) & 0xFF, qdt.i32) * tiles + t
            hist[slot] = hist[slot] + 1
    hist_len = RADIX_BUCKETS * tiles
    chunks = (hist_len + SCAN_CHUNK - 1) // SCAN_CHUNK
    for c in range(chunks):
        total = 0
        for j in range(c * SCAN_CHUNK, ops.min(c * SCAN_CHUNK + SCAN_CHUNK, hist_len)):
            total += hist[j]
        chunk_sums[c] = total
    running = 0
    ops.loop_config(serialize=True)
    for c in range(chunks):
        count = chunk_sums[c]
        chunk_sums[c] = running
        running += count
    for c in range(chunks):
        offset = chunk_sums[c]
        for j in range(c * SCAN_CHUNK, ops.min(c * SCAN_CHUNK + SCAN_CHUNK, hist_len)):
            count = hist[j]
            hist[j] = offset
            offset += count
    for t in range(tiles):
        for i in range(t * tile_size, ops.min(t * tile_size + tile_size, n)):
            key_bits = src_bits[i]
            slot = ops.cast((key_bits >> shift) & 0xFF, qdt.i32) * tiles + t
            position = hist[slot]
            hist[slot] = position + 1
            dst_bits[position] = key_bits
            dst_index[position] = src_index[i]


def _check_container(name, container):
    shape = getattr(container, "shape", None)
    if not hasattr(container, "_element_shape") or shape is None or len(shape) != 1:
        raise TypeError(f"qd.algorithms.parallel_sort() sorts a 1-D qd.field or qd.ndarray, but {name} is "
                        f"{type(container).__name__} of shape {shape}.")


def _base_index(container):
    """The index of a 1-D container's first element: its offset (fields made with offset=), else 0."""
    layout = getattr(container, "_layout", None)
    offset = getattr(layout, "offset", None)
    return int(offset[0]) if offset else 0


def _tiling(n):
    """(tiles, tile_size) for n keys on the current arch."""
    arch = "cuda" if _runtime.config().arch is _runtime.cuda else "cpu"
    tile_size = max(_MIN_TILE_SIZE[arch], -(-n // _MAX_TILES[arch]))
    return -(-n // tile_size), tile_size


def parallel_sort(keys, values=None):
    """Sorts the 1-D field or ndarray keys ascending in place, and permutes values (if given) alongside.

    Stable (equal keys keep their order); floats order as IEEE totalOrder without NaN payloads: -inf <
    negative < -0.0 < 0.0 < positive < inf, NaNs at the end (or, with the sign bit set, the start).
    Warns DeprecationWarning, as upstream does (it prefers qd.algorithms.sort).
    """
    warnings.warn("qd.algorithms.parallel_sort is deprecated: upstream Quadrants prefers the composable "
                  "qd.algorithms.sort, which quadrants does not build yet; parallel_sort still sorts.",
                  DeprecationWarning, stacklevel=2)
    _check_container("keys", keys)
    n = keys.shape[0]
    if keys._element_shape:
        raise TypeError(f"qd.algorithms.parallel_sort() sorts scalar keys, but keys has vector/matrix elements of "
                        f"shape {keys._element_shape}.")
    key_dtype = keys.dtype
    if key_dtype not in _TRANSFORMS:
        raise TypeError(f"qd.algorithms.parallel_sort() sorts keys of an integer or float dtype, not {key_dtype}.")
    if values is not None:
        _check_container("values", values)
        if values.shape[0] != n:
            raise ValueError(f"qd.algorithms.parallel_sort(): values has {values.shape[0]} elements but keys has {n}; "
                             f"they must match.")
    if n <= 1:
        return
    bits_dtype = qdt.u64 if key_dtype in _WIDE else qdt.u32
    tiles, tile_size = _tiling(n)
    bits = [ScalarNdarray(bits_dtype, (n,)) for _ in range(2)]
    index = [ScalarNdarray(qdt.i32, (n,)) for _ in range(2)]
    hist = ScalarNdarray(qdt.i32, (RADIX_BUCKETS * tiles,))
    chunk_sums = ScalarNdarray(qdt.i32, (math.ceil(RADIX_BUCKETS * tiles / SCAN_CHUNK),))
    keys_base = _base_index(keys)
    _load_keys(keys, keys_base, n, bits[0], index[0], key_dtype)
    passes = (64 if bits_dtype == qdt.u64 else 32) // RADIX_BITS  # even, so the result lands back in bits[0]
    for p in range(passes):
        src, dst = p % 2, 1 - p % 2
        _radix_pass(bits[src], index[src], bits[dst], index[dst], hist, chunk_sums, n, tiles, tile_size,
                    p * RADIX_BITS)
    _store_keys(keys, keys_base, n, bits[0], key_dtype)
    if values is not None:
        element_shape = values._element_shape
        sorted_values = make_ndarray(values.dtype, (n,), element_shape)
        values_base = _base_index(values)
        _gather_values(values, values_base, n, index[0], sorted_values)
        _store_values(values, values_base, n, sorted_values)
