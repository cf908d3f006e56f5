# tests/python/test_dtype_values.py: every dtype in and out of kernels with values only that dtype holds.
#
# An identity copy cannot see a dtype mix-up (uint16 read as int16 copies the same bits), so each
# value set holds what the wrong type would change: above the signed maximum for unsigned types,
# negative for signed ones, non-integral and beyond-f16 values for floats; and each kernel does
# arithmetic on the values (compares, adds, divides) whose result depends on the type.
import numpy as np
import pytest

import quadrants as qd

VALUES = {
    "u8": [0, 1, 127, 128, 200, 255],
    "u16": [1, 40000, 32768, 65535, 7, 0],
    "u32": [1, 3_000_000_000, 2**31, 2**32 - 1, 5, 0],
    "u64": [1, 2**63 + 5, 2**64 - 1, 2**40, 3, 0],
    "i8": [-128, -1, 0, 1, 100, 127],
    "i16": [-32768, -2, 3, 32767, -300, 0],
    "i32": [-2**31, -7, 9, 2**31 - 1, -1, 0],
    "i64": [-2**63, -3, 2**40, 2**63 - 1, -1, 0],
    "f16": [0.5, -1.75, 1000.0, -65504.0, 0.0009765625, 3.0],
    "f32": [0.1, -2.5e-3, 3.0e38, -1.0e-38, 70000.5, 1.0],
    "f64": [0.1, -1e300, 1e-300, 3.0e38 * 1e10, 2.0**60 + 1.0, -7.25],
}
DTYPES = list(VALUES)


def _np(name):
    kind = {"u": "uint", "i": "int", "f": "float"}[name[0]]
    return np.dtype(kind + name[1:])


def _probe(name):
    """A kernel comparing each value with a threshold and halving it, both in the dtype under test."""
    dtype = getattr(qd, name)

    @qd.kernel
    def probe(a: qd.types.ndarray(dtype=dtype, ndim=1), above: qd.types.ndarray(dtype=qd.i32, ndim=1),
              half: qd.types.ndarray(dtype=dtype, ndim=1), threshold: dtype):
        for i in range(a.shape[0]):
            above[i] = 1 if a[i] > threshold else 0
            half[i] = a[i] // 2 if qd.static(name[0] in "ui") else a[i] * 0.5

    return probe


def _expected(name, values):
    arr = np.array(values, dtype=_np(name))
    threshold = arr.dtype.type(values[1])
    above = (arr > threshold).astype(np.int32)
    half = arr // 2 if name[0] in "ui" else (arr * arr.dtype.type(0.5)).astype(arr.dtype)
    return arr, threshold, above, half


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_values_keep_their_type_in_kernels(name):
    qd.init(arch=qd.cpu)
    arr, threshold, above, half = _expected(name, VALUES[name])
    got_above, got_half = np.zeros(len(arr), np.int32), np.zeros_like(arr)
    _probe(name)(arr, got_above, got_half, threshold.item())
    np.testing.assert_array_equal(got_above, above)
    np.testing.assert_array_equal(got_half, half)


@pytest.mark.parametrize("name", DTYPES)
def test_torch_values_keep_their_type_in_kernels(name):
    torch = pytest.importorskip("torch")
    if name in ("u16", "u32", "u64") and not hasattr(torch, "uint16"):
        pytest.skip("this torch has no wide unsigned dtypes")
    qd.init(arch=qd.cpu)
    arr, threshold, above, half = _expected(name, VALUES[name])
    tensor = torch.from_numpy(arr.copy())
    got_above, got_half = torch.zeros(len(arr), dtype=torch.int32), torch.zeros_like(tensor)
    _probe(name)(tensor, got_above, got_half, threshold.item())
    np.testing.assert_array_equal(got_above.numpy(), above)
    np.testing.assert_array_equal(got_half.numpy(), half)


