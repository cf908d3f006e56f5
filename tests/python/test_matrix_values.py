# tests/python/test_matrix_values.py: Python-scope qd.Vector/qd.Matrix values, vector/matrix element types
# (qd.types.vector/matrix, qd.math.vec3...) and the vector/matrix container API, checked against numpy.
import operator
import pickle

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def assert_value(value, expected, cls=None):
    """value is a qd.Vector/qd.Matrix whose entries and dtype are numpy's `expected`."""
    expected = np.asarray(expected)
    assert isinstance(value, cls or (qd.Vector if expected.ndim == 1 else qd.Matrix))
    got = value.to_numpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# --- construction -------------------------------------------------------------------------------
def test_vector_and_matrix_take_numpy_dtypes_by_default_and_dt_when_given():
    assert_value(qd.Vector([1, 2, 3]), np.array([1, 2, 3]))
    assert_value(qd.Vector([1.5, 2]), np.array([1.5, 2.0]))
    assert_value(qd.Vector([1.7, -2.7], qd.i32), np.array([1, -2], np.int32))
    assert_value(qd.Matrix([[1, 2], [3, 4]], qd.f32), np.array([[1, 2], [3, 4]], np.float32))
    assert_value(qd.Matrix(np.eye(2, dtype=np.float16)), np.eye(2, dtype=np.float16))
    assert_value(qd.Vector([1, 2], float), np.array([1, 2], np.float32))  # default_fp
    assert_value(qd.Vector([1, 2], int), np.array([1, 2], np.int32))  # default_ip


def test_python_type_dtypes_follow_the_defaults_of_init():
    qd.init(default_fp=qd.f64, default_ip=qd.i64)
    assert_value(qd.Vector([1, 2], float), np.array([1, 2], np.float64))
    assert_value(qd.math.vec2(1, 2), np.array([1, 2], np.float64))
    assert_value(qd.math.ivec2(1, 2), np.array([1, 2], np.int64))


def test_construction_copies_another_value():
    v = qd.Vector([1, 2, 3])
    w = qd.Vector(v)
    w[0] = 9
    assert v.to_list() == [1, 2, 3]
    assert_value(qd.Matrix(qd.Matrix([[1, 2]]), qd.f64), np.array([[1.0, 2.0]]))


def test_a_flat_list_given_to_matrix_is_vector_shaped():
    m = qd.Matrix([1, 2, 3])
    assert (m.n, m.m, m.ndim) == (3, 1, 1)
    assert m.get_shape() == (3,)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: qd.Vector([[1, 2], [3, 4]]), ValueError, r"qd.Vector\(\) takes a flat list of numbers, but got "
                                                          r"data of shape \(2, 2\)"),
        (lambda: qd.Matrix([[1, 2], [3]]), ValueError, r"rows of numbers of equal length"),
        (lambda: qd.Matrix([[[1]]]), ValueError, r"but got data of shape \(1, 1, 1\)"),
        (lambda: qd.Vector(["a", "b"]), TypeError, r"qd.Vector\(\) takes numbers, but got \['a', 'b'\]"),
        (lambda: qd.Vector(3), TypeError, r"takes a list, tuple or numpy array of numbers, but got int"),
        (lambda: qd.Matrix([qd.Vector([1, 2]), qd.Vector([3, 4])]), TypeError, r"qd.Matrix.rows"),
        (lambda: qd.Vector([1, 2], "f33"), TypeError, r"expected a dtype such as qd.f32, but got 'f33'"),
    ],
)
def test_bad_construction_names_what_was_given(make, error, message):
    with pytest.raises(error, match=message):
        make()


# --- typed constructors: qd.types.vector/matrix and qd.math -----------------------------------------
def test_math_types_construct_values_of_their_dtype():
    assert_value(qd.math.vec3(1, 2, 3), np.array([1, 2, 3], np.float32))
    assert_value(qd.math.vec2([1, 2]), np.array([1, 2], np.float32))
    assert_value(qd.math.vec4(qd.math.vec3(1, 2, 3), 4), np.array([1, 2, 3, 4], np.float32))
    assert_value(qd.math.ivec3(1.9, -2.9, 3), np.array([1, -2, 3], np.int32))
    assert_value(qd.math.uvec2(1, 2), np.array([1, 2], np.uint32))
    assert_value(qd.math.mat2([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], np.float32))
    assert_value(qd.math.mat2(1, 2, 3, 4), np.array([[1, 2], [3, 4]], np.float32))
    assert_value(qd.math.mat2([1, 2], [3, 4]), np.array([[1, 2], [3, 4]], np.float32))
    assert_value(qd.math.mat3(1), np.ones((3, 3), np.float32))  # every entry, as in Quadrants
    assert_value(qd.types.vector(2, qd.i16)(7), np.array([7, 7], np.int16))
    assert_value(qd.types.matrix(2, 3, qd.f64)(np.arange(6)), np.arange(6, dtype=np.float64).reshape(2, 3))


