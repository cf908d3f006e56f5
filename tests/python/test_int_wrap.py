# tests/python/test_int_wrap.py: integer + - * and negation wrap modulo 2^bits (docs/IR.md, issue 16).
#
# Upstream's LLVM code uses add/sub/mul without nsw, so an overflowing result wraps; ours must give
# the same values with no undefined behaviour in the generated C++ or CUDA. The values come from
# arrays and fields at run time (constants would be folded by const_eval, which wraps on its own).
# scripts/sanitizers.sh runs this file with UBSan-instrumented kernels, signed overflow included.
import numpy as np
import pytest

import quadrants as qd

SIGNED = [(qd.i8, np.int8), (qd.i16, np.int16), (qd.i32, np.int32), (qd.i64, np.int64)]
UNSIGNED = [(qd.u8, np.uint8), (qd.u16, np.uint16), (qd.u32, np.uint32), (qd.u64, np.uint64)]


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)  # the CUDA emulation under QD_TEST_ARCH=cuda (conftest.py)
    yield


def _edges(np_dtype):
    info = np.iinfo(np_dtype)
    return info.min, info.max


def _wrapped(values, np_dtype):
    """Exact Python integers reduced modulo 2^bits into np_dtype, as the kernels must give them."""
    bits = np.iinfo(np_dtype).bits
    out = []
    for v in values:
        v &= (1 << bits) - 1
        if np.iinfo(np_dtype).min < 0 and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=np_dtype)


# Each row: (a, b) and the exact a + b, a - b, a * b, -a, abs(a) before wrapping.
def _cases(np_dtype):
    low, high = _edges(np_dtype)
    pairs = [(high, 1), (low, 1), (high, 2), (low, -1) if low < 0 else (low, 3), (high, high), (low, low),
             (5, -7) if low < 0 else (5, 7), (0, high)]
    return [(int(a), int(b)) for a, b in pairs]


def _expected(cases, np_dtype):
    a = [x for x, _ in cases]
    b = [y for _, y in cases]
    return {
        "add": _wrapped([x + y for x, y in cases], np_dtype),
        "sub": _wrapped([x - y for x, y in cases], np_dtype),
        "mul": _wrapped([x * y for x, y in cases], np_dtype),
        "neg": _wrapped([-x for x in a], np_dtype),
        "abs": _wrapped([abs(x) if np.iinfo(np_dtype).min < 0 else x for x in a], np_dtype),
        "b": np.array(b, dtype=np_dtype),
    }


def _arithmetic_kernel(dtype):
    @qd.kernel
    def arithmetic(a: qd.types.ndarray(dtype=dtype, ndim=1), b: qd.types.ndarray(dtype=dtype, ndim=1),
                   out: qd.types.ndarray(dtype=dtype, ndim=2)):
        for i in range(a.shape[0]):
            out[0, i] = a[i] + b[i]
            out[1, i] = a[i] - b[i]
            out[2, i] = a[i] * b[i]
            out[3, i] = -a[i]
            out[4, i] = abs(a[i])

    return arithmetic


def _check(out, cases, np_dtype):
    want = _expected(cases, np_dtype)
    for row, name in enumerate(["add", "sub", "mul", "neg", "abs"]):
        np.testing.assert_array_equal(out[row], want[name], err_msg=f"{name} of {cases}")


@pytest.mark.parametrize("dtype, np_dtype", SIGNED + UNSIGNED)
def test_ndarray_arithmetic_wraps(dtype, np_dtype):
    cases = _cases(np_dtype)
    a = np.array([x for x, _ in cases], dtype=np_dtype)
    b = np.array([y for _, y in cases], dtype=np_dtype)
    out = np.zeros((5, len(cases)), dtype=np_dtype)
    _arithmetic_kernel(dtype)(a, b, out)
    _check(out, cases, np_dtype)


@pytest.mark.parametrize("dtype, np_dtype", SIGNED)
def test_field_arithmetic_wraps(dtype, np_dtype):
    cases = _cases(np_dtype)
    n = len(cases)
    a, b = qd.field(dtype, shape=n), qd.field(dtype, shape=n)
    out = qd.field(dtype, shape=(5, n))
    a.from_numpy(np.array([x for x, _ in cases], dtype=np_dtype))
    b.from_numpy(np.array([y for _, y in cases], dtype=np_dtype))

    @qd.kernel
    def arithmetic():
        for i in range(n):
            out[0, i] = a[i] + b[i]
            out[1, i] = a[i] - b[i]
            out[2, i] = a[i] * b[i]
            out[3, i] = -a[i]
            out[4, i] = abs(a[i])

    arithmetic()
    _check(out.to_numpy(), cases, np_dtype)


