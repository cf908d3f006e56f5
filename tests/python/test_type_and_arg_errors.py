# tests/python/test_type_and_arg_errors.py: upstream's type rules for unary operators (compile errors) and its
# exception classes and first words for array arguments that do not fit their annotation, bounds errors and
# ndarrays passed as templates, each keeping our own account of what was expected and given.
import numpy as np
import pytest

import quadrants as qd
from quadrants.base.errors import InvalidArgumentValueError, QuadrantsOutOfBoundError


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


# Unary operators: floor/ceil/round and sin/cos/tan/asin/acos/tanh take floats; not/~ take integers.


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "sin", "cos", "tan", "asin", "acos", "tanh"])
def test_real_only_math_on_an_integer_is_a_type_error(op):
    fn = getattr(qd, op)

    @qd.kernel
    def k(x: qd.i32) -> qd.f32:
        return fn(x)

    with pytest.raises(qd.QuadrantsTypeError, match=f"'{op}' takes real inputs only, but was given i32"):
        k(1)


def test_real_only_math_accepts_a_cast_integer_and_floats():
    @qd.kernel
    def k(x: qd.i32, y: qd.f64) -> qd.f64:
        return qd.floor(qd.cast(x, qd.f32)) + qd.sin(y) + qd.round(y)

    assert k(3, 0.0) == 3.0


def test_promoting_math_still_takes_integers():
    @qd.kernel
    def k(x: qd.i32) -> qd.f32:
        return qd.sqrt(x) + qd.exp(x * 0) + qd.log(x) * 0 + qd.atan(x) * 0

    assert k(4) == pytest.approx(3.0)


def test_python_constants_fold_without_the_kernel_rule():
    @qd.kernel
    def k() -> qd.f32:
        return qd.floor(2) + qd.sin(0)

    assert k() == 2.0


def test_not_on_a_float_is_a_type_error():
    @qd.kernel
    def k(x: qd.f32) -> qd.i32:
        return not x

    with pytest.raises(qd.QuadrantsTypeError, match="'not' takes integral inputs only, but was given f32"):
        k(1.0)


def test_not_on_integers_and_comparisons_stays_valid():
    @qd.kernel
    def k(x: qd.i32, y: qd.u8, z: qd.f32) -> qd.i32:
        return (not x) * 100 + (not y) * 10 + (not (z > 0.5))

    assert k(0, 3, 0.0) == 101
    assert k(2, 0, 1.0) == 10


def test_not_on_a_float_vector_is_a_type_error():
    @qd.kernel
    def k(x: qd.f32) -> qd.i32:
        v = qd.Vector([x, x])
        w = not v
        return w[0]

    with pytest.raises(qd.QuadrantsTypeError, match="takes integral inputs only"):
        k(1.0)


# Array arguments: upstream's words first ("Invalid value for argument ..."), then kernel, argument and detail.
# The exception is a ValueError (upstream) and a TypeError (ours before).


@qd.kernel
def vec2_param(a: qd.types.NDArray[qd.types.vector(2, qd.i32), 2]):
    pass


