# tests/python/test_upstream_errors_compat.py: upstream Quadrants' user errors (class and key words) and the small
# APIs its tests use (qd.zero/one, qd.math.fns, qd.lang.ops.add, get_num_compiled_functions), as built here.
import operator

import numpy as np
import pytest

import quadrants as qd
from quadrants.lang import impl


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)


def _raises(kernel, cls, words, *args):
    with pytest.raises(cls, match=words):
        kernel(*args)


# --- literals: a dtype called on a Python number --------------------------------------------------------------
def test_a_dtype_takes_one_expression_of_its_own_kind_and_range():
    @qd.kernel
    def two_args():
        a = qd.i64(1, 2)

    @qd.kernel
    def keyword():
        a = qd.f64(1, x=2)

    @qd.kernel
    def vector():
        a = qd.f16(qd.Vector([1]))

    @qd.kernel
    def int_as_float():
        a = qd.f32(0)

    @qd.kernel
    def float_as_int():
        a = qd.i32(0.0)

    @qd.kernel
    def out_of_range():
        a = qd.u16(-1)

    _raises(two_args, qd.QuadrantsSyntaxError, "A primitive type can only decorate a single expression")
    _raises(keyword, qd.QuadrantsSyntaxError, "A primitive type can only decorate a single expression")
    _raises(vector, qd.QuadrantsSyntaxError, "cannot decorate an expression with a compound type")
    _raises(int_as_float, qd.QuadrantsTypeError, "Integer literals must be annotated with a integer type")
    _raises(float_as_int, qd.QuadrantsTypeError, "Floating-point literals must be annotated with a floating-point")
    _raises(out_of_range, qd.QuadrantsTypeError, "Integer literal -1 exceeded the range of specified dtype: u16")


def test_typed_literals_and_casts_of_kernel_values_still_work():
    @qd.kernel
    def k(x: qd.f32) -> qd.u32:
        return qd.u32(4294967295) - qd.u32(qd.i32(x))

    assert k(5.0) == 4294967290


def test_an_int_local_must_fit_default_ip():
    @qd.kernel
    def k():
        b = 0x80000000

    _raises(k, qd.QuadrantsTypeError, "Integer literal 2147483648 exceeded the range of default_ip: i32")


def test_a_numpy_array_local_must_be_0d():
    @qd.kernel
    def one_d():
        a = np.array([1])

    @qd.kernel
    def zero_d() -> qd.i32:
        a = np.array(3, dtype=np.int32)
        return a

    _raises(one_d, qd.QuadrantsTypeError, "Only 0-dimensional numpy array can be used to initialize a scalar")
    assert zero_d() == 3


def test_a_ternary_of_two_shapes_cannot_broadcast():
    @qd.kernel
    def k(b: qd.i32):
        d = qd.math.vec2(1.0, 1.0) if b else qd.math.vec3(1.0, 1.0, 2.0)

    _raises(k, qd.QuadrantsCompilationError, "Cannot broadcast tensor to tensor", 1)


# --- is / in ----------------------------------------------------------------------------------------------------
def test_in_and_is_need_qd_static_and_is_tests_a_template_argument_against_none():
    f = qd.field(qd.i32, shape=())

    @qd.kernel
    def runtime_in(a: qd.template()) -> qd.i32:
        return 1 if a in [qd.i32, qd.u32] else 0

    @qd.kernel
    def runtime_is():
        a = f is f

    @qd.kernel
    def scalar_is(value: qd.i32) -> qd.i32:
        return 1 if qd.static(value is None) else 0

    @qd.kernel
    def identity(value: qd.template()) -> qd.i32:
        return 1 if qd.static(value is qd.i32) else 0

    @qd.kernel
    def presence(value: qd.template()) -> qd.i32:
        return 1 if qd.static(value is not None) else 0

    @qd.kernel
    def static_in(a: qd.template()) -> qd.i32:
        return 1 if qd.static(a in [qd.i32, qd.u32]) else 0

    _raises(runtime_in, qd.QuadrantsSyntaxError, '"In" is only supported inside `qd.static`', qd.i32)
    _raises(runtime_is, qd.QuadrantsSyntaxError, 'Operator "is" in Quadrants scope is not supported')
    _raises(scalar_is, qd.QuadrantsSyntaxError, r'Operator "is" inside `qd.static` requires a direct `qd.template\(\)`',
            0)
    _raises(identity, qd.QuadrantsSyntaxError, r'Operator "is" inside `qd.static` requires', qd.i32)
    assert presence(None) == 0 and presence(1) == 1
    assert static_in(qd.u32) == 1 and static_in(qd.f32) == 0


