# tests/python/test_assert_format.py: assert messages that show kernel values ("%d" % i, f"{x}").
#
# In debug mode a failed assert raises QuadrantsAssertionError (an AssertionError and a RuntimeError, as
# upstream) whose text is the message with the values the kernel saw: the kernel stores their bits in its
# error record and the host formats them (docs/IR.md, assert). `%` follows Python's rules (%d of a float
# truncates it, %u is %d); f-string fields and %s show a value as print() does. Mistakes in the format
# are compile errors. qd.init(arch=qd.cpu) runs on CUDA under QD_TEST_ARCH=cuda (conftest.py).
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core
from quadrants.base.errors import QuadrantsAssertionError, QuadrantsTypeError


@pytest.fixture(autouse=True)
def _debug_runtime():
    qd.init(arch=qd.cpu, debug=True)


def failure(kernel, *args):
    """The text of the assertion `kernel(*args)` raises."""
    with pytest.raises(QuadrantsAssertionError) as info:
        kernel(*args)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, RuntimeError)
    return str(info.value)


def test_percent_format_shows_the_failing_iteration_and_passes_once_fixed():
    x = qd.field(dtype=qd.i32, shape=16)
    x[10] = 42

    @qd.kernel
    def check():
        for i in x:
            assert x[i] == 0, "x[%d] expect=%d got=%d" % (i, 0, x[i])

    assert failure(check) == "Kernel 'check': assertion failed: x[10] expect=0 got=42"
    x[10] = 0
    check()


def test_fstring_fields_format_as_print_does():
    @qd.kernel
    def check(y: qd.f32, n: qd.i32):
        assert y < 0, f"y = {y}, {y:.2f}, n = {n:4d}|{n:x}|{n}, {0}"

    assert failure(check, 0.5, 255) == "Kernel 'check': assertion failed: y = 0.500000, 0.50, n =  255|ff|255, 0"
    check(-1.0, 1)


def test_percent_conversions_follow_python():
    @qd.kernel
    def integers(a: qd.i64, b: qd.u32, c: qd.u64, k: qd.i32):
        assert k == 0, "%d %i %x %X %o %u %-4d|100%%" % (a, a, b, b, b, c, k)

    @qd.kernel
    def reals(d: qd.f64, e: qd.f32, k: qd.i32):
        assert k == 0, "%.3e %g %5.1f|%d %u %f|%s %s" % (d, d, e, e, e, k, k, d)

    text = failure(integers, -(2**40), 0xBEEF, 2**63 + 5, 7)
    assert text == ("Kernel 'integers': assertion failed: -1099511627776 -1099511627776 beef BEEF 137357 "
                    "9223372036854775813 7   |100%")
    text = failure(reals, 1234.5, -2.75, 7)
    assert text == "Kernel 'reals': assertion failed: 1.234e+03 1234.5  -2.8|-2 -2 7.000000|7 1234.500000000000"


def test_a_single_value_and_a_vector_under_percent_s():
    @qd.kernel
    def check(k: qd.i32):
        v = qd.Vector([k, k + 1])
        assert k < 0, "v = %s" % v
        assert k < 0, "k = %d" % k

    assert failure(check, 3) == "Kernel 'check': assertion failed: v = [3, 4]"


def test_negative_hex_shows_the_values_own_width():
    @qd.kernel
    def check(k: qd.i32, s: qd.i8):
        assert k > 0, "%x %x" % (k, s)

    assert failure(check, -1, -2) == "Kernel 'check': assertion failed: ffffffff fe"


def test_constant_messages_keep_percent_signs_and_release_mode_ignores_asserts():
    @qd.kernel
    def check(k: qd.i32):
        assert k == 0, "50% done"

    assert failure(check, 1) == "Kernel 'check': assertion failed: 50% done"
    qd.init(arch=qd.cpu, debug=False)

    @qd.kernel
    def unchecked(k: qd.i32):
        assert k == 0, "k = %d" % k

    unchecked(1)