@qd.kernel
def scalar_param(x: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    pass


@qd.kernel
def mat3_param(arr: qd.types.ndarray(dtype=qd.math.mat3, ndim=2)):
    pass


def test_a_container_of_other_elements_names_both_element_types():
    x = qd.Matrix.ndarray(2, 3, qd.i32, shape=(4, 7))
    with pytest.raises(InvalidArgumentValueError) as info:
        vec2_param(x)
    assert str(info.value) == (
        "Invalid value for argument a - required element type: VectorType[2, i32], but [Tensor (2, 3) i32] is "
        "provided: Kernel 'vec2_param' argument 'a': expected elements of shape (2,) of i32, but got a container of "
        "matrices [Tensor (2, 3) i32].")
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_an_annotation_error_names_the_kernel_by_its_qualified_name():
    @qd.kernel
    def local_vec2(a: qd.types.NDArray[qd.types.vector(2, qd.i32), 2]):
        pass

    with pytest.raises(ValueError, match=r"Kernel 'test_an_annotation_error_names_the_kernel_by_its_qualified_name"
                                         r"\.<locals>\.local_vec2' argument 'a'"):
        local_vec2(qd.Matrix.ndarray(2, 3, qd.i32, shape=(4, 7)))


def test_a_vector_container_of_another_dtype_is_an_element_type_error():
    with pytest.raises(ValueError, match=r"required element type: VectorType\[2, i32\], but \[Tensor \(2\) f32\]"):
        vec2_param(qd.Vector.ndarray(2, qd.f32, shape=(4, 7)))


def test_a_qd_ndarray_of_another_dtype_says_expect_element_type():
    y = qd.ndarray(qd.types.vector(3, qd.i32), shape=(12, 4))
    with pytest.raises(TypeError, match=r"^Expect element type f32 for argument x, but get \[Tensor \(3\) i32\]: "
                                        r"Kernel 'scalar_param' argument 'x': expected dtype f32, but got i32"):
        scalar_param(y)
    with pytest.raises(TypeError, match="Expect element type f32 for argument x, but get i32"):
        scalar_param(qd.ndarray(qd.i32, shape=(2, 2)))


def test_a_qd_ndarray_with_other_dims_names_its_shape():
    with pytest.raises(ValueError, match=r"^Invalid value for argument x - required ndim=2, but 1d ndarray with "
                                         r"shape \(3,\) is provided: Kernel 'scalar_param' argument 'x'"):
        scalar_param(qd.ndarray(qd.f32, shape=(3,)))


def test_external_arrays_use_upstreams_array_wording():
    with pytest.raises(ValueError, match=r"^Invalid value for argument x - required array has dtype=f32, array "
                                         r"with dtype=i64 is provided: .*\(numpy.ndarray\)"):
        scalar_param(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match=r"^Invalid value for argument x - required array has ndim=2, array with 4 "
                                         r"dimensions is provided"):
        scalar_param(np.zeros((2, 2, 3, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"^Invalid value for argument arr - required array has ndim=2 "
                                         r"element_dim=2, array with 3 dimensions is provided"):
        mat3_param(np.zeros((2, 2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"^Invalid value for argument arr - required element_shape=\(3, 3\), array "
                                         r"with element shape of \(2, 3\) is provided"):
        mat3_param(np.zeros((2, 2, 2, 3), dtype=np.float32))
    mat3_param(np.zeros((2, 2, 3, 3), dtype=np.float32))  # fits


def test_a_foreign_array_for_a_matrix_annotation_keeps_its_own_dtype_as_upstream():
    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.math.mat2)):
        for i in range(a.shape[0]):
            for j, k in qd.ndrange(2, 2):
                a[i][j, k] = j * j + k * k + i

    ints = np.zeros((3, 2, 2), dtype=np.int32)
    fill(ints)  # specialized on i32, as upstream: only the element shape is checked
    assert ints.dtype == np.int32 and ints[2].tolist() == [[2, 3], [3, 4]]
    with pytest.raises(InvalidArgumentValueError, match=r"required element type: MatrixType\[2,2, f32\], but "
                                                        r"\[Tensor \(2, 2\) i32\] is provided"):
        fill(qd.Matrix.ndarray(2, 2, qd.i32, shape=3))  # a qd.ndarray's dtype is still checked


def test_element_dim_annotations_reject_the_other_element_kind():
    @qd.kernel
    def fill(x: qd.types.NDArray[qd.types.matrix(), 1]):
        for I in qd.grouped(x):
            x[I] = 1.0

    fill(qd.ndarray(qd.math.mat2, 3))
    with pytest.raises(ValueError, match=r"Invalid value for argument x - required element type: a matrix type, but "
                                         r"\[Tensor \(2\) f32\] is provided"):
        fill(qd.ndarray(qd.math.vec2, 3))


# Bounds errors in debug mode: upstream's QuadrantsAssertionError and words, still an IndexError.


def test_out_of_bounds_is_an_assertion_and_an_index_error():
    qd.init(arch=qd.cpu, debug=True)

    @qd.kernel
    def read(a: qd.types.ndarray(), i: qd.i32) -> qd.f32:
        return a[i]

    with pytest.raises(QuadrantsOutOfBoundError) as info:
        read(np.zeros(4, np.float32), 4)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, IndexError)
    assert isinstance(info.value, qd.QuadrantsAssertionError)
    assert str(info.value) == ("Out of bound access: Kernel 'read': index (4,) is out of bounds for 'a' of shape (4,) "
                               "in dimension 0.")


# Templates: an ndarray is a runtime argument.


def test_an_ndarray_passed_as_a_template_is_rejected():
    @qd.kernel
    def copy(src: qd.template(), dst: qd.template()):
        for i in range(3):
            dst[i] = src[i]

    a = qd.ndarray(qd.f32, shape=(3,))
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match=r"Ndarray shouldn't be passed in via `qd.template\(\)`: "
                                                           r"kernel 'copy' parameter 'src'"):
        copy(a, a)
    f = qd.field(qd.f32, shape=3)
    g = qd.field(qd.f32, shape=3)
    copy(f, g)  # fields still are templates


def test_parallel_sort_still_sorts_an_ndarray():
    keys = qd.ndarray(qd.i32, shape=(5,))
    keys.from_numpy(np.array([3, 1, 4, 1, 5], np.int32))
    qd.algorithms.parallel_sort(keys)
    np.testing.assert_array_equal(keys.to_numpy(), [1, 1, 3, 4, 5])
