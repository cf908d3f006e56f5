# tests/python/test_bit_shifts.py: qd.bit_shr (logical shift right) beside >> (arithmetic), for every integer width.
"""qd.bit_shr shifts zeros in whatever the sign, in the operand's own width; an amount outside [0, bits) gives 0.
Checked against Python's int arithmetic on the bit pattern, in kernels, for constants and in Python scope."""
import numpy as np
import pytest

import quadrants as qd

_TYPES = [(qd.i8, np.int8), (qd.i16, np.int16), (qd.i32, np.int32), (qd.i64, np.int64),
          (qd.u8, np.uint8), (qd.u16, np.uint16), (qd.u32, np.uint32), (qd.u64, np.uint64)]


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _logical(value, amount, bits, np_type):
    pattern = int(value) & ((1 << bits) - 1)
    shifted = pattern >> amount if 0 <= amount < bits else 0
    return np.array([shifted], dtype=np.uint64).view(np.int64 if bits == 64 else np.uint64).astype(np_type)[0]


@pytest.mark.parametrize("qd_type, np_type", _TYPES)
def test_bit_shr_is_logical_on_every_width(qd_type, np_type):
    info = np.iinfo(np_type)
    bits = info.bits
    values = np.array([info.min, -1 if info.min < 0 else info.max, 1, info.max, 0x55 % (info.max + 1)], np_type)
    amounts = np.array([0, 1, 3, bits - 1, bits, -1], np.int32)
    x = qd.ndarray(qd_type, shape=len(values))
    n = qd.ndarray(qd.i32, shape=len(amounts))
    out = qd.ndarray(qd_type, shape=(len(values), len(amounts)))
    x.from_numpy(values)
    n.from_numpy(amounts)

    @qd.kernel
    def shift(x: qd.types.ndarray(), n: qd.types.ndarray(), out: qd.types.ndarray()):
        for i, j in out:
            out[i, j] = qd.bit_shr(x[i], n[j])

    shift(x, n, out)
    got = out.to_numpy()
    for i, v in enumerate(values):
        for j, a in enumerate(amounts):
            assert got[i, j] == _logical(v, int(a), bits, np_type), (v, a)


def test_bit_shr_differs_from_arithmetic_shift_on_negatives():
    @qd.kernel
    def shifts(a: qd.i32, b: qd.i32) -> qd.types.vector(2, qd.i32):
        return qd.Vector([qd.bit_shr(a, b), a >> b])

    logical, arithmetic = shifts(-256, 4)
    assert arithmetic == -16
    assert logical == (2**32 - 256) >> 4
    assert list(shifts(256, 4)) == [16, 16]


def test_bit_shr_unsigned_and_vectors_and_constants():
    @qd.kernel
    def unsigned(x: qd.u32, y: qd.i32) -> qd.u32:
        return qd.bit_shr(x, y)

    @qd.kernel
    def vector() -> qd.types.vector(2, qd.i32):
        return qd.bit_shr(qd.Vector([7, -8]), qd.Vector([1, 28]))

    @qd.kernel
    def constant() -> qd.i32:
        return qd.bit_shr(-1, 28)  # default_ip (i32) constants fold in their own width

    @qd.kernel
    def wide_constants() -> qd.types.vector(3, qd.i64):
        minus_one = qd.cast(-1, qd.i64)  # folded at compile time: amounts outside [0, 64) give 0 there too
        return qd.Vector([qd.bit_shr(minus_one, 64), qd.bit_shr(minus_one, -1), qd.bit_shr(minus_one, 60)], dt=qd.i64)

    assert unsigned(5, 2) == 1
    assert unsigned(0xFFFFFFFF, 31) == 1
    assert list(vector()) == [3, 15]
    assert constant() == 15
    assert list(wide_constants()) == [0, 0, 15]


def test_bit_shr_in_python_scope_and_type_errors():
    assert qd.bit_shr(np.int8(-128), 7) == 1
    assert qd.bit_shr(np.int32(-1), 0) == -1
    assert qd.bit_shr(np.int32(-1), 20) == 0xFFF  # each width's own bit count: 32 here, not 8 + something
    assert qd.bit_shr(np.int64(-1), 40) == 0xFFFFFF and qd.bit_shr(np.int32(-1), 32) == 0
    assert qd.lang.ops.bit_shr is qd.bit_shr

    @qd.kernel
    def on_float(x: qd.f32) -> qd.f32:
        return qd.bit_shr(x, 1)

    with pytest.raises(qd.QuadrantsTypeError):
        on_float(1.0)


def test_shifts_compute_in_the_left_operand_type():
    @qd.kernel
    def shifts(x: qd.u8, n: qd.i32) -> qd.types.vector(3, qd.i32):
        return qd.Vector([x << n, x >> n, qd.bit_shr(x, n)])  # u8 results, as upstream (no promotion to i32)

    assert list(shifts(255, 1)) == [254, 127, 127]
    assert list(shifts(128, 8)) == [0, 0, 0]