@pytest.mark.parametrize("name", DTYPES)
def test_containers_round_trip_values_only_their_type_holds(name):
    qd.init(arch=qd.cpu)
    arr = np.array(VALUES[name], dtype=_np(name))
    for container in (qd.ndarray(getattr(qd, name), shape=len(arr)), qd.field(getattr(qd, name), shape=len(arr))):
        container.from_numpy(arr)
        out = container.to_numpy()
        assert out.dtype == arr.dtype
        np.testing.assert_array_equal(out, arr)
        assert [container[i] for i in range(len(arr))] == arr.tolist()
        if container.__dlpack_device__()[0] == 1:  # host memory: numpy can take it without a copy
            via_dlpack = np.from_dlpack(container)
            assert via_dlpack.dtype == arr.dtype
            np.testing.assert_array_equal(via_dlpack, arr)


@pytest.mark.parametrize("name", ["u16", "u32", "u64", "u8"])
def test_unsigned_scalar_parameters_take_values_above_the_signed_maximum(name):
    qd.init(arch=qd.cpu)
    dtype, big = getattr(qd, name), max(VALUES[name])

    @qd.kernel
    def is_big(x: dtype) -> qd.i32:
        return 1 if x > 1 else 0

    assert is_big(big) == 1


F16_CASES = [
    1 + 3 * 2.0**-11,  # a tie between two f16 values: rounds to even
    1 + 2.0**-11,  # a tie: rounds down to even
    2.0**-24,  # the smallest subnormal
    3 * 2.0**-26,  # between subnormals
    65519.0,  # rounds down to the largest f16
    65520.0,  # rounds up to inf
    -70000.0,
    float("nan"),
]


def test_f32_to_f16_in_kernels_rounds_like_numpy():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def narrow(a: qd.types.ndarray(dtype=qd.f32, ndim=1), b: qd.types.ndarray(dtype=qd.f16, ndim=1)):
        for i in range(a.shape[0]):
            b[i] = qd.cast(a[i], qd.f16)

    a = np.array(F16_CASES, np.float32)
    b = np.zeros(len(a), np.float16)
    narrow(a, b)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(b, a.astype(np.float16))  # NaN == NaN here
    assert b[0] == np.float16(1.001953125)


def test_f16_copies_round_like_numpy():
    qd.init(arch=qd.cpu)
    a = np.array(F16_CASES, np.float64)
    x = qd.ndarray(qd.f16, shape=len(a))
    x.from_numpy(a)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(x.to_numpy(), a.astype(np.float16))


# Values whose f64 -> f16 conversion must round once, as numpy does: through float first, the first two
# become ties (then 1.0 and 1 + 2^-10, the wrong way), the third becomes 65520 (then inf, not 65504).
F64_F16_CASES = [
    1 + 2.0**-11 + 2.0**-30,
    1 + 3 * 2.0**-11 - 2.0**-30,
    65519.99999,
    -65519.99999,
    2.0**-25 + 2.0**-50,  # just above half the smallest subnormal: rounds up to it
    2.0**-25,  # exactly half the smallest subnormal: a tie, rounds to zero
    -0.0,
    1e300,
    float("-inf"),
    float("nan"),
]

# Every kind of f16: zeros, the smallest and largest subnormals, the smallest normal, the largest finite,
# infinities, NaN, and ordinary values of both signs.
F16_SPECIALS = [0.0, -0.0, 2.0**-24, -(2.0**-24), 1023 * 2.0**-24, 2.0**-14, 65504.0, -65504.0,
                float("inf"), float("-inf"), float("nan"), 1.5, -3.140625]


def _assert_same_halves(got, want):
    """Bit-equal f16 arrays (so -0.0 is not 0.0), except that any NaN matches any NaN."""
    got, want = np.asarray(got, np.float16), np.asarray(want, np.float16)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(got[finite].view(np.uint16), want[finite].view(np.uint16))


def _as_f16(values):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, np.float64).astype(np.float16)