def test_typed_constructor_with_the_wrong_count_names_the_type():
    with pytest.raises(ValueError, match=r"qd.types.vector\(3, None\) needs 3 values, but got 2"):
        qd.math.vec3(1, 2)
    with pytest.raises(TypeError, match=r"takes numbers, vectors and lists of numbers, but got 'x' \(str\)"):
        qd.math.vec2(1, "x")


def test_vector_types_compare_by_shape_and_dtype():
    assert qd.types.vector(3, qd.f32) == qd.math.vec3  # no dtype means default_fp
    assert qd.types.vector(3, qd.f64) != qd.math.vec3
    assert qd.types.matrix(2, 2, qd.f32) == qd.math.mat2
    assert qd.math.ivec2 == qd.types.vector(2, qd.i32)
    assert qd.math.vec2 != qd.types.matrix(2, 1, qd.f32)
    assert (qd.math.mat3.n, qd.math.mat3.m, qd.math.mat3.ndim, qd.math.vec4.m) == (3, 3, 2, 1)


# --- arithmetic, checked against numpy ----------------------------------------------------------------
ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
              operator.pow]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]
OPERANDS = {
    "int vectors": (np.array([7, -3, 5]), np.array([2, 4, 3])),
    "float32 vectors": (np.array([1.5, -2.25, 3.0], np.float32), np.array([0.5, 4.0, -1.5], np.float32)),
    "float matrices": (np.array([[1.5, 2.0], [3.0, -4.0]]), np.array([[2.0, 0.5], [-1.0, 3.0]])),
}


def _value(array):
    return qd.Vector(array) if array.ndim == 1 else qd.Matrix(array)


@pytest.mark.parametrize("op", ARITHMETIC, ids=lambda op: op.__name__)
@pytest.mark.parametrize("pair", OPERANDS.values(), ids=OPERANDS.keys())
def test_arithmetic_matches_numpy(op, pair):
    a, b = pair
    if op is operator.pow:
        b = np.abs(b)  # numpy refuses negative integer powers
    with np.errstate(all="ignore"):
        assert_value(op(_value(a), _value(b)), op(a, b))
        assert_value(op(_value(a), b.tolist()), op(a, b.tolist()))  # lists act as arrays of their shape
        assert_value(op(_value(a), 2), op(a, 2))
        assert_value(op(3, _value(b)), op(3, b))


@pytest.mark.parametrize("op", BITWISE, ids=lambda op: op.__name__)
def test_bitwise_operators_on_integer_vectors(op):
    a, b = np.array([12, 5, 7]), np.array([3, 1, 2])
    assert_value(op(qd.Vector(a), qd.Vector(b)), op(a, b))
    assert_value(op(qd.Vector(a), 1), op(a, 1))


def test_unary_operators_match_numpy():
    a = np.array([[1.5, -2.0], [0.0, 3.0]], np.float32)
    assert_value(-qd.Matrix(a), -a)
    assert_value(abs(qd.Matrix(a)), np.abs(a))
    assert_value(+qd.Matrix(a), a)
    assert_value(~qd.Vector([1, 2]), ~np.array([1, 2]))


def test_in_place_operators_give_new_values():
    v = qd.Vector([1, 2])
    alias = v
    v += qd.Vector([10, 20])
    v *= 2
    assert v.to_list() == [22, 44]
    assert alias.to_list() == [1, 2]


def test_operands_of_different_shapes_are_an_error():
    with pytest.raises(ValueError, match=r"'\+' needs operands of the same shape \(or a number\), but got a "
                                         r"3-vector and a 2-vector"):
        qd.Vector([1, 2, 3]) + qd.Vector([1, 2])
    with pytest.raises(ValueError, match=r"'\*' needs .* but got a 2x2 matrix and a 2-vector"):
        qd.Matrix([[1, 2], [3, 4]]) * [1, 2]
    with pytest.raises(TypeError):
        qd.Vector([1, 2]) + "ab"