def test_plain_python_functions_keep_is_and_in():
    def pick(x, scale=None):
        return x if scale is None else x * scale

    @qd.kernel
    def k(x: qd.f32) -> qd.f32:
        return pick(x) + pick(x, 2.0)

    assert k(1.5) == 4.5


# --- kernel arguments and loops -----------------------------------------------------------------------------------
def test_kernel_arguments_are_immutable_but_func_arguments_are_copies():
    @qd.kernel
    def assign(a: qd.i32):
        a = 1

    @qd.kernel
    def augassign(a: qd.i32):
        a += 1

    @qd.kernel
    def annassign(a: qd.i32):
        a: qd.i32 = 1

    @qd.kernel
    def template(a: qd.template()):
        a = 5

    @qd.func
    def halvings(n: qd.i32) -> qd.i32:
        c = 0
        while n > 1:
            n = n // 2
            c += 1
        return c

    @qd.kernel
    def through_func(n: qd.i32) -> qd.i32:
        return halvings(n)

    for kernel in (assign, augassign, annassign, template):
        _raises(kernel, qd.QuadrantsSyntaxError, 'Kernel argument "a" is immutable in the kernel', 5)
    assert through_func(1000) == 9


def test_loop_variables_are_new_names_and_static_is_not_nested():
    @qd.kernel
    def reused():
        i = 0
        for i in range(10):
            pass

    @qd.kernel
    def nested():
        for i in qd.static(qd.static(range(1))):
            pass

    @qd.kernel
    def sequential() -> qd.i32:
        s = 0
        for i in range(3):
            s += i
        for i in range(4):
            s += i
        return s

    _raises(reused, qd.QuadrantsSyntaxError, "Variable 'i' is already declared in the outer scope")
    _raises(nested, qd.QuadrantsSyntaxError, "'qd.static' cannot be nested")
    assert sequential() == 9


def test_ndrange_arguments_and_loop_variables():
    gen = (n for n in range(3))

    @qd.kernel
    def three():
        for i in qd.ndrange((1, 2, 3)):
            pass

    @qd.kernel
    def floats():
        for i in qd.ndrange((1.1, 10.5)):
            pass

    @qd.kernel
    def one_name():
        for i in qd.ndrange(4, 4):
            pass

    @qd.kernel
    def generator():
        for I in qd.grouped(qd.ndrange(*gen)):
            pass

    @qd.kernel
    def grouped() -> qd.i32:
        s = 0
        for I in qd.grouped(qd.ndrange(2, 3)):
            s += I[0] * 3 + I[1]
        return s

    _raises(three, qd.QuadrantsSyntaxError, "Every argument of ndrange should be a scalar or a tuple/list like")
    _raises(floats, qd.QuadrantsTypeError, r"Every argument of ndrange should be an integer scalar")
    _raises(one_name, qd.QuadrantsSyntaxError, "number of the loop variables not equal to the dimension")
    _raises(generator, ValueError, "Cannot store generators in variables")
    assert grouped() == 15


def test_a_string_annotation_that_names_nothing_is_a_syntax_error():
    with pytest.raises(qd.QuadrantsSyntaxError, match="annotation"):

        @qd.kernel
        def k(x: "not_a_type_anywhere"):  # noqa: F821
            pass


# --- funcs and returns -----------------------------------------------------------------------------------------
def test_vector_func_parameters_check_the_shape():
    @qd.func
    def first(a: qd.math.vec3) -> qd.f32:
        return a[0]

    @qd.kernel
    def wrong() -> qd.f32:
        return first(qd.Matrix([3, 4]))

    @qd.kernel
    def right() -> qd.f32:
        return first(qd.math.vec3(1, 2, 3))

    _raises(wrong, qd.QuadrantsSyntaxError, "is expected to be a Matrix with n 3, but got 2")
    assert right() == 1


def test_returns_inside_runtime_ifs_and_loops():
    @qd.func
    def untyped(a):
        if a > 0:
            return qd.sqrt(a)
        else:
            return 0.0

    @qd.kernel
    def calls_untyped(a: qd.f32):
        print(untyped(a))

    @qd.kernel
    def in_loop() -> qd.i32:
        for i in range(10):
            return i

    @qd.kernel
    def none():
        return None

    _raises(calls_untyped, qd.QuadrantsCompilationError, "Return inside non-static if/for is not supported", -1.0)
    _raises(in_loop, qd.QuadrantsCompilationError, "Return inside non-static if/for is not supported")
    none()


