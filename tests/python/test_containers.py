# tests/python/test_containers.py: fields and ndarrays: construction, shape/dtype, fill, copy_from, indexing.
import re

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# --- construction ----------------------------------------------------------------------------------
CONSTRUCTORS = {
    "field": (lambda shape: qd.field(qd.f32, shape=shape), ()),
    "vector field": (lambda shape: qd.Vector.field(3, qd.f32, shape=shape), (3,)),
    "matrix field": (lambda shape: qd.Matrix.field(2, 3, qd.f32, shape=shape), (2, 3)),
    "ndarray": (lambda shape: qd.ndarray(qd.f32, shape=shape), ()),
    "vector ndarray": (lambda shape: qd.Vector.ndarray(3, qd.f32, shape=shape), (3,)),
    "matrix ndarray": (lambda shape: qd.Matrix.ndarray(2, 3, qd.f32, shape=shape), (2, 3)),
}


@pytest.mark.parametrize("kind", sorted(CONSTRUCTORS))
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 1, 4)])
def test_new_containers_are_zero_with_the_given_shape(kind, shape):
    make, element_shape = CONSTRUCTORS[kind]
    x = make(shape)
    assert x.shape == shape
    assert x.dtype is qd.f32
    out = x.to_numpy()
    assert out.shape == shape + element_shape
    assert not out.any()


@pytest.mark.parametrize("kind", ["field", "vector field", "matrix field"])
@pytest.mark.parametrize("shape, dimension, extent", [(0, 0, 0), ((2, 0), 1, 0), ((3, -2), 1, -2)])
def test_fields_refuse_a_zero_or_negative_extent_as_upstream(kind, shape, dimension, extent):
    """Upstream's SNodes have no empty form: qd.field(shape=0) raises its QuadrantsRuntimeError, with its words."""
    shape_text = re.escape(repr(shape if isinstance(shape, tuple) else (shape,)))
    with pytest.raises(qd.QuadrantsRuntimeError, match=f"Every dimension of a Quadrants field should be positive, but "
                       f"qd.field\\(\\) got the shape {shape_text}, whose dimension {dimension} is {extent}"):
        CONSTRUCTORS[kind][0](shape)
    with pytest.raises(qd.QuadrantsRuntimeError, match="Every dimension of a Quadrants field should be positive"):
        qd.Struct.field({"a": qd.f32}, shape=shape)


@pytest.mark.parametrize("shape", [0, (0,), (1, 0), (4, 0, 2), (-1,)])
def test_ndarray_refuses_a_zero_or_negative_extent_as_upstream(shape):
    shape_text = re.escape(repr(shape if isinstance(shape, tuple) else (shape,)))
    with pytest.raises(qd.QuadrantsRuntimeError, match=f"^{shape_text} is not a valid shape for ndarray: qd.ndarray"
                       r"\(\) needs every extent to be a positive int"):
        qd.ndarray(qd.f32, shape=shape)
    with pytest.raises(qd.QuadrantsRuntimeError, match="is not a valid shape for ndarray"):
        qd.ndarray(qd.math.vec3, shape=shape)  # an element type given to qd.ndarray() too, as upstream


@pytest.mark.parametrize("kind", ["vector ndarray", "matrix ndarray", "vec3.ndarray"])
def test_vector_and_matrix_ndarrays_take_a_zero_extent_as_upstream(kind):
    """Upstream checks the shape in qd.ndarray() only: its qd.Vector.ndarray(), qd.Matrix.ndarray() and
    vec3.ndarray() make empty arrays."""
    make, element_shape = CONSTRUCTORS.get(kind, (lambda shape: qd.math.vec3.ndarray(shape), (3,)))
    x = make((2, 0))
    assert x.shape == (2, 0) and x.to_numpy().shape == (2, 0) + element_shape