def test_matmul_matches_numpy():
    m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v2, v3 = np.array([1.0, -1.0]), np.array([2.0, 0.5, -1.0])
    assert_value(qd.Matrix(m) @ qd.Vector(v3), m @ v3)
    assert_value(qd.Vector(v2) @ qd.Matrix(m), v2 @ m)
    assert_value(qd.Matrix(m) @ qd.Matrix(m.T), m @ m.T)
    assert_value(qd.Matrix(m) @ m.T.tolist(), m @ m.T)
    assert qd.Vector(v3) @ qd.Vector(v3) == pytest.approx(v3 @ v3)
    with pytest.raises(ValueError, match=r"'@' cannot multiply a 2x3 matrix by a 2-vector: 3 columns against 2 rows"):
        qd.Matrix(m) @ qd.Vector(v2)


# --- comparisons ----------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne],
                         ids=lambda op: op.__name__)
def test_comparisons_are_element_wise(op):
    a, b = np.array([1, 5, 3]), np.array([2, 5, 1])
    assert_value(op(qd.Vector(a), qd.Vector(b)), op(a, b))
    assert_value(op(qd.Vector(a), 3), op(a, 3))
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert_value(op(qd.Matrix(m), 2.5), op(m, 2.5))


def test_equality_is_true_when_every_entry_is_equal():
    v = qd.Vector([1, 2, 3])
    assert v == [1, 2, 3]
    assert v == qd.Vector([1.0, 2.0, 3.0])
    assert not (v == [1, 2, 4])
    assert v != [1, 2, 4]
    assert not (v != [1, 2, 3])
    assert (v == [1, 0, 3]).to_list() == [True, False, True]
    assert (v == [1, 0, 3]).any() and not (v == [1, 0, 3]).all()
    assert all(v == qd.Vector([1, 2, 3]))
    assert v in [qd.Vector([0, 0, 0]), qd.Vector([1, 2, 3])]


def test_values_of_different_shapes_are_unequal():
    assert (qd.Vector([1, 2]) == qd.Vector([1, 2, 3])) is False
    assert (qd.Vector([1, 2]) != qd.Matrix([[1, 2]])) is True


def test_ordering_results_have_no_truth_value():
    with pytest.raises(ValueError, match=r"The truth value of a 2-vector is ambiguous: use .any\(\) or .all\(\)"):
        bool(qd.Vector([1, 2]) < qd.Vector([2, 3]))
    assert (qd.Vector([1, 2]) < qd.Vector([2, 3])).all()


# --- methods --------------------------------------------------------------------------------------
def test_conversions():
    m = qd.Matrix([[1, 2], [3, 4]], qd.i16)
    assert m.to_list() == [[1, 2], [3, 4]]
    assert m.to_numpy().dtype == np.int16
    assert np.asarray(m).tolist() == [[1, 2], [3, 4]]
    assert list(m) == [[1, 2], [3, 4]]
    assert list(qd.Vector([4, 5])) == [4, 5]
    assert len(m) == 2
    assert m.entries.shape == (2, 2)
    assert_value(m.cast(qd.f32), np.array([[1, 2], [3, 4]], np.float32))
    assert str(qd.Vector([1, 2])) == "[1 2]"
    assert repr(qd.Matrix([[1, 2]])) == "Matrix([[1, 2]])"
    assert pickle.loads(pickle.dumps(m)) == m


def test_indexing_and_assignment():
    m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
    assert m[1, 2] == 6 and isinstance(m[1, 2], int)
    assert m[-1, 0] == 4
    assert m[0].to_list() == [1, 2, 3]
    m[0, 1] = 20
    m[1] = [7, 8, 9]
    m[:, 2] = 0
    assert m.to_list() == [[1, 20, 0], [7, 8, 0]]
    v = qd.Vector([1.0, 2.0, 3.0, 4.0])
    assert_value(v[1:3], np.array([2.0, 3.0]))
    with pytest.raises(IndexError, match=r"a 4-vector takes at most 1 indices, but got \(0, 0\)"):
        v[0, 0]


