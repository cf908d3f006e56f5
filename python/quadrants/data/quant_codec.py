# python/quadrants/data/quant_codec.py: the bits of quantized values (qd.types.quant) in Python scope, with numpy.
#
# The rules are upstream's (its LLVM code generator's quant lowering), and frontend/quant_access.py writes the same
# steps as IR, so a value stored in a kernel reads back the same in Python scope and the other way round:
# - an int keeps its low `bits` bits; a signed one is sign-extended on reads; values pass through the compute type;
# - a fixed-point value stores round(value / scale) (halves away from zero), computed in its compute type;
# - a float is rebuilt from f32's bits: its fraction rounded to `digit_bits` bits (a carry raises the exponent),
#   its exponent biased by `exponent_offset` and floored at 0; a zero exponent flushes the value to zero;
# - floats sharing one exponent store the largest of their f32 exponents, and each keeps its digits shifted to it,
#   the implicit leading 1 included (so a value much smaller than the largest flushes to zero).
# Every array here is of uint64 words or member bits unless said otherwise.
import numpy as np

from quadrants.types.quant import QuantFixed, QuantInt

_U32 = np.uint64(0xFFFFFFFF)


def mask(bits):
    return np.uint64((1 << bits) - 1)


def _signed(raw, bits):
    """raw member bits (uint64) as int64, sign-extended from `bits` bits."""
    value = raw.astype(np.int64)
    if bits >= 64:
        return raw.view(np.int64) if raw.dtype == np.uint64 else value
    top = np.int64(1 << (bits - 1))
    return np.where(value >= top, value - np.int64(1 << bits) if bits < 63 else value, value)


def _as_compute(values, dtype):
    """values converted to a compute dtype as a kernel's cast converts them (docs/IR.md): floats truncated toward
    zero into integers, NaN to 0 and values beyond the range to its nearest end; integers wrap."""
    values = np.asarray(values)
    if dtype.numpy.kind in "iu" and values.dtype.kind == "f":
        info = np.iinfo(dtype.numpy)
        whole = np.nan_to_num(np.trunc(values.astype(np.float64)), nan=0.0)
        return np.clip(whole, float(info.min), float(info.max)).astype(dtype.numpy)
    if dtype.numpy.kind in "iu" and values.dtype.kind == "b":
        values = values.astype(np.int64)
    return values.astype(dtype.numpy)


def decode(qtype, raw, exponent=None):
    """The values of member bits `raw` (a QuantFloat also needs its `exponent` bits) in the compute dtype."""
    if isinstance(qtype, QuantInt):
        ints = _signed(raw, qtype.bits) if qtype.signed else raw
        return ints.astype(qtype.compute.numpy)
    if isinstance(qtype, QuantFixed):
        digits = _signed(raw, qtype.bits) if qtype.signed else raw.astype(np.int64)
        compute = qtype.compute.numpy
        return digits.astype(compute) * compute.type(qtype.scale)
    return _decode_float(qtype, raw, exponent)


def encode(qtype, values):
    """Member bits (uint64) of `values`; a QuantFloat gives (digits, exponent) bits."""
    if isinstance(qtype, QuantInt):
        ints = _as_compute(values, qtype.compute)
        return ints.astype(np.uint64) & mask(qtype.bits)
    if isinstance(qtype, QuantFixed):
        compute = qtype.compute.numpy
        scaled = np.asarray(values).astype(compute) * compute.type(1.0 / qtype.scale)
        scaled = scaled + np.copysign(compute.type(0.5), scaled).astype(compute)
        digits = np.trunc(scaled).astype(np.int64)
        return digits.astype(np.uint64) & mask(qtype.bits)
    return _encode_float(qtype, values)


def _f32_bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)


