# tests/python/test_ndarray_api.py: upstream's ndarray classes qd.ScalarNdarray, qd.VectorNdarray and
# qd.MatrixNdarray (constructors, element_type, get_type(), n/m, copies, deepcopy, pickling, gradients).
import copy
import pickle

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _runtime():
    qd.init(arch=qd.cpu)


def test_each_factory_makes_the_class_of_its_elements():
    assert type(qd.ndarray(qd.f32, shape=4)) is qd.ScalarNdarray
    assert type(qd.ndarray(qd.types.vector(3, qd.i32), shape=(2, 2))) is qd.VectorNdarray
    assert type(qd.ndarray(qd.types.matrix(3, 4, float), shape=2)) is qd.MatrixNdarray
    assert type(qd.Vector.ndarray(3, qd.f32, 4)) is qd.VectorNdarray
    assert type(qd.Matrix.ndarray(2, 2, qd.f32, 4)) is qd.MatrixNdarray
    for cls in (qd.ScalarNdarray, qd.VectorNdarray, qd.MatrixNdarray):
        assert issubclass(cls, qd.Ndarray)


def test_upstream_constructors_take_sizes_dtype_and_shape():
    s = qd.ScalarNdarray(qd.i32, (3, 4))
    v = qd.VectorNdarray(3, qd.f32, (2, 5))
    m = qd.MatrixNdarray(2, 3, qd.f64, 7)
    assert (s.shape, s.element_shape, s.dtype) == ((3, 4), (), qd.i32)
    assert (v.shape, v.element_shape, v.n, v.dtype) == ((2, 5), (3,), 3, qd.f32)
    assert (m.shape, m.element_shape, m.n, m.m, m.dtype) == ((7,), (2, 3), 2, 3, qd.f64)
    assert v.to_numpy().shape == (2, 5, 3) and m.to_numpy().shape == (7, 2, 3)


def test_element_type_is_the_vector_type_and_upstreams_tensor_type():
    v = qd.ndarray(qd.types.vector(3, qd.i32), shape=(10, 10))
    m = qd.ndarray(qd.types.matrix(3, 4, float), shape=(10, 11))
    assert v.element_type.element_type() == qd.i32 and v.element_type.shape() == [3]
    assert m.element_type.element_type() == qd.f32 and m.element_type.shape() == [3, 4]
    assert v.element_type == qd.types.vector(3, qd.i32) and v.element_type.shape == (3,)
    assert m.element_type == qd.types.matrix(3, 4, qd.f32) and (m.element_type.n, m.element_type.m) == (3, 4)
    assert qd.ndarray(qd.u8, shape=2).element_type is qd.u8


def test_element_type_annotates_a_kernel_parameter():
    x = qd.Vector.ndarray(2, qd.f32, 3)

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=x.element_type, ndim=1)):
        for i in a:
            a[i] = [i, -i]

    fill(x)
    assert x.to_numpy().tolist() == [[0, 0], [1, -1], [2, -2]]


def test_get_type_and_gradient_queries():
    a = qd.Vector.ndarray(3, qd.f32, (4,), needs_grad=True)
    record = a.get_type()
    assert record.element_type == qd.types.vector(3, qd.f32) and record.shape == (4,)
    assert record.needs_grad and record.layout == qd.Layout.AOS
    assert a.has_grad() and not a.has_dual() and type(a.grad) is qd.VectorNdarray
    b = qd.MatrixNdarray(2, 2, qd.f32, 3, needs_dual=True)
    assert not b.has_grad() and b.has_dual() and b.dual.element_shape == (2, 2)
    assert not qd.ScalarNdarray(qd.f32, 2).get_type().needs_grad
    assert qd.ndarray(qd.f32, 2).layout is None


def test_fill_copy_from_and_numpy_round_trips_of_vector_and_matrix_ndarrays():
    v = qd.Vector.ndarray(3, qd.f32, 2)
    data = np.array([[0, 0, 0], [1, 1, 1]], dtype=np.float32)
    v.from_numpy(data)
    assert (v.to_numpy() == data).all()
    w = qd.VectorNdarray(3, qd.f32, 2)
    w.copy_from(v)
    assert (w.to_numpy() == data).all()
    m = qd.Matrix.ndarray(2, 2, qd.i32, 3)
    m.fill(4)
    m[1] = [[1, 2], [3, 4]]
    assert m.to_numpy().tolist() == [[[4, 4], [4, 4]], [[1, 2], [3, 4]], [[4, 4], [4, 4]]]
    m.fill([[5, 6], [7, 8]])
    assert (m.to_numpy() == [[5, 6], [7, 8]]).all()


@pytest.mark.parametrize("make", [
    lambda: qd.ScalarNdarray(qd.f32, (2, 3)),
    lambda: qd.VectorNdarray(3, qd.i32, 4),
    lambda: qd.MatrixNdarray(2, 3, qd.f64, (2, 2)),
])
def test_deepcopy_and_pickle_keep_the_class_and_the_data(make):
    a = make()
    a.from_numpy(np.arange(a.to_numpy().size).reshape(a.to_numpy().shape).astype(a.dtype.numpy))
    for b in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert type(b) is type(a) and b.shape == a.shape and b.element_shape == a.element_shape
        assert (b.to_numpy() == a.to_numpy()).all()
    b = copy.deepcopy(a)
    b.fill(0)
    assert a.to_numpy().any()  # a copy, not a view


def test_kernels_take_the_upstream_classes():
    @qd.kernel
    def scale(v: qd.types.ndarray(), m: qd.types.ndarray(), s: qd.types.ndarray()):
        for i in v:
            v[i] = v[i] * 2.0
            m[i] = m[i] @ m[i]
            s[i] += 1

    v, m, s = qd.VectorNdarray(2, qd.f32, 2), qd.MatrixNdarray(2, 2, qd.f32, 2), qd.ScalarNdarray(qd.i32, 2)
    v.fill(1.5)
    m.fill([[1, 1], [0, 1]])
    scale(v, m, s)
    assert (v.to_numpy() == 3).all() and (m.to_numpy() == [[1, 2], [0, 1]]).all() and s.to_numpy().tolist() == [1, 1]


@pytest.mark.parametrize("make, message", [
    (lambda: qd.VectorNdarray(0, qd.f32, 3), r"qd.VectorNdarray\(\): n must be a positive int, but got 0 \(int\)"),
    (lambda: qd.MatrixNdarray(2, 2.5, qd.f32, 3), r"qd.MatrixNdarray\(\): m must be a positive int, but got 2.5 "
                                                  r"\(float\)"),
    (lambda: qd.Matrix.ndarray("2", 2, qd.f32, 3), r"qd.MatrixNdarray\(\): n must be a positive int, but got '2' "
                                                   r"\(str\)"),
    (lambda: qd.ndarray(qd.types.vector(0, qd.f32), 2), r"Vector/matrix dimensions must be positive ints, but got "
                                                        r"\(0,\)"),
])
def test_bad_sizes_are_errors_naming_the_argument(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_gradients_need_a_float_dtype():
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"i32 is not supported for ndarray with `needs_grad=True`"):
        qd.VectorNdarray(3, qd.i32, 2, needs_grad=True)