def test_swizzles_on_plain_values():
    v = qd.Vector([1, 2, 3, 4])
    assert (v.x, v.w, v.r, v.a, v.s, v.q) == (1, 4, 1, 4, 1, 4)
    assert v.zyx.to_list() == [3, 2, 1]
    v.y = 20
    v.zw = (30, 40)
    assert v.to_list() == [1, 20, 30, 40]
    with pytest.raises(AttributeError, match=r"Swizzles such as '.x' are for vectors, but this is a 2x2 matrix"):
        qd.Matrix([[1, 2], [3, 4]]).x
    with pytest.raises(ValueError, match=r"value len does not match the swizzle pattern=xy: swizzle 'xy' takes 2 "
                                         r"values, but got 3"):  # also upstream's QuadrantsRuntimeError
        v.xy = (1, 2, 3)
    with pytest.raises(qd.QuadrantsRuntimeError):
        v.xy = (1, 2, 3)


def test_vector_methods_match_numpy():
    a, b = np.array([3.0, 4.0, 12.0], np.float32), np.array([1.0, -2.0, 0.5], np.float32)
    v, w = qd.Vector(a), qd.Vector(b)
    assert v.dot(w) == pytest.approx(np.dot(a, b))
    assert_value(v.cross(w), np.cross(a, b))
    assert qd.Vector([1, 2]).cross(qd.Vector([3, 4])) == -2
    assert v.norm() == pytest.approx(13.0)
    assert v.norm_sqr() == pytest.approx(169.0)
    assert v.norm_inv() == pytest.approx(1 / 13)
    assert v.norm(eps=25) == pytest.approx(np.sqrt(194))
    assert_value(v.normalized(), a / 13)
    assert_value(v.outer_product(qd.Vector([1.0, 2.0], qd.f32)), np.outer(a, np.float32([1.0, 2.0])))
    assert (v.sum(), v.max(), v.min()) == (19.0, 12.0, 3.0)
    assert qd.Vector([0, 0, 1]).any() and not qd.Vector([0, 0, 1]).all()
    assert np.sum(v) == 19.0 and np.max(v) == 12.0