def test_a_kernel_returns_its_own_struct_type():
    sphere = qd.types.struct(center=qd.math.vec3, radius=float)
    same = qd.types.struct(center=qd.math.vec3, radius=float)
    other = qd.types.struct(center=qd.math.vec3, radius=int)

    @qd.kernel
    def wrong() -> sphere:
        return other(center=qd.math.vec3([1, 2, 3]), radius=2)

    @qd.kernel
    def right() -> sphere:
        return same(center=qd.math.vec3([1, 2, 3]), radius=2)

    _raises(wrong, qd.QuadrantsTypeError, "but the value is a struct")
    assert right()["radius"] == 2.0


# --- matrices ---------------------------------------------------------------------------------------------------
def test_matrix_and_vector_index_counts():
    @qd.kernel
    def row() -> qd.i32:  # a matrix takes two indices, as upstream; its row is m[i, :]
        m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
        return m[1][2]

    @qd.kernel
    def two_on_vector():
        v = qd.Vector([1, 2, 3, 4])
        print(v[0, 0])

    @qd.kernel
    def row_slice() -> qd.i32:
        m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
        return m[1, :].sum()

    @qd.kernel
    def three_on_matrix(i: qd.i32):
        m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
        print(m[i, 0, 0])

    _raises(row, qd.QuadrantsCompilationError, "Expected 2 indices, got 1")
    _raises(two_on_vector, qd.QuadrantsCompilationError, "Expected 1 indices, got 2")
    _raises(three_on_matrix, IndexError, "Expected 2 indices, got 3", 0)
    assert row_slice() == 15


def test_vector_transpose_and_trace_errors():
    @qd.kernel
    def transpose():
        z = qd.Vector([1, 2]) @ qd.Vector([3, 4]).transpose()

    @qd.kernel
    def trace():
        print(qd.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]]).trace())

    _raises(transpose, ValueError, r"write `a.outer_product\(b\)` instead")
    _raises(trace, qd.QuadrantsCompilationError, r"expected a square matrix, got shape \(3, 2\)")
    with pytest.raises(qd.QuadrantsCompilationError, match=r"expected a square matrix, got shape \(3, 2\)"):
        qd.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]]).trace()


def test_operator_functions_on_kernel_values():
    r = qd.Vector.field(2, dtype=qd.i32, shape=3)
    a, b = qd.Vector([1, 2]), qd.Vector([5, 7])

    @qd.kernel
    def k():
        r[0] = operator.add(a, b)
        r[1] = qd.lang.ops.sub(b, a)
        r[2] = qd.lang.ops.add(r[0], qd.static([a, b])[1])

    k()
    assert r.to_numpy().tolist() == [[6, 9], [4, 5], [11, 16]]


def test_python_scope_max_of_a_vector_is_a_vector():
    assert isinstance(qd.max(4, qd.Vector([3, 4, 5])), qd.Vector)
    assert qd.min(3, 1, 2) == 1


# --- qd.zero / qd.one / qd.math.fns ------------------------------------------------------------------------------
def test_zero_and_one_keep_type_and_shape():
    @qd.kernel
    def k(x: qd.u32) -> qd.u32:
        z = qd.zero(x)
        for i in range(3):
            z += qd.one(x)
        return z

    @qd.kernel
    def v() -> qd.math.vec3:
        return qd.one(qd.math.vec3(4.0, 5.0, 6.0)) * 2

    assert k(7) == 3
    assert v().to_list() == [2.0, 2.0, 2.0]


def _fns_reference(mask, base, offset):
    if offset == 0:
        return base if base < 32 and (mask >> base) & 1 else 0xFFFFFFFF
    positions = range(base, 32) if offset > 0 else range(min(base, 31), -1, -1)
    hits = [p for p in positions if (mask >> p) & 1]
    return hits[abs(offset) - 1] if len(hits) >= abs(offset) else 0xFFFFFFFF


def test_fns_finds_the_nth_set_bit():
    @qd.kernel
    def fns(mask: qd.u32, base: qd.u32, offset: qd.i32) -> qd.u32:
        return qd.math.fns(mask, base, offset)

    for mask in (0, 0xFFFFFFFF, 1, 0x80000000, 0xAAAAAAAA, 0x12345678):
        for base in (0, 4, 31):
            for offset in (-2, -1, 0, 1, 3):
                assert fns(mask, base, offset) == _fns_reference(mask, base, offset), (mask, base, offset)


# --- containers -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [2**31, 1.5, (1, 0.5), (1, 2**31), -1])
def test_invalid_ndarray_shapes(shape):
    with pytest.raises(qd.QuadrantsRuntimeError, match="is not a valid shape for ndarray"):
        qd.ndarray(qd.i32, shape=shape)