def test_zero_size_arrays_are_kernel_arguments_as_upstream():
    torch = pytest.importorskip("torch")

    @qd.kernel
    def rows(a: qd.types.ndarray(), b: qd.types.ndarray()) -> qd.i32:
        return a.shape[0] + b.shape[0]

    assert rows(np.zeros((3, 0), np.float32), torch.zeros(0)) == 3


def test_integer_shape_means_one_dimension():
    assert qd.field(qd.i32, shape=7).shape == (7,)
    assert qd.ndarray(qd.i32, shape=np.int64(7)).shape == (7,)
    assert qd.field(qd.i32, shape=[2, 3]).shape == (2, 3)


def test_field_without_shape_is_placed_later():
    # As upstream: qd.field(dtype) has no storage until placed; qd.root.place(x) makes it 0-d.
    x = qd.field(qd.f64)
    with pytest.raises(qd.QuadrantsRuntimeError, match="not placed"):
        x[None] = 2.5
    qd.root.place(x)
    assert x.shape == ()
    x[None] = 2.5
    assert x[None] == 2.5


def test_positional_dtype_and_shape_as_in_the_seed():
    m = qd.Matrix.field(3, 2, qd.f32, (4,))
    assert (m.shape, m.n, m.m) == ((4,), 3, 2)
    v = qd.Vector.field(2, qd.i32, (5, 6))
    assert (v.shape, v.n) == ((5, 6), 2)
    assert qd.Vector.ndarray(3, qd.f32, (2,)).element_shape == (3,)
    assert qd.Matrix.ndarray(3, 2, qd.f32, (2,)).element_shape == (3, 2)


@pytest.mark.parametrize(
    "shape, error, message",
    [
        ((-1,), ValueError, r"should be positive, but qd.field\(\) got the shape \(-1,\), whose dimension 0 is -1"),
        ("ab", TypeError, r"qd.field\(\): shape must be an int or a tuple of ints, but got 'ab'"),
        ((2.0,), TypeError, r"shape must be an int or a tuple of ints, but got \(2.0,\)"),
        ((True,), TypeError, r"shape must be an int or a tuple of ints, but got \(True,\)"),
    ],
)
def test_bad_shapes_are_rejected_with_the_shape_given(shape, error, message):
    with pytest.raises(error, match=message):
        qd.field(qd.f32, shape=shape)


def test_bad_element_dimensions_are_rejected():
    with pytest.raises(ValueError, match=r"dimensions must be positive ints, but got \(0,\)"):
        qd.Vector.field(0, qd.f32, shape=3)
    with pytest.raises(ValueError, match=r"dimensions must be positive ints, but got \(2, -1\)"):
        qd.Matrix.field(2, -1, qd.f32, shape=3)


def test_unknown_field_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unexpected keyword argument.*colour"):
        qd.field(qd.f32, shape=3, colour="red")


def test_field_name_option_is_kept():
    assert qd.field(qd.f32, shape=3, name="density").name == "density"


def test_repr_names_kind_dtype_and_shapes():
    assert repr(qd.Vector.field(3, qd.i16, shape=(2,))) == "<qd.field i16 shape=(2,) element_shape=(3,)>"
    assert repr(qd.ndarray(qd.u8, shape=(4, 5))) == "<qd.ndarray u8 shape=(4, 5) element_shape=()>"


# --- fill ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dtype, value, expected",
    [
        (qd.f32, 1.25, 1.25),
        (qd.f16, 1.5, 1.5),
        (qd.f64, 3, 3.0),
        (qd.i32, 2.7, 2),  # a scalar takes C's truncation, as in Quadrants
        (qd.i8, -5, -5),
        (qd.u16, 65535, 65535),
        (qd.u1, True, True),
        (qd.i64, np.int64(-(2**40)), -(2**40)),
        (qd.f32, np.float32(0.5), 0.5),
    ],
)
def test_fill_sets_every_element(dtype, value, expected):
    x = qd.ndarray(dtype, shape=(3, 2))
    x.fill(value)
    assert x.to_numpy().tolist() == [[expected] * 2] * 3


