# tests/python/test_kernel_language_extras.py: the Taichi-style language features beyond the basics: qd.grouped,
# stepped ranges, print, matrix constructors and inverse, and the extra math functions; results against numpy.
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.init(arch=qd.cpu)  # a test that changed the config (fast_math) leaves the default behind


# ---- qd.grouped --------------------------------------------------------------------------------
def test_grouped_over_an_ndarray_gives_an_index_vector():
    @qd.kernel
    def fill(x: qd.types.ndarray(ndim=2)):
        for I in qd.grouped(x):
            x[I] = I[0] * 10 + I[1] + I.sum() * 100

    x = np.zeros((3, 4), dtype=np.int32)
    fill(x)
    i, j = np.indices((3, 4))
    np.testing.assert_array_equal(x, i * 10 + j + (i + j) * 100)


def test_grouped_over_a_1d_ndarray_is_still_a_vector():
    @qd.kernel
    def fill(x: qd.types.ndarray(ndim=1)):
        for I in qd.grouped(x):
            x[I] = I.n * 1000 + I[0]

    x = np.zeros(5, dtype=np.int32)
    fill(x)
    np.testing.assert_array_equal(x, 1000 + np.arange(5))


def test_grouped_over_ndrange_and_a_field_and_in_a_serial_loop():
    f = qd.field(qd.f32, shape=(4, 3))

    @qd.kernel
    def run(out: qd.types.ndarray(ndim=2)):
        for I in qd.grouped(qd.ndrange((1, 3), 3)):
            out[I] = I[0] * 10.0 + I[1]
        for I in qd.grouped(f):
            f[I] = I[0] - I[1]
        for _ in range(1):
            for I in qd.grouped(qd.ndrange(2, 2)):
                out[I + qd.Vector([2, 1])] += 0.5

    out = np.zeros((4, 3), dtype=np.float32)
    run(out)
    expected = np.zeros((4, 3), dtype=np.float32)
    for i in range(1, 3):
        for j in range(3):
            expected[i, j] = i * 10 + j
    expected[2:4, 1:3] += 0.5
    np.testing.assert_array_equal(out, expected)
    i, j = np.indices((4, 3))
    np.testing.assert_array_equal(f.to_numpy(), (i - j).astype(np.float32))


def test_grouped_ndrange_in_python_scope_yields_vectors():
    assert [v.to_list() for v in qd.grouped(qd.ndrange(2, (3, 5)))] == [[0, 3], [0, 4], [1, 3], [1, 4]]


def test_grouped_over_a_number_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for I in qd.grouped(8):
            x[I] = 1

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.grouped\(\) needs an ndarray, a field or qd.ndrange\(...\), "
                                                    r"but got the Python value 8 \(int\)"):
        bad(np.zeros(8, dtype=np.int32))


def test_grouped_with_two_loop_variables_is_rejected():
    @qd.kernel
    def bad(x: qd.types.ndarray(ndim=2)):
        for i, j in qd.grouped(x):
            x[i, j] = 1

    with pytest.raises(qd.QuadrantsSyntaxError, match="one loop variable, the index vector, but got 2"):
        bad(np.zeros((2, 2), dtype=np.int32))


# ---- range takes no step (upstream 1.3.3's rule) -----------------------------------------------
@pytest.mark.parametrize("nested", [False, True], ids=["parallel", "serial"])
def test_range_with_a_step_is_rejected_as_upstream(nested):
    @qd.kernel
    def visit(out: qd.types.ndarray(), begin: qd.i32, end: qd.i32):
        if qd.static(nested):
            for _ in range(1):
                for i in range(begin, end, 2):
                    out[i] = 1
        else:
            for i in range(begin, end, 2):
                out[i] = 1

    with pytest.raises(qd.QuadrantsSyntaxError) as info:
        visit(np.zeros(10, dtype=np.int32), 0, 10)
    err = info.value
    assert err.message == "Range should have 1 or 2 arguments, found 3."
    assert "qd.static(range(...))" in err.hint
    # upstream's layout: the whole for-statement underlined, the message right under the carets
    assert "for i in range(begin, end, 2):\n" in str(err)
    assert "^" * len("for i in range(begin, end, 2):") + "\nRange should have 1 or 2 arguments, found 3." in str(err)