def test_values_come_from_arrays_and_the_failing_thread():
    a = qd.ndarray(qd.f32, shape=8)
    a.from_numpy(np.arange(8, dtype=np.float32) * 0.25)

    @qd.kernel
    def check(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            assert a[i] < 1.5, f"a[{i}] = {a[i]:.2f} of {a.shape[0]}"

    # Iterations 6 and 7 both fail; the first to report is the one shown.
    assert failure(check, a) in ("Kernel 'check': assertion failed: a[6] = 1.50 of 8",
                                 "Kernel 'check': assertion failed: a[7] = 1.75 of 8")


def test_in_a_func():
    @qd.func
    def positive(v: qd.i32):
        assert v > 0, "v = %d is not positive" % v

    @qd.kernel
    def check(k: qd.i32):
        positive(k)

    assert failure(check, -3) == "Kernel 'check': assertion failed: v = -3 is not positive"


def compile_error(kernel, *args):
    with pytest.raises(QuadrantsTypeError) as info:
        kernel(*args)
    return str(info.value)


def test_format_mistakes_are_compile_errors():
    @qd.kernel
    def too_few(k: qd.i32):
        assert k == 0, "%d %d" % (k,)

    @qd.kernel
    def too_many(k: qd.i32):
        assert k == 0, "%d" % (k, k)

    @qd.kernel
    def character(k: qd.i32):
        assert k == 0, "%c" % k

    @qd.kernel
    def mapping(k: qd.i32):
        assert k == 0, "%(a)d" % k

    @qd.kernel
    def star(k: qd.i32):
        assert k == 0, "%*d" % (k, k)

    @qd.kernel
    def not_text(k: qd.i32):
        assert k == 0, k

    @qd.kernel
    def nine(k: qd.i32):
        assert k == 0, "%d%d%d%d%d%d%d%d%d" % (k, k, k, k, k, k, k, k, k)

    assert ("The format string '%d %d' has more conversions than the 1 value(s) given: not enough arguments for "
            "format string.") in compile_error(too_few, 1)
    assert ("The format string '%d' has 1 conversion(s) but 2 value(s) are given: not all arguments converted "
            "during string formatting.") in compile_error(too_many, 1)
    assert "'%c' in the format string '%c': unsupported format character 'c'" in compile_error(character, 1)
    assert "a mapping key cannot take kernel values" in compile_error(mapping, 1)
    assert "a '*' width or precision cannot take kernel values" in compile_error(star, 1)
    assert ("The message of an assert inside a kernel must be a string, an f-string or a '%' format of kernel "
            "values, but got a scalar expression.") in compile_error(not_text, 1)
    assert "An assert message can show at most 8 kernel values, but this one shows 9." in compile_error(nine, 1)


def test_a_conversion_that_needs_an_integer_names_the_type():
    @qd.kernel
    def check(y: qd.f32):
        assert y < 0, "%x" % y

    with pytest.raises(QuadrantsTypeError, match=r"assert message: 'x' needs an integer, but the value is 'f32'\."):
        check(1.0)


@pytest.mark.skipif(not _core.nvrtc_available(), reason="NVRTC not found")
def test_cuda_code_compiles_with_every_kind_of_value():
    @qd.kernel
    def check(h: qd.f16, d: qd.f64, b: qd.u8, c: qd.i16, k: qd.u64):
        assert h < 0, "%d %f %x %u %s %e %d %x" % (h, h, b, c, d, d, k, c)

    compiled = _core.compile_kernel_cuda(check.ir((("scalar", "f16"), ("scalar", "f64"), ("scalar", "u8"),
                                                   ("scalar", "i16"), ("scalar", "u64")), ()), 9, 0)
    assert compiled.image_size > 0


def test_print_takes_percent_formats_of_kernel_values_too(capfd):
    @qd.kernel
    def show(k: qd.i32, y: qd.f32):
        print("k=%d y=%.2f %s%%" % (k, y, k))

    show(3, 0.25)
    qd.sync()
    assert capfd.readouterr().out == "k=3 y=0.25 3%\n"
