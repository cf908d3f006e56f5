# qd.math.popcnt / clz / ffs: bit counts over an integer's own bit pattern (narrow types zero-extended), as i32,
# checked against Python's int arithmetic for every integer width, signed and unsigned, and for constants.
import numpy as np
import pytest

import quadrants as qd

_TYPES = [(qd.i8, np.int8), (qd.i16, np.int16), (qd.i32, np.int32), (qd.i64, np.int64),
          (qd.u8, np.uint8), (qd.u16, np.uint16), (qd.u32, np.uint32), (qd.u64, np.uint64)]


def _expected(values, bits):
    patterns = [int(v) & ((1 << bits) - 1) for v in values]
    return np.array([[bin(p).count("1"), bits - p.bit_length(), (p & -p).bit_length()] for p in patterns])


@pytest.mark.parametrize("qd_type, np_type", _TYPES)
def test_counts_match_the_bit_pattern(qd_type, np_type):
    info = np.iinfo(np_type)
    rng = np.random.default_rng(7)
    special = [0, 1, 2, 3, info.max, info.min, info.max // 2 + 1, -1 if info.min < 0 else info.max - 1]
    values = np.concatenate([np.array(special, np_type),
                             rng.integers(info.min, info.max, 40, dtype=np_type, endpoint=True)])
    out = qd.ndarray(qd.i32, shape=(len(values), 3))

    @qd.kernel
    def counts(x: qd.types.ndarray(dtype=qd_type, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(x.shape[0]):
            out[i, 0] = qd.math.popcnt(x[i])
            out[i, 1] = qd.math.clz(x[i])
            out[i, 2] = qd.math.ffs(x[i])

    counts(values, out)
    np.testing.assert_array_equal(out.to_numpy(), _expected(values, np.dtype(np_type).itemsize * 8))


def test_result_is_i32_and_composes_with_i64():
    @qd.kernel
    def plus(x: qd.i64) -> qd.i64:
        return qd.math.popcnt(x) + qd.math.clz(x) + qd.math.ffs(x) + qd.i64(1 << 40)

    x = (1 << 40) | 0b1011000
    assert plus(x) == 4 + (64 - 41) + 4 + (1 << 40)


def test_constants_fold_as_i32_literals():
    @qd.kernel
    def consts() -> qd.types.vector(4, qd.i32):
        return qd.Vector([qd.math.popcnt(1000), qd.math.clz(1), qd.math.ffs(-2 ** 31), qd.math.clz(0)])

    np.testing.assert_array_equal(consts().to_numpy(), [6, 31, 32, 32])


def test_float_operand_is_a_type_error():
    @qd.kernel
    def bad(x: qd.f32) -> qd.i32:
        return qd.math.popcnt(x)

    with pytest.raises(qd.QuadrantsTypeError, match="'popcnt' takes integral inputs only, but was given f32"):
        bad(1.0)
    with pytest.raises(RuntimeError, match="only be called inside"):
        qd.math.clz(3)
