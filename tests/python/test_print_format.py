# tests/python/test_print_format.py: format specs in kernel print(), as upstream's test_print.py uses them.
#
# A spec is printf's conversion without its '%'. Kernel values are formatted by the kernel; compile-time
# numbers are formatted as the kernel would print a constant of the default type (so "{:.2}".format(3.0)
# is "3.00", where Python would give "3.0"), and str.format() checks its arguments as upstream does.
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core


@pytest.fixture(autouse=True)
def _runtime():
    qd.init(arch=qd.cpu)


def printed(capfd, kernel, *args):
    kernel(*args)
    qd.sync()
    return capfd.readouterr().out.splitlines()


def test_compile_time_numbers_print_as_printf_formats_typed_constants(capfd):
    @qd.kernel
    def show():
        print("{2:.1} {:.2} {1:.3} {0:.5}".format(3.0, 2.0, 1.0))  # no conversion: a float's default, %f
        print("{1:.2} {:.10} {0:d} {0:i}".format(3, 2))  # an int's precision pads with zeros
        print(f"{1.1:.10f}|{7:5}|{7:-5}|{-2.5:+.1e}|{0.5:g}")  # 1.1 is the f32 constant 1.10000002384...

    assert printed(capfd, show) == [
        "1.0 3.00 2.000 3.00000",
        "02 0000000003 3 3",
        "1.1000000238|    7|7    |-2.5e+00|0.5",
    ]


def test_compile_time_floats_use_default_fp():
    qd.init(arch=qd.cpu, default_fp=qd.f64)

    @qd.kernel
    def show(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        s = "{:.10f}|{:5}".format(1.1, 2.5)  # f64: the double's digits, and print's f64 default precision
        qd.static_assert(s == "1.1000000000|2.500000000000", s)
        out[0] = 1

    out = np.zeros(1, dtype=np.int32)
    show(out)
    assert out[0] == 1


def test_formatted_compile_time_text_is_a_plain_string(capfd):
    @qd.kernel
    def show(k: qd.f32):
        label = "{:.2}".format(3.0) + "!"  # a str: it concatenates at compile time
        print(label, f"{k:.1f}", "{0[1]} {p:>4}|{q:,}".format((1, 2), p="ab", q=1234567))

    assert printed(capfd, show, 2.25) == ["3.00! 2.2 2   ab|1,234,567"]  # printf rounds 2.25 to even


def test_kernel_values_take_printf_specs(capfd):
    @qd.kernel
    def show(k: qd.f32, n: qd.i32, u: qd.u32):
        print("{:.3f} {n:+d} {} {0:.1e} {u:#x}".format(k, n + 1, n=n, u=u))
        print(f"{qd.Vector([k, k * 2]):.2f}")

    assert printed(capfd, show, 1.5, -4, 255) == ["1.500 -4 -3 1.5e+00 0xff", "[1.50, 3.00]"]


def bad_kernels():
    """One kernel per misuse, by name (kernels need source in a file, so no exec())."""
    # fmt: off
    @qd.kernel
    def too_many(k: qd.f32): print("{0} {1} {2}".format(1, 2, 3, 4))
    @qd.kernel
    def too_few(k: qd.f32): print("{0} {1} {2}".format(1, k))
    @qd.kernel
    def keyword_missing(k: qd.f32): print("{k}".format())
    @qd.kernel
    def keyword_unused(k: qd.f32): print("".format(k=k))
    @qd.kernel
    def hex_of_an_int_constant(k: qd.f32): print(f"{3:x}")
    @qd.kernel
    def d_of_a_float_constant(k: qd.f32): print(f"{2.0:d}")
    @qd.kernel
    def char_conversion(k: qd.f32): print(f"{1:c}")
    @qd.kernel
    def python_spec_of_a_kernel_value(k: qd.f32): print(f"{k:>8}")
    @qd.kernel
    def u_of_a_float(k: qd.f32): print(f"{k:u}")
    @qd.kernel
    def indexed_kernel_value(k: qd.f32): print("{0[0]}".format(k))
    # fmt: on
    return locals()


@pytest.mark.parametrize("name, error, message", [
    ("too_many", qd.QuadrantsSyntaxError,
     r"'\{0\} \{1\} \{2\}': Expected 3 positional argument\(s\), but received 4 instead\."),
    ("too_few", qd.QuadrantsSyntaxError, r"Expected 3 positional argument\(s\), but received 2 instead\."),
    ("keyword_missing", qd.QuadrantsSyntaxError, r"names \{k\}: Keyword 'k' not found\."),
    ("keyword_unused", qd.QuadrantsSyntaxError, r"has no \{k\}: Keyword 'k' not used\."),
    ("hex_of_an_int_constant", qd.QuadrantsTypeError,
     r"Formatting 3 \(a i32 constant in a kernel\) with 'x': 'x' doesn't match 'i32'\."),
    ("d_of_a_float_constant", qd.QuadrantsTypeError, r"'d' doesn't match 'f32'\."),
    ("char_conversion", qd.QuadrantsTypeError, r"Formatting 1 with 'c': conversion 'c' is not supported\."),
    ("python_spec_of_a_kernel_value", qd.QuadrantsTypeError, r"'>8' is not a printf-style format spec"),
    ("u_of_a_float", qd.QuadrantsTypeError, r"'u' doesn't match 'f32'\."),
    ("indexed_kernel_value", qd.QuadrantsTypeError, r"indexes or names an attribute of an argument"),
])
def test_bad_format_arguments_and_specs_are_errors_naming_them(name, error, message):
    with pytest.raises(error, match=message):
        bad_kernels()[name](1.0)


@pytest.mark.skipif(not _core.nvrtc_available(), reason="NVRTC not found")
def test_format_specs_compile_for_cuda():
    @qd.kernel
    def show(k: qd.f32, n: qd.i64, u: qd.u8):
        print(f"{k:+10.3e} {n:.4d} {u:#o} {k:a}", "{:.2}".format(3.0))

    compiled = _core.compile_kernel_cuda(show.ir((("scalar", "f32"), ("scalar", "i64"), ("scalar", "u8"))), 9, 0)
    assert "%+10.3e %.4lld %#o %a 3.00" in compiled.source