@pytest.mark.filterwarnings("ignore::quadrants.kernels.pitfalls.PrecisionWarning")  # f64 with f16 on purpose
def test_f64_to_f16_in_kernels_rounds_once_like_numpy():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def narrow(a: qd.types.ndarray(dtype=qd.f64, ndim=1), b: qd.types.ndarray(dtype=qd.f16, ndim=1)):
        for i in range(a.shape[0]):
            b[i] = qd.cast(a[i], qd.f16)

    b = np.zeros(len(F64_F16_CASES), np.float16)
    narrow(np.array(F64_F16_CASES), b)
    _assert_same_halves(b, _as_f16(F64_F16_CASES))
    assert b[0] == np.float16(1.0009765625) and b[2] == np.float16(65504.0)


@pytest.mark.parametrize("source", ["f64", "f32"])
@pytest.mark.parametrize("kind", ["ndarray", "field"])
def test_converting_copies_into_f16_round_once_like_numpy(kind, source):
    qd.init(arch=qd.cpu)
    cases = F64_F16_CASES if source == "f64" else F16_CASES
    a = np.array(cases, np.float64 if source == "f64" else np.float32)
    x = (qd.ndarray if kind == "ndarray" else qd.field)(qd.f16, shape=len(a))
    x.from_numpy(a)
    _assert_same_halves(x.to_numpy(), _as_f16(a))


def test_f16_scalar_parameters_round_python_floats_once_like_numpy():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def identity(x: qd.f16) -> qd.f16:
        return x

    got = [identity(value) for value in F64_F16_CASES]
    _assert_same_halves(got, _as_f16(F64_F16_CASES))


@pytest.mark.filterwarnings("ignore::quadrants.kernels.pitfalls.PrecisionWarning")  # f64 with f16 on purpose
@pytest.mark.parametrize("wide", ["f32", "f64"])
def test_f16_widens_exactly_in_kernels_and_copies(wide):
    qd.init(arch=qd.cpu)
    wide_dtype, np_wide = getattr(qd, wide), np.dtype("float" + wide[1:])

    @qd.kernel
    def widen(a: qd.types.ndarray(dtype=qd.f16, ndim=1), b: qd.types.ndarray(dtype=wide_dtype, ndim=1)):
        for i in range(a.shape[0]):
            b[i] = qd.cast(a[i], wide_dtype)

    a = np.array(F16_SPECIALS, np.float16)
    want = a.astype(np_wide)
    b = np.zeros(len(a), np_wide)
    widen(a, b)
    np.testing.assert_array_equal(np.signbit(b), np.signbit(want))
    np.testing.assert_array_equal(b, want)  # NaN == NaN here; every other value exactly
    y = qd.ndarray(wide_dtype, shape=len(a))
    y.from_numpy(a)  # converting copy f16 -> wider
    np.testing.assert_array_equal(y.to_numpy(), want)


def test_f16_arithmetic_in_kernels_rounds_each_result_like_numpy():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def arith(a: qd.types.ndarray(dtype=qd.f16, ndim=1), b: qd.types.ndarray(dtype=qd.f16, ndim=1),
              total: qd.types.ndarray(dtype=qd.f16, ndim=1), product: qd.types.ndarray(dtype=qd.f16, ndim=1)):
        for i in range(a.shape[0]):
            total[i] = a[i] + b[i]
            product[i] = a[i] * b[i]

    # Sums that land on ties (1 + 3*2^-11, 2048 + 1), overflow (65504 + 16, 300 * 300), subnormal products.
    a = np.array([1.0, 1.0, 2048.0, 65504.0, 300.0, 2.0**-12, -1.0, float("nan")], np.float16)
    b = np.array([3 * 2.0**-11, 2.0**-11, 1.0, 16.0, 300.0, 2.0**-12, 2.0**-11, 1.0], np.float16)
    total, product = np.zeros_like(a), np.zeros_like(a)
    arith(a, b, total, product)
    with np.errstate(over="ignore", under="ignore"):
        _assert_same_halves(total, a + b)
        _assert_same_halves(product, a * b)
    assert total[0] == np.float16(1.001953125) and total[2] == 2048.0 and np.isinf(total[3])