def test_range_with_four_arguments_names_the_count():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for i in range(0, 10, 1, 2):
            x[i] = 1

    with pytest.raises(qd.QuadrantsSyntaxError, match="Range should have 1 or 2 arguments, found 4"):
        bad(np.zeros(10, dtype=np.int32))


def test_stepped_range_under_static_or_in_python_scope_still_works():
    @qd.kernel
    def visit(out: qd.types.ndarray()):
        for _ in range(1):
            n = 0
            for i in qd.static(range(9, -1, -3)):  # unrolled at compile time: any Python range
                out[n] = i
                n += 1

    out = np.full(4, -99, dtype=np.int32)
    visit(out)
    np.testing.assert_array_equal(out, list(range(9, -1, -3)))


# ---- print -------------------------------------------------------------------------------------
def test_print_scalars_vectors_matrices_and_strings(capfd):
    @qd.kernel
    def show(x: qd.types.ndarray(), n: qd.i64, u: qd.u32):
        for _ in range(1):
            v = qd.Vector([1.5, -2.0])
            m = qd.Matrix([[1, 2], [3, 4]])
            print("x[0] =", x[0], "100%", v, m, n, u)
            print("a", 1, "b", sep="", end="|\n")
            print()

    show(np.array([0.25], dtype=np.float32), -(2**40), 2**32 - 1)
    lines = capfd.readouterr().out.splitlines()
    assert lines == [
        "x[0] = 0.250000 100% [1.500000, -2.000000] [[1, 2], [3, 4]] -1099511627776 4294967295",
        "a1b|",
        "",
    ]


def test_print_in_a_parallel_loop_prints_every_iteration_whole(capfd):
    @qd.kernel
    def show(x: qd.types.ndarray()):
        for i in x:
            print("item", i, x[i] * 2.0)

    show(np.arange(64, dtype=np.float64))
    lines = capfd.readouterr().out.splitlines()
    assert sorted(lines, key=lambda line: int(line.split()[1])) == [
        f"item {i} {2.0 * i:.12f}" for i in range(64)
    ]


def test_print_of_f_strings(capfd):
    width = 3

    @qd.kernel
    def show(x: qd.types.ndarray()):
        for _ in range(1):
            v = qd.Vector([x[0], 2.0])
            print(f"x0={x[0]} v={v} n={width:03d} {'s'!r}", f"{width}")

    show(np.array([1.5], dtype=np.float32))
    assert capfd.readouterr().out == "x0=1.500000 v=[1.500000, 2.000000] n=003 's' 3\n"


def test_format_specs_on_kernel_values_are_printf_conversions(capfd):
    # As upstream: a spec is printf's conversion without its '%'; what it leaves out (the precision, the
    # conversion letter) comes from the value's type, and a vector or matrix applies it to each entry.
    @qd.kernel
    def show(k: qd.f32, n: qd.i32, u: qd.u32, big: qd.i64):
        m = qd.Matrix([[2e1, 3e2], [4e3, 7e6]], qd.f32)
        print(f"{k:.2f}|{k:e}|{k:.2}|{n:5d}|{n:.4}|{u:x}|{u:#o}|{big:d}|{m:g}")
        print(f"{k = :.1f}")
        print("{:.3f} {n:+d} {} {0:.1f}".format(k, 7, n=n))
        print("{:i} {:.10d}".format(1, 3))  # printf-only conversions of compile-time numbers

    show(2.5, 42, 255, -(2**40))
    qd.sync()
    assert capfd.readouterr().out.splitlines() == [
        "2.50|2.500000e+00|2.50|   42|0042|ff|0377|-1099511627776|[[20, 300], [4000, 7e+06]]",
        "k = 2.5",
        "2.500 +42 7 2.5",
        "1 0000000003",
    ]


