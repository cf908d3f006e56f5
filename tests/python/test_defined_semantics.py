# tests/python/test_defined_semantics.py: inputs C leaves undefined have defined results (docs/IR.md, issue 16).
#
# Each case runs twice: on runtime values (the generated code) and on constants (folded by the
# compiler's const_eval), which must agree with each other and with the reference.
import re

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

SHIFT_CASES = [(1, -3), (-8, 40), (5, 31), (-1, 32), (7, 2), (-7, 1), (3, 0), (1, 2**31 - 1), (-5, -1)]


def _shl(a, n, bits=32):
    if not 0 <= n < bits:
        return 0
    return int(np.array([(a << n) & (2**bits - 1)], np.uint32).view(np.int32)[0])


def _shr(a, n, bits=32):
    if not 0 <= n < bits:
        return -1 if a < 0 else 0
    return a >> n


def test_shifts_by_any_amount():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def shifts(a: qd.types.ndarray(dtype=qd.i32, ndim=1), n: qd.types.ndarray(dtype=qd.i32, ndim=1),
               left: qd.types.ndarray(dtype=qd.i32, ndim=1), right: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            left[i] = a[i] << n[i]
            right[i] = a[i] >> n[i]

    a = np.array([c[0] for c in SHIFT_CASES], np.int32)
    n = np.array([c[1] for c in SHIFT_CASES], np.int32)
    left, right = np.zeros_like(a), np.zeros_like(a)
    shifts(a, n, left, right)
    assert left.tolist() == [_shl(x, k) for x, k in SHIFT_CASES]
    assert right.tolist() == [_shr(x, k) for x, k in SHIFT_CASES]


def _folded(expr, returns):
    """The constant the compiler's passes fold `expr` (IR text) to."""
    text = _core.run_passes(f"(kernel k (options) (params) (returns {returns}) (body (return {expr})))")
    match = re.search(rf"\(return \(const {returns} (-?\d+)\)\)", text)
    assert match, text
    return int(match.group(1))


@pytest.mark.parametrize("a, n", SHIFT_CASES)
def test_constant_shifts_fold_to_the_same_values(a, n):
    assert _folded(f"(bin shl (const i32 {a}) (const i32 {n}))", "i32") == _shl(a, n)
    assert _folded(f"(bin shr (const i32 {a}) (const i32 {n}))", "i32") == _shr(a, n)


def test_unsigned_and_narrow_shifts():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def shifts(a: qd.types.ndarray(dtype=qd.u8, ndim=1), n: qd.types.ndarray(dtype=qd.u8, ndim=1),
               out: qd.types.ndarray(dtype=qd.u8, ndim=2)):
        for i in range(a.shape[0]):
            out[i, 0] = a[i] << n[i]
            out[i, 1] = a[i] >> n[i]

    a = np.array([200, 255, 1, 128], np.uint8)
    n = np.array([1, 8, 7, 200], np.uint8)
    out = np.zeros((4, 2), np.uint8)
    shifts(a, n, out)
    assert out[:, 0].tolist() == [144, 0, 128, 0]
    assert out[:, 1].tolist() == [100, 0, 0, 0]


# With each type's edges: the ends of its range and the powers of two just past them.
FLOATS = [np.nan, -5.5, 300.0, 3e9, -3e9, 12.9, np.inf, -np.inf, -0.7, 2.0**63, 1e30, -1.0, -128.5, 255.5,
          -(2.0**31), 2.0**31, 2.0**32, -(2.0**63), 2.0**64, -1e30]


def _saturate(x, dtype):
    info = np.iinfo(dtype)
    if np.isnan(x):
        return 0
    v = np.trunc(x)
    return int(info.min) if v <= info.min else int(info.max) if v >= info.max else int(v)


@pytest.mark.parametrize("target, np_target", [(qd.u8, np.uint8), (qd.i8, np.int8), (qd.i32, np.int32),
                                                (qd.u32, np.uint32), (qd.i64, np.int64), (qd.u64, np.uint64)])
@pytest.mark.parametrize("source, np_source", [(qd.f32, np.float32), (qd.f64, np.float64)])
def test_float_to_int_truncates_and_saturates(target, np_target, source, np_source):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def convert(x: qd.types.ndarray(dtype=source, ndim=1), y: qd.types.ndarray(dtype=target, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = qd.cast(x[i], target)

    x = np.array(FLOATS, np_source)
    y = np.zeros(len(FLOATS), np_target)
    convert(x, y)
    assert [int(v) for v in y] == [_saturate(float(v), np_target) for v in x]


@pytest.mark.parametrize("value", ["-5.5", "300.0", "3e9", "-3e9", "12.9", "inf", "nan"])
@pytest.mark.parametrize("target, np_target", [("u8", np.uint8), ("i32", np.int32), ("u64", np.uint64)])
def test_constant_float_to_int_folds_to_the_same_value(value, target, np_target):
    assert _folded(f"(cast {target} (const f64 {value}))", target) == _saturate(float(value), np_target)


def test_impossible_shapes_and_unreachable_devices_are_clear_errors():
    qd.init(arch=qd.cpu)
    with pytest.raises(ValueError, match=r"qd.ndarray\(\): shape \(9223372036854775808,\) is too large to address"):
        qd.ndarray(qd.f32, shape=2**63)
    with pytest.raises(ValueError, match="too large to address"):
        qd.field(qd.f32, shape=(2**40, 2**40))
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this torch reaches a GPU")
    with pytest.raises(ValueError, match=r"to_torch\(device='cuda'\): this torch .* cannot reach a CUDA device"):
        qd.ndarray(qd.f32, shape=4).to_torch(device="cuda")


@qd.kernel
def multiply_add(a: qd.types.ndarray(), b: qd.types.ndarray(), c: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in out:
        out[i] = a[i] * b[i] + c[i]


def test_multiply_add_rounds_twice_as_written_without_fast_math():
    # Without fast_math, a * b + c rounds the product, then the sum (numpy's float32 result): the C++ compiler
    # must not fuse them into one FMA (-ffp-contract=off; --fmad=false under NVRTC).
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(0.5, 2.0, 4096).astype(np.float32) for _ in range(2))
    c = -(a.astype(np.float64) * b).astype(np.float32)  # cancels the product: only its rounding error is left
    out = np.empty_like(a)
    multiply_add(a, b, c, out)
    expected = a * b + c
    fused = (a.astype(np.float64) * b + c).astype(np.float32)
    assert np.count_nonzero(expected != fused) > 100  # the data tells the two apart
    np.testing.assert_array_equal(out, expected)
