# tests/python/test_overflow_checks.py: debug mode reports integer overflow (upstream's messages).
#
# Under qd.init(debug=True) an integer +, -, * or << whose result leaves its type prints
# "<Op> overflow detected in File ..., line N, in FUNC:" and the statement's source line, from the
# kernel, and the kernel goes on with the wrapped value (docs/IR.md: the same value as release mode).
# Release mode prints nothing. Operands come from arguments, so nothing is folded at compile time.
# qd.init(arch=qd.cpu) runs on CUDA under QD_TEST_ARCH=cuda (conftest.py), the driver emulation included.
import numpy as np
import pytest

import quadrants as qd

TYPES = [qd.i8, qd.i16, qd.i32, qd.i64, qd.u8, qd.u16, qd.u32, qd.u64]
NUMPY = {qd.i8: np.int8, qd.i16: np.int16, qd.i32: np.int32, qd.i64: np.int64,
         qd.u8: np.uint8, qd.u16: np.uint16, qd.u32: np.uint32, qd.u64: np.uint64}
MESSAGES = {"add": "Addition", "sub": "Subtraction", "mul": "Multiplication", "shl": "Shift left"}


def _limits(dtype):
    info = np.iinfo(NUMPY[dtype])
    return int(info.min), int(info.max), info.bits


def _wrap(value, dtype):
    low, _, bits = _limits(dtype)
    value &= (1 << bits) - 1
    return value - (1 << bits) if low < 0 and value >> (bits - 1) else value


def _exact(op, a, b):
    return {"add": a + b, "sub": a - b, "mul": a * b, "shl": a << b}[op]


def _operands(op, dtype, overflowing):
    """Operands whose exact result leaves the type (overflowing) or lands on its edge (not)."""
    low, high, bits = _limits(dtype)
    if op == "add":
        return (high, 1) if overflowing else (high - 1, 1)
    if op == "sub":
        return (low, 1) if overflowing else (low + 1, 1)
    if op == "mul":  # half * half is 2^bits; half * half / 2 is 2^(bits - 1), just past a signed type
        half = 1 << (bits // 2)
        b = half // 2 if low < 0 else half
        return (half, b) if overflowing else (half, b - 1)
    return (3, bits - 2 if low < 0 else bits - 1) if overflowing else (1, bits - 2 if low < 0 else bits - 1)


def _kernels(dtype):
    @qd.kernel
    def add(a: dtype, b: dtype) -> dtype:
        return a + b

    @qd.kernel
    def sub(a: dtype, b: dtype) -> dtype:
        return a - b

    @qd.kernel
    def mul(a: dtype, b: dtype) -> dtype:
        return a * b

    @qd.kernel
    def shl(a: dtype, b: dtype) -> dtype:
        return a << b

    return {"add": add, "sub": sub, "mul": mul, "shl": shl}


def _output(capfd):
    qd.sync()  # CUDA's device printf shows at synchronization
    return capfd.readouterr().out


@pytest.mark.parametrize("op", ["add", "sub", "mul", "shl"])
@pytest.mark.parametrize("dtype", TYPES, ids=str)
def test_overflow_is_reported_with_the_source_line_and_wraps(capfd, op, dtype):
    qd.init(arch=qd.cpu, debug=True)
    a, b = _operands(op, dtype, overflowing=True)
    exact = _exact(op, a, b)
    low, high, _ = _limits(dtype)
    assert not low <= exact <= high
    result = _kernels(dtype)[op](a, b)
    assert result == _wrap(exact, dtype)
    out = _output(capfd)
    symbol = {"add": "+", "sub": "-", "mul": "*", "shl": "<<"}[op]
    assert f"{MESSAGES[op]} overflow detected in File \"{__file__}\"" in out
    assert f", in {op}:\n        return a {symbol} b\n" in out
    assert out.count("overflow detected") == 1


@pytest.mark.parametrize("op", ["add", "sub", "mul", "shl"])
@pytest.mark.parametrize("dtype", TYPES, ids=str)
def test_results_at_the_edge_of_the_type_are_not_reported(capfd, op, dtype):
    qd.init(arch=qd.cpu, debug=True)
    a, b = _operands(op, dtype, overflowing=False)
    exact = _exact(op, a, b)
    low, high, _ = _limits(dtype)
    assert low <= exact <= high
    assert _kernels(dtype)[op](a, b) == exact
    assert "overflow detected" not in _output(capfd)


@pytest.mark.parametrize("dtype", [qd.i8, qd.i32, qd.u32, qd.u64], ids=str)
def test_release_mode_wraps_without_a_message(capfd, dtype):
    qd.init(arch=qd.cpu, debug=False)
    kernels = _kernels(dtype)
    for op in ("add", "sub", "mul", "shl"):
        a, b = _operands(op, dtype, overflowing=True)
        assert kernels[op](a, b) == _wrap(_exact(op, a, b), dtype)
    assert "overflow detected" not in _output(capfd)


def test_shifts_past_the_width_lose_every_bit_and_are_reported(capfd):
    qd.init(arch=qd.cpu, debug=True)
    shl = _kernels(qd.i32)["shl"]
    assert shl(1, 32) == 0
    assert shl(0, 40) == 0  # nothing to lose
    assert shl(-1, 31) == -(2**31)  # the sign bit shifts back: no overflow
    assert _output(capfd).count("Shift left overflow detected") == 1


def test_compound_assignment_and_funcs_name_their_own_line(capfd):
    qd.init(arch=qd.cpu, debug=True)

    @qd.func
    def doubled(v):
        return v * 2

    @qd.kernel
    def grow(x: qd.i32) -> qd.i32:
        total = x
        total += x
        return doubled(total)

    assert grow(2**30) == _wrap(2**32, qd.i32)
    out = _output(capfd)
    assert "Addition overflow detected" in out and "        total += x\n" in out
    assert ", in doubled:\n        return v * 2\n" in out


def test_every_overflowing_iteration_of_a_parallel_loop_reports(capfd):
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def scale(x: qd.types.ndarray(dtype=qd.i16, ndim=1)):
        for i in x:
            x[i] = x[i] * qd.i16(300)

    x = np.array([1, 100, 2, 200, 3], dtype=np.int16)
    scale(x)  # 200 * 300 = 60000 is past 32767; 100 * 300 is not
    np.testing.assert_array_equal(x, np.array([300, 30000, 600, 60000 - 2**16, 900], dtype=np.int16))
    out = _output(capfd)
    assert out.count("Multiplication overflow detected") == 1
    assert out.count("x[i] = x[i] * qd.i16(300)") == 1


def test_float_arithmetic_is_never_checked(capfd):
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def big(a: qd.f32) -> qd.f32:
        return a * a + a

    assert big(1e30) == np.float32(np.inf)
    assert "overflow detected" not in _output(capfd)


def test_random_streams_wrap_on_purpose_without_a_report(capfd):
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in x:
            x[i] = qd.random()

    x = np.zeros(256, dtype=np.float32)
    fill(x)
    assert 0.0 <= x.min() and x.max() < 1.0
    assert "overflow detected" not in _output(capfd)
