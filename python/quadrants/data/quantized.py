# python/quadrants/data/quantized.py: upstream's names for quantized storage (qd.BitpackedFields, SNode.quant_array),
# which raise: quadrants has no quantized types (qd.types.quant) to store in them.
#
# Upstream packs fields of quantized types (custom-width ints, fixed-point and shared-exponent floats) into one
# machine word per cell: BitpackedFields groups them, quant_array lays an array of them out in bits. Neither has
# anything to hold without qd.types.quant, so both raise when used, naming what to use instead.

_WHY = ("quadrants has no quantized types (upstream's qd.types.quant), so it has no bit-packed storage for them; "
        "store full-width dtypes (qd.i8, qd.u16, qd.f16, ...) in dense, pointer, bitmasked or dynamic SNodes instead.")


def quantized_unsupported(what):
    """The error for a use of upstream's quantized storage."""
    return NotImplementedError(f"{what}: {_WHY}")


class BitpackedFields:
    """Upstream's group of quantized fields packed into one word per cell; raises NotImplementedError when made:
    quadrants has no quantized types (qd.types.quant) to pack."""

    def __init__(self, max_num_bits=None):
        raise quantized_unsupported("qd.BitpackedFields()")