def _encode_float(qtype, values):
    digit_bits = qtype.digit_bits
    bits = _f32_bits(values)
    if digit_bits < 23:  # round to nearest; a carry out of the fraction goes into the exponent, as it should
        bits = (bits + np.uint64(1 << (22 - digit_bits))) & _U32
    exponent = (bits >> np.uint64(23)) & np.uint64(0xFF)
    digits = (bits >> np.uint64(23 - digit_bits)) & mask(digit_bits)
    if qtype.signed:
        digits |= (bits >> np.uint64(31)) << np.uint64(digit_bits)
    exponent = exponent.astype(np.int64)
    exponent = np.maximum(exponent - np.where(exponent != 0, qtype.exponent_offset, 0), 0)
    digits = np.where(exponent != 0, digits, np.uint64(0))  # flush to zero
    return digits & mask(qtype.digits.bits), exponent.astype(np.uint64) & mask(qtype.exponent.bits)


def _decode_float(qtype, digits, exponent):
    digit_bits = qtype.digit_bits
    offset = np.int64(qtype.exponent_offset)
    exponent = exponent.astype(np.int64)
    if qtype.exponent.bits < 8:
        offset = np.where(exponent != 0, offset, np.int64(0))
    shifted = (digits & mask(qtype.digits.bits)) << np.uint64(23 - digit_bits)
    biased = ((exponent + offset) & 255).astype(np.uint64)
    bits = (biased << np.uint64(23)) | (shifted & np.uint64(0x7FFFFF))
    if qtype.signed:
        bits |= (shifted & np.uint64(1 << 23)) << np.uint64(8)
    return (bits & _U32).astype(np.uint32).view(np.float32)


# ---- shared exponents ------------------------------------------------------------------------------------------------
def encode_shared(qtypes, values):
    """(exponent bits, [digit bits per member]) of floats `values` (one array per member) sharing one exponent."""
    bits = [_f32_bits(v) for v in values]
    exponents = [(b >> np.uint64(23)) & np.uint64(0xFF) for b in bits]
    largest = exponents[0]
    for e in exponents[1:]:
        largest = np.maximum(largest, e)
    largest_i = largest.astype(np.int64)
    stored = np.maximum(largest_i - np.where(largest_i != 0, qtypes[0].exponent_offset, 0), 0)
    digits = []
    for qtype, b, e in zip(qtypes, bits, exponents):
        full = (b & np.uint64(0x7FFFFF)) | np.uint64(1 << 23)
        shift = np.minimum(largest - e, np.uint64(31))
        d = full >> shift
        right = 24 - qtype.digit_bits
        d = np.minimum(d + np.uint64(1 << (right - 1)), np.uint64((1 << 24) - 1)) >> np.uint64(right)
        if qtype.signed:
            d |= (b >> np.uint64(31)) << np.uint64(qtype.digit_bits)
        digits.append(d & mask(qtype.digits.bits))
    return stored.astype(np.uint64) & mask(qtypes[0].exponent.bits), digits


def decode_shared(qtype, digits, exponent):
    """The value of one member of a shared-exponent group from its digit bits and the group's exponent bits."""
    digit_bits = qtype.digit_bits
    digits = (digits & mask(qtype.digits.bits)).astype(np.int64)
    exponent = exponent.astype(np.int64)
    offset = np.full(np.shape(exponent), qtype.exponent_offset, dtype=np.int64)
    if qtype.exponent.bits < 8:
        offset = np.where(exponent != 0, offset, 0)
    sign = np.zeros_like(digits)
    if qtype.signed:
        sign = digits & (1 << digit_bits)
        digits = (digits ^ sign) << 1
        sign = sign << (31 - digit_bits)
    leading = 32 - _bit_length(digits)  # clz of a 32-bit value
    extra = (31 - digit_bits) - leading
    offset = offset + extra + (0 if qtype.signed else 1)
    shift = (23 - digit_bits) - extra
    digits = np.where(shift >= 0, digits << np.maximum(shift, 0), digits >> np.maximum(-shift, 0))
    bits = (((exponent + offset) & 255) << 23) | (digits & 0x7FFFFF)
    bits = np.where((exponent == 0) | (digits == 0), 0, bits) | sign
    return (bits & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


def _bit_length(values):
    """The bit length of each non-negative int64 (0 for 0)."""
    out = np.zeros(np.shape(values), dtype=np.int64)
    v = np.array(values, dtype=np.int64)
    for step in (32, 16, 8, 4, 2, 1):
        big = v >= (1 << step)
        out = np.where(big, out + step, out)
        v = np.where(big, v >> step, v)
    return out + (v > 0)