def test_fill_sets_every_component_of_vector_and_matrix_fields():
    v = qd.Vector.field(3, qd.f32, shape=(2,))
    v.fill(4.0)
    assert (v.to_numpy() == 4.0).all()
    m = qd.Matrix.field(2, 2, qd.i32, shape=(2, 2))
    m.fill(-1)
    assert (m.to_numpy() == -1).all()


def test_fill_of_an_empty_container_is_a_no_op():
    x = qd.Vector.ndarray(3, qd.f32, shape=0)  # qd.ndarray() refuses a zero extent, as upstream
    x.fill(1.0)
    assert x.to_numpy().shape == (0, 3)


def test_fill_with_a_non_number_names_dtype_and_type():
    with pytest.raises(TypeError, match="Expected a number to store into a f32 array, but got str"):
        qd.field(qd.f32, shape=2).fill("one")


# --- copy_from -------------------------------------------------------------------------------------
def test_copy_from_between_fields_and_ndarrays():
    src = qd.field(qd.f32, shape=(2, 3))
    src.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    dst = qd.ndarray(qd.f32, shape=(2, 3))
    dst.copy_from(src)
    assert dst.to_numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    back = qd.field(qd.f64, shape=(2, 3))
    back.copy_from(dst)  # f32 -> f64 is same_kind
    assert back.to_numpy().dtype == np.float64
    assert back.to_numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_copy_from_vector_fields_copies_every_component():
    src = qd.Vector.field(3, qd.i32, shape=(2,))
    src.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3))
    dst = qd.Vector.ndarray(3, qd.i64, shape=(2,))
    dst.copy_from(src)
    assert dst.to_numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_copy_from_leaves_the_source_unchanged():
    src = qd.ndarray(qd.f32, shape=4)
    src.fill(7.0)
    dst = qd.ndarray(qd.f32, shape=4)
    dst.copy_from(src)
    dst.fill(0.0)
    assert src.to_numpy().tolist() == [7.0] * 4


def test_copy_from_shape_mismatch_names_both_shapes():
    message = r"copy_from: shape mismatch: the destination has shape \(2,\) but the source has shape \(3,\)"
    with pytest.raises(ValueError, match=message):
        qd.ndarray(qd.f32, shape=2).copy_from(qd.field(qd.f32, shape=3))


def test_copy_from_element_shape_mismatch_is_a_shape_mismatch():
    with pytest.raises(ValueError, match=r"destination has shape \(2, 3\) but the source has shape \(2, 2\)"):
        qd.Vector.field(3, qd.f32, shape=2).copy_from(qd.Vector.field(2, qd.f32, shape=2))


def test_copy_from_an_unsafe_dtype_names_both_dtypes():
    with pytest.raises(TypeError, match=r"copy_from: cannot convert f32 data into a i32 array.*same_kind"):
        qd.ndarray(qd.i32, shape=2).copy_from(qd.field(qd.f32, shape=2))


def test_copy_from_a_non_container_is_a_type_error():
    with pytest.raises(TypeError, match="copy_from\\(\\) expects a qd.field or qd.ndarray, but got ndarray"):
        qd.ndarray(qd.f32, shape=2).copy_from(np.zeros(2, np.float32))


# --- Python-scope indexing -------------------------------------------------------------------------
def test_scalar_read_and_write():
    x = qd.field(qd.f32, shape=(3, 4))
    x[1, 2] = 3.5
    x[2, 3] = -1
    assert x[1, 2] == 3.5
    assert x[2, 3] == -1.0
    assert isinstance(x[0, 0], float)
    expected = np.zeros((3, 4), np.float32)
    expected[1, 2], expected[2, 3] = 3.5, -1
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_one_dimensional_index_needs_no_tuple():
    x = qd.ndarray(qd.i32, shape=5)
    x[4] = 9
    assert x[4] == 9
    assert isinstance(x[4], int)


