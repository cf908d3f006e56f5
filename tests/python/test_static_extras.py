# tests/python/test_static_extras.py: compile-time features: qd.static_assert, qd.static_print, break and
# continue in qd.static() loops, comprehensions, and @qd.func keyword/default arguments with upstream's errors.
import numpy as np
import pytest

import quadrants as qd
from quadrants.base.errors import QuadrantsCompilationError, QuadrantsSyntaxError, QuadrantsTypeError


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


# --- qd.static_assert / qd.static_print -----------------------------------------------------------
def test_static_assert_passes_on_compile_time_facts():
    x = qd.Vector.field(4, qd.f32, ())
    n = 32

    @qd.func
    def helper():
        qd.static_assert(n == 32)

    @qd.kernel
    def k():
        qd.static_assert(x.n == 4)
        qd.static_assert(x.dtype == qd.f32, "x must be f32")
        helper()

    k()


def test_static_assert_failure_is_a_compilation_error_with_the_message():
    x = 3

    @qd.kernel
    def k():
        qd.static_assert(x == 4, "Oh, no!")

    with pytest.raises(QuadrantsCompilationError, match="Static assertion failed: Oh, no!"):
        k()


def test_static_assert_of_a_kernel_value_is_a_type_error():
    @qd.kernel
    def k(a: qd.i32):
        value = a > 0
        qd.static_assert(value, "Oh, no!")

    with pytest.raises(QuadrantsTypeError, match="Static assert with non-static condition"):
        k(1)


def test_static_assert_and_print_in_python_scope():
    qd.static_assert(1 + 1 == 2)
    with pytest.raises(AssertionError, match="nope"):
        qd.static_assert(False, "nope")


def test_static_print_runs_once_per_compile(capsys):
    f = qd.field(qd.f32, shape=4)
    size = 4

    @qd.kernel
    def k():
        qd.static_print("size", size, sep="=")
        for i in range(size):
            qd.static_print(f[i])
            f[i] = i

    k()
    k()
    out = capsys.readouterr().out
    assert out.count("size=4\n") == 1
    assert "<kernel value (load f ((var i)) ())>" in out
    np.testing.assert_allclose(f.to_numpy(), np.arange(4))


# --- break and continue in qd.static() loops ------------------------------------------------------
def test_static_break_stops_unrolling_and_skips_the_rest_of_the_body():
    n = 10
    a = qd.field(qd.i32, shape=n)

    @qd.kernel
    def k(a: qd.template()):
        for i in qd.static(range(n)):
            a[i] = 3
            if qd.static(i >= 5):
                break
                a[i] = 10  # noqa: unreachable in Python too
            a[i] = 5

    k(a)
    np.testing.assert_array_equal(a.to_numpy(), [5, 5, 5, 5, 5, 3, 0, 0, 0, 0])


def test_static_continue_skips_the_rest_of_one_iteration():
    n = 10
    a = qd.field(qd.i32, shape=n)

    @qd.kernel
    def k(a: qd.template()):
        for i in qd.static(range(n)):
            a[i] = 3
            if qd.static(i >= 5):
                continue
            a[i] = 5

    k(a)
    np.testing.assert_array_equal(a.to_numpy(), [5] * 5 + [3] * 5)


def test_static_break_over_grouped_indices():
    n = 4
    a = qd.field(qd.i32, shape=(n, n))

    @qd.kernel
    def k(a: qd.template()):
        for index in qd.static(qd.grouped(qd.ndrange(n, n))):
            a[index] = 3
            if qd.static(index[0] >= 3):
                break
            a[index] = 5

    k(a)
    expected = np.full((n, n), 5)
    expected[3] = 0
    expected[3, 0] = 3
    np.testing.assert_array_equal(a.to_numpy(), expected)


def test_runtime_loops_inside_static_loops_keep_their_own_break():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(out.shape[0]):
            for j in qd.static(range(4)):
                if qd.static(j == 2):
                    continue
                out[i, j] = 1
                for m in range(5):
                    if m == 1:
                        break
                    out[i, j] += 10

    out = np.zeros((3, 4), np.int32)
    k(out)
    np.testing.assert_array_equal(out, np.tile([11, 11, 0, 11], (3, 1)))


def test_static_break_under_a_runtime_if_uses_upstreams_words():
    @qd.kernel
    def k(x: qd.i32):
        for i in qd.static(range(3)):
            if x > i:
                break

    with pytest.raises(QuadrantsSyntaxError, match="You are trying to `break` a static `for` loop, but the `break` "
                                                   "statement is inside a non-static `if`"):
        k(1)