def test_num_compiled_functions_counts_specializations():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.types.vector(), ndim=1)):
        for I in qd.grouped(x):
            x[I] = 1.0

    k(qd.ndarray(qd.math.vec3, 3))
    assert impl.get_runtime().get_num_compiled_functions() == 1
    k(qd.ndarray(qd.math.vec3, 5))  # the shape is not part of the signature
    assert impl.get_runtime().get_num_compiled_functions() == 1
    k(qd.ndarray(qd.math.vec2, 3))
    assert impl.get_runtime().get_num_compiled_functions() == 2


# --- funcs ---------------------------------------------------------------------------------------------------------
def test_returns_ending_the_branches_of_a_static_if_need_no_return_type():
    @qd.func
    def pick(x, mode: qd.template()):  # no return annotation: one branch is compiled, and its return ends it
        if qd.static(mode == 0):
            return x + 1
        elif qd.static(mode == 1):
            y = x * 2
            return y
        else:
            return x - 1

    @qd.func
    def early(x, mode: qd.template()):  # a static if that does not end the body keeps the early-return flag
        if qd.static(mode == 0):
            return
        x[0] = 5

    @qd.kernel
    def k(out: qd.types.ndarray()):
        out[0] = pick(10, 0)
        out[1] = pick(10, 1)
        out[2] = pick(10, 2)
        early(out, 0)
        early(out, 1)

    out = np.zeros(3, np.int32)
    k(out)
    assert out.tolist() == [5, 20, 9]

    @qd.func
    def runtime_branch(x):
        if x > 0:
            return x
        return -x

    @qd.kernel
    def bad(x: qd.i32) -> qd.i32:
        return runtime_branch(x)

    with pytest.raises(qd.QuadrantsSyntaxError, match="Return inside non-static if/for"):
        bad(3)


# --- debug checks --------------------------------------------------------------------------------------------------
def test_integer_pow_with_a_negative_exponent_fails_in_debug_mode():
    qd.init(arch=qd.cpu, debug=True)
    z = qd.field(qd.i32, shape=())

    @qd.kernel
    def power(x: qd.i32, y: qd.template()):
        z[None] = x**y

    @qd.kernel
    def returned(x: qd.i64, y: qd.i64) -> qd.i64:
        return x**y

    power(10, 2)
    assert z[None] == 100
    assert returned(3, 4) == 81
    for call in (lambda: power(10, -10), lambda: returned(2, -1)):
        with pytest.raises(qd.QuadrantsRuntimeError, match=r"Negative exponent in pow\(int, int\) is not allowed"):
            call()

    @qd.kernel
    def floats(x: qd.f32, y: qd.f32) -> qd.f32:
        return x**y

    assert floats(2.0, -1.0) == 0.5  # only integer powers are checked
    qd.init(arch=qd.cpu)

    @qd.kernel
    def release(x: qd.i32, y: qd.i32) -> qd.i32:
        return x**y

    assert release(2, -1) == 0  # release mode: 0, as documented


def test_a_star_argument_of_a_func_call_must_come_last():
    """Upstream lines a @qd.func's arguments up with its parameters before pruning, so `*seq` must be the call's
    last argument with no keyword argument after it (QuadrantsSyntaxError, error code STARNOTLAST)."""
    @qd.func
    def second(a, b, c):
        return b

    @qd.data_oriented
    class Holder:
        @qd.func
        def second(self, a, b, c):
            return b

    pair, holder = [5, 7], Holder()

    @qd.kernel
    def middle() -> qd.i32:
        return second(*pair, 1)

    @qd.kernel
    def before_keyword() -> qd.i32:
        return second(*pair, c=1)

    @qd.kernel
    def method_middle() -> qd.i32:
        return holder.second(*pair, 1)

    @qd.kernel
    def last() -> qd.i32:
        return second(1, *pair) + holder.second(9, *pair)

    @qd.kernel
    def python_call() -> qd.i32:  # only @qd.func calls have the rule: a vector takes *seq anywhere
        v = qd.Vector([*pair, 1])
        return v[1]

    _raises(middle, qd.QuadrantsSyntaxError, r"argument 1 is \*pair and 1 positional argument\(s\) follow it "
            r"\(error code: STARNOTLAST\)")
    _raises(before_keyword, qd.QuadrantsSyntaxError, r"argument 1 is \*pair and a keyword argument follows it "
            r"\(error code: STARNOTLAST\)")
    _raises(method_middle, qd.QuadrantsSyntaxError, "STARNOTLAST")
    assert last() == 5 + 5
    assert python_call() == 7