def test_zero_dimensional_containers_use_none():
    for x in (qd.field(qd.i32, shape=()), qd.ndarray(qd.i32, shape=())):
        x[None] = 7
        assert x[None] == 7
        assert x.to_numpy().shape == ()
        assert x.to_numpy() == 7


def test_numpy_integers_are_valid_indices():
    x = qd.field(qd.f32, shape=4)
    x[np.int64(2)] = 1.0
    assert x[np.int32(2)] == 1.0


@pytest.mark.parametrize(
    "dtype, stored, read",
    [
        (qd.i8, -128, -128),
        (qd.i32, 2.9, 2),  # floats truncate toward zero, like a C cast
        (qd.u8, 255, 255),
        (qd.u1, 1, True),
        (qd.f16, 1e6, float("inf")),
        (qd.f64, np.float32(0.25), 0.25),
        (qd.i64, -(2**63), -(2**63)),
    ],
)
def test_element_writes_convert_like_c(dtype, stored, read):
    x = qd.ndarray(dtype, shape=1)
    x[0] = stored
    assert x[0] == read


@pytest.mark.parametrize(
    "dtype, stored",
    [(qd.i8, 300), (qd.u8, -1), (qd.i32, 2**40), (qd.u64, -1), (qd.i32, float("nan")), (qd.i64, 1e20)],
)
def test_element_writes_that_do_not_fit_are_refused(dtype, stored):
    x = qd.ndarray(dtype, shape=1)
    with pytest.raises(ValueError, match=f"does not fit in {dtype.name}"):
        x[0] = stored
    with pytest.raises(ValueError, match=f"does not fit in {dtype.name}"):
        x.fill(stored)
    assert x[0] == 0


def test_numpy_integer_scalars_are_stored_exactly():
    x = qd.ndarray(qd.i64, shape=2)
    x.fill(np.int64(2**53 + 1))
    x[1] = np.int64(2**62 + 1)
    assert x.to_numpy().tolist() == [2**53 + 1, 2**62 + 1]
    u = qd.ndarray(qd.u64, shape=1)
    u[0] = np.uint64(2**64 - 1)
    assert u[0] == 2**64 - 1


def test_u64_elements_take_values_above_int64_max():
    x = qd.ndarray(qd.u64, shape=2)
    x[0] = 2**64 - 1
    x.fill(2**63)
    assert x.to_numpy().tolist() == [2**63, 2**63]


def test_u64_elements_read_back_above_int64_max():
    x = qd.ndarray(qd.u64, shape=1)
    x.from_numpy(np.array([2**64 - 1], np.uint64))
    assert x[0] == 2**64 - 1


def test_vector_elements_read_and_write_whole_vectors():
    v = qd.Vector.field(3, qd.f32, shape=(2,))
    v[0] = [1, 2, 3]
    v[1] = qd.Vector([4, 5, 6])
    assert isinstance(v[0], qd.Vector)
    assert v[0] == [1, 2, 3]
    assert v[1][2] == 6.0
    assert v.to_numpy().tolist() == [[1, 2, 3], [4, 5, 6]]


def test_vector_components_by_full_index():
    v = qd.Vector.ndarray(3, qd.i32, shape=(2,))
    v[1, 2] = 8
    assert v[1, 2] == 8
    assert v.to_numpy().tolist() == [[0, 0, 0], [0, 0, 8]]


def test_matrix_elements_read_and_write():
    m = qd.Matrix.field(2, 3, qd.f64, shape=(2,))
    m[1] = [[1, 2, 3], [4, 5, 6]]
    assert isinstance(m[1], qd.Matrix)
    assert m[1].to_list() == [[1, 2, 3], [4, 5, 6]]
    assert m[1][1, 0] == 4.0
    m[0] = qd.Matrix([[7, 8, 9], [10, 11, 12]])
    assert m.to_numpy()[0].tolist() == [[7, 8, 9], [10, 11, 12]]