@pytest.mark.parametrize("dtype, np_dtype", [(qd.i32, np.int32), (qd.i64, np.int64)])
def test_scalar_params_and_returns_wrap(dtype, np_dtype):
    low, high = _edges(np_dtype)

    @qd.kernel
    def edges(x: dtype, y: dtype) -> qd.types.vector(4, dtype):
        return qd.Vector([x + 1, y - 1, x * 2, -y])

    got = edges(int(high), int(low)).to_numpy().tolist()
    assert got == [int(low), int(high), -2, int(low)]


@pytest.mark.parametrize("dtype, np_dtype", [(qd.i32, np.int32), (qd.i64, np.int64)])
def test_accumulation_and_atomics_wrap(dtype, np_dtype):
    low, high = _edges(np_dtype)
    x = np.array([high, 1, high, 3], dtype=np_dtype)
    exact_sum = sum(int(v) for v in x)

    @qd.kernel
    def accumulate(x: qd.types.ndarray(dtype=dtype, ndim=1), cells: qd.types.ndarray(dtype=dtype, ndim=1)) -> dtype:
        total = dtype(0)
        for i in range(x.shape[0]):
            total += x[i]  # a local updated from a parallel loop: privatized per chunk, then merged
            cells[0] += x[i]
            qd.atomic_mul(cells[1], x[i])
            qd.atomic_sub(cells[2], x[i])
        return total

    cells = np.array([0, 1, low], dtype=np_dtype)
    got = accumulate(x, cells)
    product = 1
    for v in x:
        product *= int(v)
    assert got == _wrapped([exact_sum], np_dtype)[0]
    np.testing.assert_array_equal(cells, _wrapped([exact_sum, product, int(low) - exact_sum], np_dtype))


def test_serial_hash_wraps_like_numpy():
    """A multiplicative hash in a serial loop: every step overflows i32, as numpy's int32 does."""
    @qd.kernel
    def hash_rows(x: qd.types.ndarray(dtype=qd.i32, ndim=2), out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            h = 17
            for k in range(x.shape[1]):
                h = h * 1000003 + x[i, k]
            out[i] = h

    rng = np.random.default_rng(5)
    x = rng.integers(-(2**31), 2**31, size=(4, 9), dtype=np.int64).astype(np.int32)
    out = np.zeros(4, dtype=np.int32)
    hash_rows(x, out)
    expected = np.full(4, 17, dtype=np.int32)
    with np.errstate(over="ignore"):
        for k in range(9):
            expected = expected * np.int32(1000003) + x[:, k]
    np.testing.assert_array_equal(out, expected)


def test_range_near_the_top_of_i32():
    """range(a, b) adds a back to a 0-based index: a + index must not overflow where it fits."""
    high = 2**31 - 1

    @qd.kernel
    def tail(a: qd.i32, b: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a, b):
            out[i - a] = i + 2  # wraps at the last index: MAX + 1 is MIN
        for j in range(a, b):
            out[j - a + 3] = j

    out = np.zeros(6, dtype=np.int32)
    tail(high - 2, high + 0, out)
    assert out.tolist() == [high, -(2**31), 0, high - 2, high - 1, 0]


def test_i16_and_u16_products_do_not_overflow_int():
    """C promotes u16 * u16 to int, where 65535 * 65535 would overflow; the result must wrap in u16."""
    @qd.kernel
    def square(x: qd.types.ndarray(dtype=qd.u16, ndim=1), y: qd.types.ndarray(dtype=qd.i16, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * x[i]
            y[i] = y[i] * y[i] * y[i]

    x = np.array([65535, 40000, 3], dtype=np.uint16)
    y = np.array([-32768, 32767, -3], dtype=np.int16)
    expected_x, expected_y = _wrapped([65535**2, 40000**2, 9], np.uint16), _wrapped([-(32768**3), 32767**3, -27], np.int16)
    square(x, y)
    np.testing.assert_array_equal(x, expected_x)
    np.testing.assert_array_equal(y, expected_y)


def test_range_bounds_far_apart():
    """range(a, b) with b below a is empty even where b - a wraps around to a positive i32, and an
    index next to MIN wraps like any other value."""
    low = -(2**31)

    @qd.kernel
    def count(a: qd.i32, b: qd.i32) -> qd.i32:
        n = 0
        for i in range(a, b):
            n += 1
        return n

    @qd.kernel
    def below(a: qd.i32, b: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a, b):
            out[i - a] = i - 1

    assert count(10, low + 5) == 0
    assert count(low, low + 3) == 3
    out = np.zeros(2, dtype=np.int32)
    below(low, low + 2, out)
    assert out.tolist() == [2**31 - 1, low]