@pytest.mark.parametrize("spec, dtype, message", [
    (".2d", qd.f32, r"'\.2d' doesn't match 'f32'"),
    ("- #0.233lli", qd.f32, r"'- #0\.233lli' doesn't match 'f32'"),
    ("d", qd.u32, r"'d' doesn't match 'u32'"),
    ("u", qd.i32, r"'u' doesn't match 'i32'"),
    ("c", qd.i32, r"conversion 'c' is not supported"),
    (",", qd.f32, r"',' is not a printf-style format spec"),
])
def test_format_specs_that_do_not_suit_the_value_are_type_errors(spec, dtype, message):
    @qd.kernel
    def bad(v: dtype):
        print(f"{v:{spec}}")

    with pytest.raises(qd.QuadrantsTypeError, match=message):
        bad(1)


def test_f_string_of_kernel_values_outside_print_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for i in x:
            x[i] = f"{x[i]}"

    with pytest.raises(qd.QuadrantsTypeError, match=r"must be a scalar, but got an f-string of kernel values "
                                                    r"\(only print\(\) can show one\)"):
        bad(np.zeros(2, dtype=np.float32))


def test_print_of_an_array_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        print(x)

    with pytest.raises(qd.QuadrantsTypeError, match=r"print\(\) inside a kernel can show strings, scalars, vectors "
                                                    r"and matrices, but got"):
        bad(np.zeros(3, dtype=np.float32))


def test_print_with_an_unknown_keyword_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        print(x[0], flush=True)

    with pytest.raises(qd.QuadrantsTypeError, match=r"takes only sep= and end=, but got flush"):
        bad(np.zeros(3, dtype=np.float32))


def test_print_ir_text_round_trips_through_the_cpp_parser():
    @qd.kernel
    def show(a: qd.i32):
        print("a%\"", a, end="")

    text = show.export_ir(1)
    assert '(print "a%\\" " (arg a))' in text
    assert '(print "a%\\" " (arg a))' in _core.print_ir(text)


# ---- matrix constructors, inverse, determinant -------------------------------------------------
def test_vector_and_matrix_constructors_inside_kernels():
    @qd.kernel
    def build(out: qd.types.ndarray(dtype=qd.types.matrix(3, 3, qd.f32), ndim=1)):
        for _ in range(1):
            out[0] = qd.Matrix.identity(qd.f32, 3) * 2.0
            out[1] = qd.Matrix.zero(qd.f32, 3, 3) + 1.0
            row = qd.Vector.unit(3, 1) + qd.Vector.zero(qd.f32, 3) + qd.Vector.one(qd.f32, 3)
            out[2] = qd.Matrix.one(qd.f32, 3, 3) * 0.0
            for j in qd.static(range(3)):
                out[2][0, j] = row[j]

    out = np.zeros((3, 3, 3), dtype=np.float32)
    build(out)
    np.testing.assert_array_equal(out[0], 2 * np.eye(3))
    np.testing.assert_array_equal(out[1], np.ones((3, 3)))
    np.testing.assert_array_equal(out[2][0], [1, 2, 1])
    np.testing.assert_array_equal(out[2][1:], 0)


def test_constructor_dtypes_are_kept():
    @qd.kernel
    def build(out: qd.types.ndarray()):
        for _ in range(1):
            v = qd.Vector.zero(qd.i32, 2)
            v[0] = 7
            out[0] = v[0] // 2  # an integer vector: floor division stays integral
            w = qd.Vector.unit(2, 0, qd.i32)
            out[1] = w[0] / 2

    out = np.zeros(2, dtype=np.float64)
    build(out)
    np.testing.assert_array_equal(out, [3.0, 0.5])


def test_vector_zero_with_a_runtime_size_is_a_type_error():
    @qd.kernel
    def bad(n: qd.i32) -> qd.f32:
        v = qd.Vector.zero(qd.f32, n)
        return v[0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.Vector.zero\(dt, n\) needs positive compile-time int "
                                                    r"sizes, but got a scalar expression"):
        bad(3)


