# python/quadrants/types/quant.py: qd.types.quant: quantized types (custom-width ints, fixed point, small floats).
#
# A quantized type says how a value is held in a few bits of a machine word and which dtype it is computed in.
# Fields of these types have no array of their own: qd.BitpackedFields or SNode.quant_array packs them into
# unsigned words (data/bitpacked.py), and every access unpacks or packs bits (frontend/quant_access.py in
# kernels, data/quant_codec.py in Python scope). The types themselves are plain descriptions, compared by value.
import builtins
import numbers

from quadrants.base import dtypes as _dtypes
from quadrants.runtime import init as _runtime

_MAX_BITS = 64


class QuantType:
    """Base of the quantized types: `compute` is the dtype reads give and writes take."""

    _qd_quant = True  # what fields and SNodes test for

    def _key(self):
        raise NotImplementedError

    def __eq__(self, other):
        return type(other) is type(self) and other._key() == self._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    @property
    def name(self):
        return repr(self)


class QuantInt(QuantType):
    """An integer of `bits` bits, two's complement when signed."""

    def __init__(self, bits, signed, compute):
        self.bits, self.signed, self.compute = bits, signed, compute

    @property
    def num_bits(self):
        return self.bits

    def _key(self):
        return (self.bits, self.signed, self.compute.name)

    def __repr__(self):
        return f"q{'i' if self.signed else 'u'}{self.bits}"


class QuantFixed(QuantType):
    """A real number stored as the integer `digits` (a QuantInt) times `scale`."""

    def __init__(self, digits, compute, scale):
        self.digits, self.compute, self.scale = digits, compute, scale

    @property
    def bits(self):
        return self.digits.bits

    @property
    def signed(self):
        return self.digits.signed

    def _key(self):
        return (self.digits._key(), self.compute.name, self.scale)

    def __repr__(self):
        return f"qfx(d={self.digits!r} c={self.compute.name} s={self.scale})"


class QuantFloat(QuantType):
    """A float of an unsigned `exponent` (a QuantInt of at most 8 bits) and `digits` (a QuantInt: the fraction
    bits, plus the sign bit when signed), computed in f32; `shared` exponents are decided by BitpackedFields."""

    def __init__(self, digits, exponent, compute):
        self.digits, self.exponent, self.compute = digits, exponent, compute

    @property
    def signed(self):
        return self.digits.signed

    @property
    def digit_bits(self):
        """Fraction bits (the sign bit not counted)."""
        return self.digits.bits - builtins.int(self.signed)

    @property
    def exponent_offset(self):
        """What is added to a stored nonzero exponent to make f32's biased exponent."""
        return 127 - (1 << (self.exponent.bits - 1)) + 1

    @property
    def bits(self):
        return self.digits.bits + self.exponent.bits

    def _key(self):
        return (self.digits._key(), self.exponent._key(), self.compute.name)

    def __repr__(self):
        return f"qfl(d={self.digits!r} e={self.exponent!r} c={self.compute.name})"


def _check_bits(value, what, low, high):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"qd.types.quant: {what} must be an int in [{low}, {high}], but got {value!r}.")
    return builtins.int(value)


def _compute(compute, default, kinds, what):
    dtype = _runtime.cook_dtype(default() if compute is None else compute)
    if dtype.numpy.kind not in kinds or dtype.name == "u1":
        wanted = "an integer dtype" if kinds == "iu" else "a float dtype"
        raise TypeError(f"qd.types.quant.{what}(): compute must be {wanted}, but got {dtype.name}.")
    return dtype


def _default_unsigned():
    """default_up: the unsigned type of default_ip's width."""
    return _dtypes.u64 if _runtime.config().default_ip is _dtypes.i64 else _dtypes.u32


def int(bits, signed=True, compute=None):  # noqa: A001 - upstream's name
    """A quantized integer of `bits` bits (1 to 64), signed or not, computed in `compute` (default: default_ip for
    signed, the unsigned type of its width otherwise)."""
    bits = _check_bits(bits, "bits", 1, _MAX_BITS)
    default = (lambda: _runtime.config().default_ip) if signed else _default_unsigned
    return QuantInt(bits, bool(signed), _compute(compute, default, "iu", "int"))


def fixed(bits, signed=True, max_value=1.0, compute=None, scale=None):
    """A fixed-point real of `bits` bits (1 to 32): the stored integer times `scale`, which defaults to what makes
    the largest integer `max_value` (max_value / 2**(bits-1) signed, max_value / 2**bits unsigned); computed in
    `compute` (default: default_fp)."""
    bits = _check_bits(bits, "bits", 1, 32)
    digits = QuantInt(bits, bool(signed), _dtypes.i32)
    if scale is None:
        if not isinstance(max_value, numbers.Real) or isinstance(max_value, bool):
            raise TypeError(f"qd.types.quant.fixed(): max_value must be a number, but got {max_value!r}.")
        scale = max_value / 2 ** (bits - 1) if signed else max_value / 2**bits
    if not isinstance(scale, numbers.Real) or isinstance(scale, bool) or not scale > 0:
        raise ValueError(f"qd.types.quant.fixed(): scale must be a positive number, but got {scale!r}.")
    return QuantFixed(digits, _compute(compute, lambda: _runtime.config().default_fp, "f", "fixed"),
                      builtins.float(scale))


def float(exp, frac, signed=True, compute=None):  # noqa: A001 - upstream's name
    """A quantized float of `exp` exponent bits (1 to 8) and `frac` digit bits (the sign bit included when signed;
    at most 23 fraction bits), computed in `compute`, which must be f32 (the default where default_fp is f32)."""
    exp = _check_bits(exp, "exp", 1, 8)
    frac = _check_bits(frac, "frac", 1, 24)
    if frac - builtins.int(bool(signed)) > 23:
        raise ValueError(f"qd.types.quant.float(): at most 23 fraction bits fit f32, but frac={frac} "
                         f"{'signed' if signed else 'unsigned'} has {frac - builtins.int(bool(signed))}.")
    dtype = _compute(compute, lambda: _runtime.config().default_fp, "f", "float")
    if dtype is not _dtypes.f32:
        raise TypeError(f"qd.types.quant.float(): compute must be f32 (the only type quantized floats are rebuilt "
                        f"in), but got {dtype.name}.")
    return QuantFloat(QuantInt(frac, bool(signed), _dtypes.i32), QuantInt(exp, False, _dtypes.i32), dtype)


def is_quant(dtype):
    """Whether `dtype` is a quantized type (qd.types.quant)."""
    return getattr(dtype, "_qd_quant", False) is True


__all__ = ["int", "fixed", "float"]