def test_matrix_methods_match_numpy():
    a = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 2.0], [0.0, 1.0, 4.0]])
    m = qd.Matrix(a)
    assert_value(m.transpose(), a.T)
    assert_value(m.T, a.T)
    assert m.trace() == pytest.approx(np.trace(a))
    assert m.determinant() == pytest.approx(np.linalg.det(a))
    assert_value(m.inverse(), np.linalg.inv(a))
    assert m.frobenius_inner(m) == pytest.approx(np.sum(a * a))
    big = np.arange(16).reshape(4, 4) ** 2
    assert qd.Matrix(big).determinant() == round(np.linalg.det(big))  # exact for integers
    assert qd.Matrix([[1, 2], [3, 4]]).determinant() == -2
    m.fill(7)
    assert m.to_list() == [[7.0] * 3] * 3


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: qd.Vector([1, 2]).transpose(), ValueError, r"`transpose\(\)` cannot apply to a vector"),
        (lambda: qd.Vector([1, 2]).dot(qd.Vector([1, 2, 3])), ValueError,
         r"dot\(\) needs two vectors of the same length, but got a 2-vector and a 3-vector"),
        (lambda: qd.Vector([1, 2, 3, 4]).cross(qd.Vector([1, 2, 3, 4])), ValueError,
         r"cross\(\) needs two 2-vectors or two 3-vectors, but got a 4-vector and a 4-vector"),
        (lambda: qd.Matrix([[1, 2]]).normalized(), ValueError, r"normalized\(\) needs a vector, but got a 1x2 matrix"),
        (lambda: qd.Matrix([[1, 2, 3], [4, 5, 6]]).determinant(), ValueError,
         r"determinant\(\) needs a square matrix, but got a 2x3 matrix"),
        (lambda: qd.Vector([1, 2]).inverse(), ValueError, r"inverse\(\) needs a square matrix, but got a 2-vector"),
        (lambda: qd.Vector([1, 2]).dot("ab"), TypeError, r"dot\(\) needs a vector, but got str"),
    ],
)
def test_bad_method_operands_name_both_shapes(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_numpy_functions_and_numpy_operands_give_values():
    v = qd.Vector([1.0, 4.0, 9.0])
    assert_value(np.sqrt(v), np.array([1.0, 2.0, 3.0]))
    assert_value(qd.sqrt(v), np.array([1.0, 2.0, 3.0]))
    assert_value(np.float32(2) * qd.Vector([1, 2], qd.f32), np.array([2, 4], np.float32))
    assert_value(np.array([1.0, 1.0, 1.0]) + v, np.array([2.0, 5.0, 10.0]))
    assert np.array([1.0, 4.0, 9.0]) == v
    np.testing.assert_allclose(v, [1.0, 4.0, 9.0])


# --- constructors in Python scope -------------------------------------------------------------------
def test_static_constructors():
    assert_value(qd.Vector.zero(qd.f32, 3), np.zeros(3, np.float32))
    assert_value(qd.Matrix.zero(qd.i32, 2, 3), np.zeros((2, 3), np.int32))
    assert_value(qd.Matrix.one(qd.f64, 2, 2), np.ones((2, 2)))
    assert_value(qd.Vector.one(qd.i8, 2), np.ones(2, np.int8))
    assert_value(qd.Matrix.identity(qd.f32, 3), np.eye(3, dtype=np.float32))
    assert_value(qd.Vector.unit(3, 1), np.array([0, 1, 0], np.int32))
    assert_value(qd.Vector.unit(3, 2, qd.f32), np.array([0, 0, 1], np.float32))
    assert_value(qd.Matrix.diag(2, 5), np.array([[5, 0], [0, 5]]))
    rows = [qd.Vector([1, 2, 3]), [4, 5, 6]]
    assert_value(qd.Matrix.rows(rows), np.array([[1, 2, 3], [4, 5, 6]]))
    assert_value(qd.Matrix.cols(rows), np.array([[1, 4], [2, 5], [3, 6]]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: qd.Vector.zero(qd.f32, 0), r"qd.Matrix.zero\(dt, n, m\): n must be a positive int, but got 0"),
        (lambda: qd.Matrix.identity("f33", 2), r"qd.Matrix.identity\(dt, n\): expected a dtype such as qd.f32"),
        (lambda: qd.Vector.unit(3, 3), r"qd.Vector.unit\(n, i, dt\): i must be an int in \[0, 3\), but got 3"),
        (lambda: qd.Matrix.rows([qd.Vector([1, 2]), qd.Vector([1, 2, 3])]),
         r"qd.Matrix.rows\(\) needs vectors of the same length, but got lengths \[2, 3\]"),
        (lambda: qd.Matrix.cols([1, 2]), r"qd.Matrix.cols\(\) takes vectors or lists of numbers, but got 1 \(int\)"),
    ],
)
def test_bad_constructor_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


# --- element types and the vector/matrix container API ------------------------------------------------
CONTAINERS = {
    "field": qd.field,
    "ndarray": qd.ndarray,
    "type.field": lambda t, shape: t.field(shape=shape),
    "type.ndarray": lambda t, shape: t.ndarray(shape=shape),
}


@pytest.mark.parametrize("make", CONTAINERS.values(), ids=CONTAINERS.keys())
@pytest.mark.parametrize(
    "element_type, dtype, element_shape",
    [
        (qd.types.vector(3, qd.i16), qd.i16, (3,)),
        (qd.types.matrix(2, 3, qd.f64), qd.f64, (2, 3)),
        (qd.math.vec2, qd.f32, (2,)),
        (qd.math.ivec4, qd.i32, (4,)),
        (qd.math.uvec3, qd.u32, (3,)),
        (qd.math.mat3, qd.f32, (3, 3)),
    ],
)
def test_vector_and_matrix_element_types_make_containers(make, element_type, dtype, element_shape):
    x = make(element_type, (4, 2))
    assert x.shape == (4, 2)
    assert x.dtype is dtype
    assert (x.n, x.m) == (element_shape[0], element_shape[1] if len(element_shape) == 2 else 1)
    assert x.element_type == element_type
    assert x.to_numpy().shape == (4, 2) + element_shape
    assert x.to_numpy().dtype == dtype.numpy
    x[3, 1] = np.ones(element_shape)
    assert x[3, 1] == np.ones(element_shape)


def test_scalar_containers_have_their_dtype_as_element_type():
    assert qd.field(qd.f32, shape=2).element_type is qd.f32
    assert qd.ndarray(qd.i64, shape=2).element_type is qd.i64
    assert qd.Vector.ndarray(3, qd.f32, shape=2).element_type == qd.types.vector(3, qd.f32)