def test_vector_unit_out_of_range_is_a_type_error():
    @qd.kernel
    def bad() -> qd.f32:
        return qd.Vector.unit(3, 3)[0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"0 <= i < n, but got n=the Python value 3 \(int\) and "
                                                    r"i=the Python value 3 \(int\)"):
        bad()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_inverse_and_determinant_match_numpy(n):
    rng = np.random.default_rng(n)
    mats = (rng.standard_normal((16, n, n)) + 3 * np.eye(n)).astype(np.float64)

    @qd.kernel
    def invert(a: qd.types.ndarray(dtype=qd.types.matrix(n, n, qd.f64), ndim=1),
               inv: qd.types.ndarray(dtype=qd.types.matrix(n, n, qd.f64), ndim=1),
               det: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in a:
            m = a[i]
            inv[i] = m.inverse()
            det[i] = m.determinant() + qd.math.determinant(m) - qd.math.inverse(m).determinant() * 0.0

    inv = np.zeros_like(mats)
    det = np.zeros(16)
    invert(mats, inv, det)
    np.testing.assert_allclose(inv, np.linalg.inv(mats), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(det, 2 * np.linalg.det(mats), rtol=1e-10)


def test_inverse_of_a_non_square_matrix_is_a_type_error():
    @qd.kernel
    def bad() -> qd.f32:
        m = qd.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        return m.inverse()[0, 0]

    with pytest.raises(qd.QuadrantsTypeError, match=r"inverse\(\) supports square matrices from 1x1 to 12x12, as upstream, but got 2x3"):
        bad()


# ---- math --------------------------------------------------------------------------------------
_UNARY = [
    ("tanh", qd.tanh, np.tanh), ("asin", qd.asin, np.arcsin), ("acos", qd.acos, np.arccos),
    ("atan", qd.atan, np.arctan), ("rsqrt", qd.rsqrt, lambda x: 1 / np.sqrt(x)), ("round", qd.round, np.round),
    ("log2", qd.math.log2, np.log2), ("exp2", qd.math.exp2, np.exp2), ("sign", qd.math.sign, np.sign),
    ("fract", qd.math.fract, lambda x: x - np.floor(x)),
]


@pytest.mark.parametrize("name,fn,reference", _UNARY, ids=[u[0] for u in _UNARY])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_math_matches_numpy(name, fn, reference, dtype):
    @qd.kernel
    def apply(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in x:
            y[i] = fn(x[i])

    x = np.linspace(0.05, 0.95, 19).astype(dtype)
    if name in ("round", "sign", "fract"):
        x = np.array([-2.75, -1.0, -0.25, 0.0, 0.25, 1.0, 2.75, 3.2], dtype=dtype)
    y = np.zeros_like(x)
    apply(x, y)
    np.testing.assert_allclose(y, reference(x), rtol=1e-6 if dtype == np.float32 else 1e-13)


def test_round_halves_away_from_zero_and_floor_ceil_with_a_dtype():
    @qd.kernel
    def apply(x: qd.types.ndarray(), r: qd.types.ndarray(), f: qd.types.ndarray(), c: qd.types.ndarray()):
        for i in x:
            r[i] = qd.round(x[i])
            f[i] = qd.floor(x[i], qd.i32) * 2 + qd.floor(x[i], dt=qd.i32) % 2
            c[i] = qd.ceil(x[i], qd.i32)

    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.7], dtype=np.float32)
    r, f, c = np.zeros_like(x), np.zeros(7, np.int32), np.zeros(7, np.int32)
    apply(x, r, f, c)
    np.testing.assert_array_equal(r, np.sign(x) * np.floor(np.abs(x) + 0.5))
    np.testing.assert_array_equal(f, np.floor(x) * 2 + np.floor(x) % 2)
    np.testing.assert_array_equal(c, np.ceil(x))


def test_pow_clamp_mix_select_and_isnan_isinf():
    @qd.kernel
    def apply(x: qd.types.ndarray(), out: qd.types.ndarray(ndim=2)):
        for i in x:
            v = x[i]
            out[i, 0] = qd.pow(qd.abs(v), 1.5) + v ** 2
            out[i, 1] = qd.math.clamp(v, -1.0, 1.0)
            out[i, 2] = qd.math.mix(v, 10.0, 0.25)
            out[i, 3] = qd.select(v > 0, v, -v * 2)
            out[i, 4] = qd.math.isnan(v) * 10 + qd.math.isinf(v)
            out[i, 5] = qd.select(qd.Vector([v > 0, v <= 0]), qd.Vector([1.0, 2.0]), 0.0).sum()

    x = np.array([-3.0, -0.5, 0.0, 0.5, 2.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    out = np.zeros((8, 6), dtype=np.float32)
    with np.errstate(invalid="ignore"):
        apply(x, out)
        expected = np.stack([
            np.abs(x) ** 1.5 + x**2, np.clip(x, -1, 1), x + (10 - x) * 0.25, np.where(x > 0, x, -x * 2),
            np.isnan(x) * 10 + np.isinf(x), np.where(x > 0, 1.0, 0.0) + np.where(x <= 0, 2.0, 0.0),
        ], axis=1)
    np.testing.assert_allclose(out[:5], expected[:5], rtol=1e-6)
    np.testing.assert_array_equal(out[5:, 4], [10, 1, 1])


def test_isnan_survives_fast_math_and_integers_are_never_nan():
    qd.init(arch=qd.cpu, fast_math=True)

    @qd.kernel
    def flags(x: qd.types.ndarray(), k: qd.i32) -> qd.i32:
        n = 0
        for i in x:
            n += qd.math.isnan(x[i]) + 100 * qd.math.isinf(x[i]) + 10000 * qd.math.isnan(k)
        return n

    x = np.array([1.0, np.nan, np.inf, -np.inf, np.nan], dtype=np.float64)
    assert flags(x, 3) == 2 + 200


def test_infinite_constants_inside_kernels():
    @qd.kernel
    def lowest(x: qd.types.ndarray()) -> qd.f32:
        m = qd.math.inf
        for _ in range(1):
            for i in range(x.shape[0]):
                m = qd.min(m, x[i])
        return m

    assert lowest(np.array([3.0, -1.5, 2.0], dtype=np.float32)) == -1.5
    assert lowest(np.zeros(0, dtype=np.float32)) == np.inf


def test_unsigned_bit_operations_wrap_like_numpy():
    @qd.kernel
    def mix_bits(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i in x:
            v = x[i]
            y[i] = ((v << qd.u32(5)) ^ (v >> qd.u32(3)) | (~v & qd.u32(0xFF))) * qd.u32(2654435761)

    x = np.array([0, 1, 0xDEADBEEF, 2**32 - 1, 12345], dtype=np.uint32)
    y = np.zeros_like(x)
    mix_bits(x, y)
    with np.errstate(over="ignore"):
        expected = ((x << np.uint32(5)) ^ (x >> np.uint32(3)) | (~x & np.uint32(0xFF))) * np.uint32(2654435761)
    np.testing.assert_array_equal(y, expected)


def test_bit_cast_reinterprets_bits_like_numpy_view():
    @qd.kernel
    def bits(x: qd.types.ndarray(), b: qd.types.ndarray(), back: qd.types.ndarray(), h: qd.types.ndarray()):
        for i in x:
            b[i] = qd.bit_cast(x[i], qd.u32)
            back[i] = qd.bit_cast(qd.bit_cast(x[i], qd.i32) ^ qd.i32(-2147483648), qd.f32)  # flips the sign
            h[i] = qd.bit_cast(qd.cast(x[i], qd.f16), qd.u16)

    x = np.array([1.0, -2.5, 0.0, np.inf, 3.4e38], dtype=np.float32)
    b, back, h = np.zeros(5, np.uint32), np.zeros(5, np.float32), np.zeros(5, np.uint16)
    bits(x, b, back, h)
    np.testing.assert_array_equal(b, x.view(np.uint32))
    np.testing.assert_array_equal(back, -x)
    with np.errstate(over="ignore"):  # 3.4e38 becomes an f16 inf, as in the kernel
        np.testing.assert_array_equal(h, x.astype(np.float16).view(np.uint16))
    assert qd.bit_cast(np.float32(1.0), qd.u32) == 0x3F800000


def test_bit_cast_between_sizes_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for i in x:
            x[i] = qd.bit_cast(x[i], qd.i64)

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.bit_cast\(\) needs a value and a type of the same size, "
                                                    r"but was given f32 \(4 bytes\) to reinterpret as i64 \(8 bytes\)"):
        bad(np.zeros(2, dtype=np.float32))


def test_select_with_mismatched_branch_shapes_is_a_type_error():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for i in x:
            x[i] = qd.select(qd.Vector([x[i] > 0, x[i] < 0]), qd.Vector([1.0, 2.0, 3.0]), 0.0).sum()

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.select\(\) needs branches shaped like its condition "
                                                    r"\(a 2-vector\), but got a 3-vector"):
        bad(np.zeros(2, dtype=np.float32))


def test_floor_with_a_bad_dtype_names_it():
    @qd.kernel
    def bad(x: qd.types.ndarray()):
        for i in x:
            x[i] = qd.floor(x[i], 2.5)

    with pytest.raises(qd.QuadrantsTypeError,
                       match=r"Expected a dtype such as qd.f32, but got the Python value 2.5 \(float\)"):
        bad(np.zeros(2, dtype=np.float32))


def test_index_vectors_inside_an_index_tuple_count_one_index_per_entry():
    g = qd.field(qd.f32, shape=(2, 3, 3, 3, 2))
    cell = qd.types.struct(m=qd.f32, v=qd.types.vector(2, qd.f32))
    grid = cell.field(shape=(2, 3, 3, 3, 2))

    @qd.kernel
    def scatter(a: qd.types.ndarray(ndim=4)):
        for f in range(2):
            ijk = qd.Vector([1, 2, 0])
            g[f, ijk, 1] += 1.0
            qd.atomic_add(grid[f, ijk, 1].m, 2.0)  # Genesis' MPM p2g writes its grid this way
            grid[f, ijk, 0].v += qd.Vector([1.0, 3.0])
            a[ijk, f] = 5.0
            I = (1, 2, 0)  # a tuple inside the index, as Genesis' grid ops write it
            g[f, I, 0] += 10.0
            shifted = (I + qd.Vector([1, 0, 1])) * 2  # a tuple with a vector: vector arithmetic
            a[shifted // 2, 0] += 1.0

    a = np.zeros((3, 3, 3, 2), np.float32)
    scatter(a)
    assert g[1, 1, 2, 0, 1] == 1 and grid.m[0, 1, 2, 0, 1] == 2 and a[1, 2, 0, 1] == 5
    assert grid.v.to_numpy()[1, 1, 2, 0, 0].tolist() == [1, 3] and g.to_numpy().sum() == 22 and g[0, 1, 2, 0, 0] == 10
    assert a[2, 2, 1, 0] == 2

    sizes = np.array([3, 4, 5], dtype=np.int32)

    @qd.kernel
    def flat(i: qd.i32) -> qd.i32:
        return i * sizes[1] + sizes[2]  # numpy scalars read from a captured array are numbers

    assert flat(2) == 13


def test_numpy_scalars_from_python_scope_are_numbers_of_their_kind():
    grid_res = np.array([2, 3], dtype=np.int32)

    @qd.kernel
    def count(out: qd.types.ndarray()):
        for i, j in qd.ndrange(*grid_res):  # *unpacking a numpy array gives np.int32 bounds
            out[i, j] = grid_res[1] * i + j + np.float32(0.5)

    out = np.zeros((2, 3), np.float32)
    count(out)
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5)


def test_zero_dimensional_numpy_arrays_from_python_scope_are_numbers():
    begin = np.array(3, dtype=np.int32)  # shape (), as upstream's test_numpy_loops builds its bounds
    end = (np.ones(1) * 7).astype(np.int32).reshape(())

    @qd.kernel
    def fill(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(begin, end):
            out[i] = i * np.array(2.5)

    out = np.zeros(8, np.int32)
    fill(out)
    assert out.tolist() == [0, 0, 0, 7, 10, 12, 15, 0]


def test_a_kernel_parameter_cannot_be_reassigned():
    # As upstream: a kernel's parameters are immutable (a rebound one once hung `while n > 1: n = n // 2`).
    @qd.kernel
    def halvings(n: qd.i32) -> qd.i32:
        c = 0
        while n > 1:
            n = n // 2
            c += 1
        return c

    @qd.kernel
    def shifted(n: qd.i32, out: qd.types.ndarray()):
        n += 10
        for i in range(3):
            out[i] = n + i

    with pytest.raises(qd.QuadrantsSyntaxError, match='Kernel argument "n" is immutable in the kernel'):
        halvings(6)
    with pytest.raises(qd.QuadrantsSyntaxError, match='Kernel argument "n" is immutable in the kernel'):
        shifted(5, np.zeros(3, dtype=np.int32))