# --- comprehensions -------------------------------------------------------------------------------
def test_comprehensions_unroll_at_compile_time():
    s = qd.field(qd.i32, shape=(3, 3))

    @qd.kernel
    def k(shift: qd.i32, diag: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        mat = qd.Matrix([[x * 3 + y + shift for y in range(3)] for x in range(3)])
        corners = qd.Vector([mat[i, i] for i in range(3) if i != 1])
        for i, j in qd.ndrange(3, 3):
            s[i, j] = mat[i, j]
        for i in qd.static(range(2)):
            diag[i] = corners[i]

    diag = np.zeros(2, np.int32)
    k(10, diag)
    np.testing.assert_array_equal(s.to_numpy(), np.arange(9).reshape(3, 3) + 10)
    np.testing.assert_array_equal(diag, [10, 18])


def test_comprehension_conditions_must_be_compile_time():
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        v = qd.Vector([i for i in range(3) if i < a])
        return v[0]

    with pytest.raises(QuadrantsTypeError, match="must be known at compile time"):
        k(1)


# --- @qd.func arguments ---------------------------------------------------------------------------
def test_func_keyword_and_default_arguments():
    @qd.func
    def affine(x, scale=2, shift=0):
        return x * scale + shift

    @qd.func
    def all_default(a=1, b=2, c=3):
        return a * 100 + b * 10 + c

    @qd.kernel
    def k(x: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        out[0] = affine(x)
        out[1] = affine(x, shift=1)
        out[2] = affine(shift=5, scale=3, x=x)
        out[3] = all_default()
        out[4] = all_default(c=9, a=7)

    out = np.zeros(5, np.int32)
    k(4, out)
    np.testing.assert_array_equal(out, [8, 9, 17, 123, 729])


def test_wrong_func_arguments_use_upstreams_words():
    @qd.func
    def foo(a, b, c=3):
        return a + b + c

    @qd.kernel
    def missing() -> qd.i32:
        return foo(1, c=3)

    @qd.kernel
    def missing_two() -> qd.i32:
        return foo(c=3)

    @qd.kernel
    def unexpected() -> qd.i32:
        return foo(1, 2, 3, d=3)

    @qd.kernel
    def too_many() -> qd.i32:
        return foo(1, 2, 3, 4)

    @qd.kernel
    def twice() -> qd.i32:
        return foo(1, a=3, b=3)

    for k, message in ((missing, "Missing argument 'b'"), (missing_two, "Missing argument 'a'; Missing argument 'b'"),
                       (unexpected, "Unexpected argument 'd'"),
                       (too_many, r"Too many arguments for @qd.func 'foo': it takes \(a, b, c=3\), but got 4"),
                       (twice, "Multiple values for argument 'a'")):
        with pytest.raises(QuadrantsSyntaxError, match=message):
            k()


def test_a_name_assigned_from_qd_static_stays_a_compile_time_value():
    qd.init(arch=qd.cpu)

    @qd.func
    def write_if(x: qd.template(), cond: qd.template()):
        if qd.static(cond):  # needs a compile-time value, as Genesis' func_write_field_if does
            x[0] = 7

    @qd.kernel
    def k(x: qd.types.ndarray(), flag: qd.template()):
        on = qd.static(flag)
        write_if(x, on)
        if qd.static(on):
            x[1] = 8

    a = np.zeros(2, np.int32)
    k(a, True)
    assert a.tolist() == [7, 8]
    b = np.zeros(2, np.int32)
    k(b, False)
    assert b.tolist() == [0, 0]


def test_a_local_given_to_a_template_func_parameter_is_passed_by_reference():
    qd.init(arch=qd.cpu)

    @qd.func
    def add_one(ret: qd.template()):
        ret += 1

    @qd.kernel
    def serial() -> qd.i32:
        total = 0
        add_one(total)
        add_one(total)
        return total

    @qd.kernel
    def parallel(n: qd.i32) -> qd.i32:
        total = 0
        for i in range(n):
            add_one(total)  # every iteration shares the kernel's local: the update must be atomic
        return total

    assert serial() == 2
    assert parallel(1000) == 1000


def test_a_vector_local_given_to_a_template_func_parameter_is_passed_by_reference():
    qd.init(arch=qd.cpu)

    @qd.func
    def pull(ret: qd.template(), d):
        ret -= d * 2.0

    @qd.kernel
    def run(out: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):
        for i in range(out.shape[0]):
            v = qd.Vector([1.0, 2.0, 3.0])
            pull(v, qd.Vector([0.5, 0.5, float(i)]))
            out[i] = v

    out = qd.Vector.ndarray(3, qd.f32, 3)
    run(out)
    np.testing.assert_array_equal(out.to_numpy(), [[0, 1, 3], [0, 1, 1], [0, 1, -1]])


def test_qd_ref_parameters_are_the_callers_local():
    qd.init(arch=qd.cpu)

    @qd.real_func
    def set_seven(a: qd.ref(qd.f32)):
        a = 7

    @qd.func
    def double(a: qd.ref(qd.f32)):
        a += a

    @qd.kernel
    def run() -> qd.f32:
        a = 5.0
        set_seven(a)
        b = 5.0
        double(b)
        return a * 100 + b

    assert run() == 710
    assert repr(qd.ref(qd.f32)) == "qd.ref(qd.f32)"


@pytest.mark.parametrize("unrolled", [False, True])
def test_a_static_choice_between_loop_iterables(unrolled):
    qd.init(arch=qd.cpu)
    n = qd.ndarray(qd.i32, shape=3)
    n.from_numpy(np.array([2, 0, 3], dtype=np.int32))
    out = qd.ndarray(qd.i32, shape=3)

    @qd.kernel
    def k(n: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in range(3):
            total = 0
            for j in qd.static(range(4)) if qd.static(unrolled) else range(n[i]):
                total += j + 1
            out[i] = total

    k(n, out)
    expected = [10, 10, 10] if unrolled else [3, 0, 6]
    assert out.to_numpy().tolist() == expected


def test_a_runtime_choice_between_loop_iterables_is_an_error():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def k(flag: qd.i32, out: qd.types.ndarray()):
        for i in range(1):
            for j in range(2) if flag else range(3):
                out[i] += j

    with pytest.raises(qd.QuadrantsSyntaxError, match="condition of a conditional loop iterable must be known"):
        k(1, np.zeros(1, dtype=np.int32))