def test_zero_dimensional_vector_field_uses_none():
    v = qd.Vector.field(2, qd.f32, shape=())
    v[None] = [1.5, 2.5]
    assert v[None] == [1.5, 2.5]
    assert v.to_numpy().tolist() == [1.5, 2.5]


def test_vector_element_of_the_wrong_size_names_both_shapes():
    v = qd.Vector.field(3, qd.f32, shape=(2,))
    with pytest.raises(ValueError, match=r"Expected an element of shape \(3,\), but got \(2,\)"):
        v[0] = [1, 2]


@pytest.mark.parametrize("index", [(3, 0), (0, 4), (-1, 0), (0, -5)])
def test_out_of_range_index_names_index_and_shape(index):
    x = qd.field(qd.f32, shape=(3, 4))
    text = rf"Index \({index[0]}, {index[1]}\) is out of bounds for shape \(3, 4\)"
    with pytest.raises(IndexError, match=text):
        x[index]
    with pytest.raises(IndexError, match=text):
        x[index] = 1.0


def test_out_of_range_vector_index_names_index_and_shape():
    v = qd.Vector.ndarray(3, qd.f32, shape=(2,))
    with pytest.raises(IndexError, match=r"Index \(2, 0\) is out of bounds for shape \(2, 3\)"):
        v[2]
    with pytest.raises(IndexError, match=r"Index \(0, 3\) is out of bounds for shape \(2, 3\)"):
        v[0, 3]


def test_wrong_number_of_indices_names_the_shape():
    x = qd.field(qd.f32, shape=(3, 4))
    with pytest.raises(IndexError, match=r"Expected 2 indices for shape \(3, 4\), but got 1"):
        x[1]
    with pytest.raises(IndexError, match=r"Expected 2 indices for shape \(3, 4\), but got 3"):
        x[1, 2, 3] = 0


def test_non_integer_index_is_a_type_error():
    x = qd.ndarray(qd.f32, shape=(3, 4))
    with pytest.raises(TypeError, match="ndarray indices must be integers, but got 0.5"):
        x[0.5, 1]
    with pytest.raises(TypeError, match="field indices must be integers, but got slice"):
        qd.field(qd.f32, shape=3)[0:2]


def test_writing_a_non_number_names_dtype_and_type():
    with pytest.raises(TypeError, match="Expected a number to store into a i32 array, but got str"):
        qd.ndarray(qd.i32, shape=2)[0] = "1"


def test_fields_pickle_with_values_offset_name_and_gradient():
    import pickle

    f = qd.field(qd.f32, (2, 3), offset=(-1, 0), needs_grad=True, name="x")
    f.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    f.grad.fill(2)
    g = pickle.loads(pickle.dumps(f))
    assert isinstance(g, qd.ScalarField) and g.name == "x" and g.shape == (2, 3)
    np.testing.assert_array_equal(g.to_numpy(), f.to_numpy())
    assert g[-1, 2] == 2 and g.grad.to_numpy().tolist() == [[2] * 3] * 2
    v = qd.Vector.field(3, qd.i32, 4)
    v.from_numpy(np.arange(12, dtype=np.int32).reshape(4, 3))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(v)).to_numpy(), v.to_numpy())
    t = qd.tensor(qd.f32, (3, 4), backend=qd.Backend.FIELD, layout=(1, 0))
    assert pickle.loads(pickle.dumps(t)).layout == (1, 0)


def test_sparse_fields_refuse_to_pickle():
    import pickle

    p = qd.field(qd.f32)
    qd.root.pointer(qd.i, 4).place(p)
    with pytest.raises(TypeError, match="lives under pointer, bitmasked or dynamic SNodes"):
        pickle.dumps(p)
