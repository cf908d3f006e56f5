# tests/python/test_vector_args_returns.py: vector and matrix kernel parameters passed by value, and
# kernels and funcs returning vectors, matrices, structs and tuples of them, checked against numpy.
import typing

import numpy as np
import pytest
from pytest import approx

import quadrants as qd
from quadrants.base.errors import QuadrantsCompilationError, QuadrantsSyntaxError


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


# --- parameters -----------------------------------------------------------------------------------
def test_matrix_parameter_from_every_kind_of_value():
    @qd.kernel
    def k(m: qd.types.matrix(2, 3, qd.i32), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i, j in qd.ndrange(2, 3):
            out[i, j] = m[i, j] * 10 + i

    expected = np.arange(6, dtype=np.int32).reshape(2, 3) * 10 + np.arange(2)[:, None]
    for value in (qd.Matrix([[0, 1, 2], [3, 4, 5]]), [[0, 1, 2], [3, 4, 5]], ((0, 1, 2), (3, 4, 5)),
                  np.arange(6).reshape(2, 3), np.arange(6, dtype=np.int16).reshape(2, 3), list(range(6)),
                  np.arange(12).reshape(2, 6)[:, ::2] // 2):
        out = np.zeros((2, 3), np.int32)
        k(value, out)
        np.testing.assert_array_equal(out, expected, err_msg=repr(value))


def test_vector_parameters_with_typed_and_default_dtypes():
    @qd.kernel
    def k(a: qd.types.vector(3, qd.f64), b: qd.math.vec3, n: qd.i32, c: qd.math.ivec2,
          out: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(3):
            out[i] = a[i] * b[i] + n + c[i % 2]

    out = np.zeros(3)
    a, b, c = np.array([0.5, 1.5, 2.5]), np.array([2.0, 4.0, 8.0], np.float32), np.array([10, 20])
    k(qd.Vector(a), tuple(b.tolist()), 3, c, out)
    np.testing.assert_allclose(out, a * b + 3 + c[np.arange(3) % 2])


def test_a_vector_parameter_is_a_copy_the_kernel_may_change():
    @qd.kernel
    def k(var: qd.i32, mat: qd.types.matrix(3, 2, qd.i32)) -> qd.i32:
        res = mat
        for i in qd.static(range(3)):
            for j in qd.static(range(2)):
                res[i, j] += var
        mat[0, 0] = 100
        return res[2, 1] + mat[0, 0]

    m = qd.Matrix([[1, 2], [3, 4], [5, 6]])
    assert k(3, m) == 109
    assert m[0, 0] == 1


def test_vector_parameters_beside_arrays_and_templates():
    x = qd.field(qd.f32, shape=4)

    @qd.kernel
    def k(f: qd.template(), shift: qd.math.vec2, arr: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in f:
            f[i] = arr[i] * shift[0] + shift[1]

    arr = np.arange(4, dtype=np.float32)
    k(x, qd.math.vec2(2, 1), arr)
    np.testing.assert_allclose(x.to_numpy(), arr * 2 + 1)
    k(x, [3.0, 0.0], arr)
    np.testing.assert_allclose(x.to_numpy(), arr * 3)


def test_wrong_vector_arguments_name_the_parameter():
    @qd.kernel
    def k(v: qd.types.vector(3, qd.i32)) -> qd.i32:
        return v[0]

    with pytest.raises(TypeError, match=r"Kernel 'k' argument 'v': expected a 3-vector of i32"):
        k([1, 2])
    with pytest.raises(TypeError, match=r"Kernel 'k' argument 'v': expected a 3-vector of i32"):
        k(7)
    with pytest.raises(TypeError, match=r"argument 'v': expected an integer for i32, but got the float 1.5"):
        k([1.5, 2, 3])
    with pytest.raises(TypeError, match=r"argument 'v': expected integers for i32, but got float data"):
        k(np.zeros(3))
    with pytest.raises(ValueError, match=r"argument 'v': 4294967296 does not fit in i32"):
        k([2**32, 0, 0])
    assert k(np.array([7, 8, 9], np.uint8)) == 7


def test_vector_parameter_in_the_ir_is_one_scalar_per_entry():
    @qd.kernel
    def k(m: qd.math.mat2) -> qd.f32:
        return m[1, 0]

    text = k.ir((("vector", "f32", (2, 2)),))
    assert "(scalar m__0 f32) (scalar m__1 f32) (scalar m__2 f32) (scalar m__3 f32)" in text
    assert "(returns f32)" in text


# --- returns --------------------------------------------------------------------------------------
def test_vector_and_matrix_returns_are_qd_values_of_the_annotated_dtype():
    @qd.kernel
    def vec() -> qd.types.vector(3, qd.i32):
        return qd.Vector([1, 2, 3])

    @qd.kernel
    def mat(x: qd.f32) -> qd.types.matrix(2, 3, qd.i16):
        return qd.Matrix([[1, 2, 3], [4, 5, 6]]) * x

    @qd.kernel
    def default_fp() -> qd.math.vec2:
        return qd.Vector([0.5, 1])

    v = vec()
    assert isinstance(v, qd.Vector) and (v == qd.Vector([1, 2, 3])).all()
    assert v.to_numpy().dtype == np.int32
    m = mat(2.0)
    assert isinstance(m, qd.Matrix) and m.to_numpy().dtype == np.int16
    np.testing.assert_array_equal(m.to_numpy(), [[2, 4, 6], [8, 10, 12]])
    d = default_fp()
    assert d.to_numpy().dtype == np.float32 and d.to_numpy().tolist() == [0.5, 1.0]


def test_u64_and_bool_entries_keep_their_values():
    @qd.kernel
    def k() -> qd.types.vector(2, qd.u64):
        return qd.Vector([qd.u64(2**64 - 1), qd.u64(5)])

    assert k()[0] == 2**64 - 1 and k()[1] == 5


def test_a_returned_vector_of_1024_entries_filled_in_a_loop():
    vec1024 = qd.types.vector(1024, qd.i32)

    @qd.kernel
    def k() -> vec1024:
        ret = vec1024(0)
        for i in range(1024):
            ret[i] = i
        return ret

    np.testing.assert_array_equal(k().to_numpy(), np.arange(1024))


def test_returned_vector_computed_from_parameters():
    @qd.kernel
    def k(a: qd.math.vec3, b: qd.math.vec3) -> qd.math.vec3:
        return a.cross(b) + qd.math.normalize(b)

    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.0, 3.0, 4.0])
    np.testing.assert_allclose(k(a, b).to_numpy(), np.cross(a, b) + b / np.linalg.norm(b), rtol=1e-6)


@pytest.mark.parametrize("spelling", ["tuple", "typing", "parenthesized"])
def test_tuple_returns_of_scalars_vectors_and_matrices(spelling):
    items = (qd.i32, qd.math.vec2, qd.f32, qd.types.matrix(2, 2, qd.i32))
    annotation = {"tuple": tuple[items], "typing": typing.Tuple[items], "parenthesized": items}[spelling]

    @qd.kernel
    def k(a: qd.f32) -> annotation:
        return 7, qd.math.vec2(a, 2 * a), a * 3, qd.Matrix([[1, 2], [3, 4]])

    n, v, f, m = k(1.5)
    assert n == 7 and isinstance(n, int)
    assert v.to_numpy().tolist() == [1.5, 3.0]
    assert f == approx(4.5)
    np.testing.assert_array_equal(m.to_numpy(), [[1, 2], [3, 4]])


def test_tuple_of_scalars_returns_a_plain_tuple_with_each_value_cast():
    @qd.kernel
    def k(a: qd.f32) -> (qd.i32, qd.f32, qd.u1):
        return a, a, a > 1

    assert k(2.5) == (2, 2.5, True)


def test_struct_returns_nest_vectors():
    s0 = qd.types.struct(a=qd.math.vec3, b=qd.i16)
    s1 = qd.types.struct(a=qd.f32, b=s0)

    @qd.kernel
    def k() -> s1:
        return s1(a=1, b=s0(a=qd.math.vec3([100, 0.2, 3]), b=65537))

    @qd.kernel
    def pair() -> tuple[qd.f32, s0]:
        return 1, s0(a=qd.math.vec3([100, 0.2, 3]), b=65537)

    ret = k()
    assert ret.a == approx(1)
    assert [ret.b.a[i] for i in range(3)] == approx([100, 0.2, 3])
    assert ret.b.b == 1  # 65537 wraps in i16
    ret_a, ret_b = pair()
    assert ret_a == approx(1) and ret_b.a[0] == approx(100) and ret_b.b == 1


def test_funcs_return_tuples_vectors_and_early_tuples():
    @qd.func
    def split(x) -> (qd.i32, qd.math.vec2):
        if x > 0:
            return 1, qd.math.vec2(x, x * 2)
        return -1, qd.math.vec2(0, 0)

    @qd.func
    def pair(x):
        return x, x + 1

    @qd.kernel
    def k(x: qd.f32) -> (qd.i32, qd.math.vec2, qd.i32, qd.i32):
        sign, v = split(x)
        a, b = pair(sign)
        return sign, v, a, b

    sign, v, a, b = k(2.0)
    assert (sign, a, b) == (1, 1, 2) and v.to_numpy().tolist() == [2.0, 4.0]
    sign, v, a, b = k(-1.0)
    assert (sign, a, b) == (-1, -1, 0) and v.to_numpy().tolist() == [0.0, 0.0]


def test_returns_on_parallel_kernels_after_a_loop():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.math.vec2:
        lo, hi = 1e30, -1e30
        for i in range(x.shape[0]):
            qd.atomic_min(lo, x[i])
            qd.atomic_max(hi, x[i])
        return qd.math.vec2(lo, hi)

    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    np.testing.assert_allclose(k(x).to_numpy(), [x.min(), x.max()])


# --- errors ---------------------------------------------------------------------------------------
def test_return_type_mismatches_are_compilation_errors():
    @qd.kernel
    def scalar_for_vector() -> qd.i32:
        return qd.math.vec3([1, 2, 3])

    @qd.kernel
    def wrong_shape() -> qd.math.vec4:
        return qd.math.vec3([1, 2, 3])

    @qd.kernel
    def wrong_count() -> (qd.i32, qd.i32):
        return 1

    for k, message in ((scalar_for_vector, "returns qd.i32, but the value is a 3-vector"),
                       (wrong_shape, "but the value is a 3-vector"),
                       (wrong_count, "returns 2 values")):
        with pytest.raises(QuadrantsCompilationError, match=message):
            k()


def test_missing_return_statements_use_upstreams_words():
    with pytest.raises(QuadrantsSyntaxError, match="Kernel has a return type but does not have a return statement"):
        @qd.kernel
        def k() -> qd.i32:
            pass

        k()

    @qd.func
    def f() -> qd.i32:
        pass

    @qd.kernel
    def calls_f() -> qd.i32:
        return f()

    with pytest.raises(QuadrantsCompilationError, match="Function has a return type but does not have a return"):
        calls_f()


def test_a_return_that_qd_static_prunes_is_no_return_statement():
    @qd.kernel
    def maybe(out: qd.types.ndarray(qd.i32, ndim=1), give: qd.template()) -> bool:
        out[0] = 3
        if qd.static(give):
            return True

    out = qd.ndarray(qd.i32, (1,))
    assert maybe(out, True)
    with pytest.raises(QuadrantsSyntaxError, match="Kernel has a return type but does not have a return statement"):
        maybe(out, False)


def test_unreturnable_annotation_is_reported_at_decoration():
    with pytest.raises(QuadrantsCompilationError, match="which kernels cannot return"):
        @qd.kernel
        def k() -> qd.types.ndarray():
            return 1
