# python/quadrants/library/math_bits.py: qd.math.fns (find the n-th set bit of a 32-bit mask), a @qd.func, and
# qd.zero / qd.one (a value of the argument's shape and type filled with 0 or 1).
from quadrants.base.dtypes import i32 as _i32, u32 as _u32
from quadrants.frontend.funcs import func

_NOT_FOUND = 0xFFFFFFFF


@func
def fns(mask: _u32, base: _u32, offset: _i32) -> _u32:
    """The bit position of the |offset|-th set bit of `mask`, counting from bit `base` (inclusive) upward for
    offset > 0 and downward for offset < 0; for offset 0, `base` if that bit is set. 0xFFFFFFFF when there
    is no such bit (CUDA's __nv_fns). A loop over the 32 positions, on every backend."""
    found = _u32(_NOT_FOUND)
    if offset == 0:
        if base < _u32(32):
            if (mask >> base) & _u32(1) != _u32(0):
                found = base
    else:
        remaining = offset if offset > 0 else -offset
        for k in range(32):
            bit = _u32(k) if offset > 0 else _u32(31 - k)
            in_range = bit >= base if offset > 0 else bit <= base
            if in_range and remaining > 0:
                if (mask >> bit) & _u32(1) != _u32(0):
                    remaining -= 1
                    if remaining == 0:
                        found = bit
    return found


@func
def zero(x):
    """A value of x's shape and type, all zeros (x * 0, as upstream: a NaN entry stays NaN)."""
    return x * 0


@func
def one(x):
    """A value of x's shape and type, all ones."""
    return x * 0 + 1