@pytest.mark.parametrize("kind", ["field", "ndarray"])
def test_to_numpy_keep_dims(kind):
    make = qd.Vector.field if kind == "field" else qd.Vector.ndarray
    v = make(3, qd.f32, shape=(2,))
    v.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert v.to_numpy().shape == (2, 3)
    assert v.to_numpy(keep_dims=True).shape == (2, 3, 1)
    v.from_numpy(np.zeros((2, 3, 1), np.float32))  # the keep_dims layout is accepted back
    assert v.to_numpy().sum() == 0
    m = (qd.Matrix.field if kind == "field" else qd.Matrix.ndarray)(2, 2, qd.f32, shape=(2,))
    assert m.to_numpy().shape == m.to_numpy(keep_dims=True).shape == (2, 2, 2)


@pytest.mark.parametrize("kind", ["field", "ndarray"])
def test_fill_with_numbers_vectors_and_matrices(kind):
    make_vector = qd.Vector.field if kind == "field" else qd.Vector.ndarray
    make_matrix = qd.Matrix.field if kind == "field" else qd.Matrix.ndarray
    v = make_vector(3, qd.i32, shape=(2, 2))
    v.fill(4)
    np.testing.assert_array_equal(v.to_numpy(), np.full((2, 2, 3), 4))
    v.fill(qd.Vector([1, 2, 3]))
    np.testing.assert_array_equal(v.to_numpy(), np.broadcast_to([1, 2, 3], (2, 2, 3)))
    v.fill([1.9, -2.9, 0])  # floats truncate toward zero, as for scalar writes
    np.testing.assert_array_equal(v.to_numpy()[1, 1], [1, -2, 0])
    m = make_matrix(2, 2, qd.f32, shape=3)
    m.fill(qd.Matrix([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(m.to_numpy(), np.broadcast_to([[1, 2], [3, 4]], (3, 2, 2)))
    m.fill([[0.5, 0], [0, 0.5]])
    assert m[2] == [[0.5, 0], [0, 0.5]]
    qd.Vector.ndarray(2, qd.f32, shape=(0, 3)).fill([1, 2])  # empty: nothing to do (fields cannot be empty)


def test_fill_errors_name_the_problem():
    v = qd.Vector.ndarray(2, qd.u8, shape=3)
    with pytest.raises(ValueError, match=r"fill\(\): 300 does not fit in u8"):
        v.fill([1, 300])
    with pytest.raises(ValueError, match=r"fill\(\): -1 does not fit in u8"):
        v.fill(qd.Vector([-1, 0]))
    with pytest.raises(ValueError, match=r"Expected an element of shape \(2,\), but got \(3,\)"):
        v.fill([1, 2, 3])
    assert v.to_numpy().sum() == 0


def test_copy_from_between_vector_fields_and_ndarrays():
    src = qd.field(qd.math.vec3, shape=3)
    src.fill(qd.Vector([1, 2, 3]))
    dst = qd.ndarray(qd.types.vector(3, qd.f64), shape=3)
    dst.copy_from(src)
    np.testing.assert_array_equal(dst.to_numpy(), np.broadcast_to([1.0, 2.0, 3.0], (3, 3)))
    with pytest.raises(ValueError, match="shape mismatch"):
        dst.copy_from(qd.field(qd.math.vec2, shape=3))


def test_bad_element_shapes_and_gradients_are_errors():
    with pytest.raises(ValueError, match=r"Vector/matrix dimensions must be positive ints, but got \(0,\)"):
        qd.ndarray(qd.types.vector(0, qd.f32), shape=2)
    assert qd.Vector.ndarray(3, qd.f32, shape=2, needs_grad=True).grad.to_numpy().shape == (2, 3)  # autodiff


def test_whole_element_augmented_assignment():
    a = qd.Vector.field(3, qd.i64, shape=2)
    a[1] = [1, 2, 3]
    a[1] += qd.Vector([10, 20, 30])
    a[0] -= 1
    m = qd.Matrix.ndarray(2, 2, qd.f32, shape=())
    m[None] = [[1, 2], [3, 4]]
    m[None] @= qd.Matrix([[0, 1], [1, 0]])
    assert a.to_numpy().tolist() == [[-1, -1, -1], [11, 22, 33]]
    assert m[None].to_list() == [[2, 1], [4, 3]]
    assert_value(a[1] * 2, np.array([22, 44, 66], np.int64))


# --- Python values inside kernels ---------------------------------------------------------------------
def test_python_values_are_constants_inside_kernels():
    offset = qd.Vector([1.0, 2.0, 3.0])
    scale = qd.Matrix([[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 4.0]])
    unit = qd.math.vec3(0, 0, 1)
    x = qd.Vector.field(3, qd.f32, shape=4)

    @qd.kernel
    def transform():
        for i in x:
            x[i] = scale @ (offset * i) + unit

    transform()
    expected = np.array([(np.diag([2.0, 3.0, 4.0]) @ (np.array([1.0, 2.0, 3.0]) * i)) + [0, 0, 1] for i in range(4)])
    np.testing.assert_allclose(x.to_numpy(), expected)


def test_element_read_in_python_is_a_constant_inside_kernels():
    source = qd.Vector.field(2, qd.i32, shape=1)
    source[0] = [5, 6]
    out = qd.ndarray(qd.math.ivec2, shape=2)
    element = source[0]

    @qd.kernel
    def copy_in(y: qd.types.ndarray(dtype=qd.math.ivec2, ndim=1)):
        for i in y:
            y[i] = element + i

    copy_in(out)
    assert out.to_numpy().tolist() == [[5, 6], [6, 7]]


def test_matrix_constructors_take_upstreams_keyword_names():
    @qd.kernel
    def build(out: qd.types.ndarray()):
        eye = qd.Matrix.identity(dt=qd.f32, n=3)
        zeros = qd.Vector.zero(dt=qd.f32, n=2)
        ones = qd.Matrix.one(dt=qd.f32, n=2, m=2)
        unit = qd.Vector.unit(3, 1, dt=qd.f32)
        out[0] = eye[1, 1] + eye[0, 1] + zeros[1] + ones[1, 0] * 10 + unit[1] * 100

    out = np.zeros(1, np.float32)
    build(out)
    assert out[0] == 111


def test_kernel_vectors_and_matrices_take_a_dtype_second_as_upstream():
    @qd.kernel
    def build(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        a = qd.Vector([1, 2, 3], qd.f32) / 2  # f32 entries: 0.5, not 0
        b = qd.Vector([1.5, 2.5, 3.5], qd.i32)  # truncated to 1, 2, 3
        m = qd.Matrix([[1, 2], [3, 4]], qd.f32)
        out[0] = a[0] + a[2] * 10 + b[1] * 100 + m[1, 0] * 1000 + qd.Vector([7.9], dt=qd.i32)[0] * 10000

    out = np.zeros(1, np.float32)
    build(out)
    assert out[0] == 0.5 + 15 + 200 + 3000 + 70000


def test_lists_store_into_vector_and_matrix_elements():
    m = qd.Matrix.field(2, 2, qd.i32, 3)
    v = qd.Vector.field(3, qd.f32, 2)

    @qd.func
    def fill(a: qd.template()):
        for i in range(3):
            a[i] = [[i, i + 1], [i + 2, i + 3]]

    @qd.kernel
    def run():
        fill(m)
        for i in range(2):
            v[i] = (1.0, i, 3)

    run()
    np.testing.assert_array_equal(m.to_numpy()[2], [[2, 3], [4, 5]])
    np.testing.assert_array_equal(v.to_numpy(), [[1, 0, 3], [1, 1, 3]])

    @qd.kernel
    def wrong_shape():
        v[0] = [1, 2]

    with pytest.raises(qd.QuadrantsTypeError, match=r"Cannot assign the list \[1, 2\] to a 3-vector target"):
        wrong_shape()


def test_assigning_a_vector_computed_from_its_own_entries_reads_them_all_first():
    """V = V @ J stored entry by entry used to read entries already overwritten (a silent wrong result)."""
    f = qd.Matrix.field(2, 2, qd.f64, shape=2)
    s_type = qd.types.struct(v=qd.types.vector(2, qd.f64))
    out = qd.Matrix.field(2, 2, qd.f64, shape=4)

    @qd.kernel
    def run(a: qd.types.ndarray(dtype=qd.types.matrix(2, 2, qd.f64), ndim=1)):
        W = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        for _ in qd.static(range(2)):
            W = W @ W  # W^4
        out[0] = W
        J = qd.Matrix([[0.6, 0.8], [-0.8, 0.6]])
        V = qd.Matrix.identity(qd.f64, 2)
        V = V @ J
        out[1] = V
        v = qd.Vector([1.0, 2.0])
        v = qd.Vector([v[1], v[0] + v[1]])
        s = s_type(v=qd.Vector([3.0, 4.0]))
        s.v = J @ s.v
        out[2] = qd.Matrix([[v[0], v[1]], [s.v[0], s.v[1]]])
        for i in range(2):
            f[i] = f[i] @ f[i]
            a[i] = a[i].transpose() @ a[i]

    f.from_numpy(np.array([[[1, 2], [3, 4]], [[0, 1], [1, 0]]], np.float64))
    a_np = np.array([[[1, 2], [3, 4]], [[2, 0], [1, 1]]], np.float64)
    a = qd.Matrix.ndarray(2, 2, qd.f64, 2)
    a.from_numpy(a_np)
    run(a)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    j = np.array([[0.6, 0.8], [-0.8, 0.6]])
    np.testing.assert_allclose(out.to_numpy()[0], np.linalg.matrix_power(m, 4))
    np.testing.assert_allclose(out.to_numpy()[1], j, atol=1e-6)  # J's literals are f32 (default_fp)
    np.testing.assert_allclose(out.to_numpy()[2], [[2, 3], j @ [3, 4]], atol=1e-6)
    np.testing.assert_allclose(f.to_numpy(), [m @ m, np.eye(2)])
    np.testing.assert_allclose(a.to_numpy(), [x.T @ x for x in a_np])


def test_uvec_types_follow_default_ip():
    assert qd.math.uvec2.dtype is qd.u32
    assert qd.math.uvec4(1, 2, 3, 4).to_numpy().dtype == np.uint32

    @qd.kernel
    def widest(x: qd.math.uvec2) -> qd.u64:
        v = qd.math.uvec2(qd.u64(2**63 + 5), 1)
        return qd.u64(v.x) + x.y

    qd.init(default_ip=qd.i64)  # default_up becomes u64: uvec types and kernels over them follow
    assert qd.math.uvec3.dtype is qd.u64
    assert qd.math.uvec3 == qd.types.vector(3, qd.u64)
    assert qd.math.uvec2.ndarray(shape=2).dtype is qd.u64
    assert widest(qd.math.uvec2(0, 2**40)) == 2**63 + 5 + 2**40


def test_swizzles_read_and_assign_inside_kernels():
    @qd.kernel
    def shuffle() -> qd.math.vec3:
        v = qd.math.vec3(0, 0, 0)
        v.brg += 1  # all three components, in another order
        v.x = 1
        v.g = 2
        v.p = 3  # stpq names the same components
        w = v.tps + v.xxz  # (2, 3, 1) + (1, 1, 3)
        v.bgr = w  # b = 3, g = 4, r = 4
        v.zy += qd.math.vec2(10, 20)
        return v

    assert shuffle().to_list() == [4, 24, 13]

    @qd.kernel
    def rotate() -> qd.types.vector(3, qd.i32):
        v = qd.Vector([1, 2, 3])
        v.zxy += [v.z, v.y, v.x]  # a list beside a vector is a vector; the right side reads v before the update
        return v

    assert rotate().to_list() == [3, 3, 6]

    @qd.kernel
    def too_long():
        b = qd.math.vec2(1, 2)
        b.xyz = [1, 2, 3]

    @qd.kernel
    def repeated():
        b = qd.math.vec2(1, 2)
        b.xx = [1, 2]

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"vec2 only has attributes=\('x', 'y'\), got=\('x', 'y', 'z'\)"):
        too_long()
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"Swizzle '.xx' names a component twice"):
        repeated()


def test_tolist_of_values_and_of_field_and_ndarray_elements():
    """tolist(), numpy's name for to_list(), which programs written for upstream's Python backend call."""
    qd.init(arch=qd.cpu)
    assert qd.Matrix([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    f = qd.Vector.field(3, qd.i32, shape=(2,))
    a = qd.Matrix.ndarray(2, 3, qd.i32, shape=(2,))
    f[1] = [5, 4, 3]
    a[1] = [[5, 4, 3], [2, 3, 4]]
    assert f[1].tolist() == [5, 4, 3] and a[1].tolist() == [[5, 4, 3], [2, 3, 4]]
