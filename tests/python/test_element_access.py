# tests/python/test_element_access.py: Python-scope element access on vector/matrix fields and ndarrays.
"""`x[i]` on a container of vectors or matrices reads and writes the container (issue 11, item 2):
`x[i][j] = v` used to change a detached copy and was silently lost."""

import copy
import pickle

import numpy as np
import pytest

import quadrants as qd

VECTORS = {
    "vector field": lambda dtype, shape: qd.Vector.field(3, dtype, shape=shape),
    "vector ndarray": lambda dtype, shape: qd.Vector.ndarray(3, dtype, shape=shape),
}
MATRICES = {
    "matrix field": lambda dtype, shape: qd.Matrix.field(2, 3, dtype, shape=shape),
    "matrix ndarray": lambda dtype, shape: qd.Matrix.ndarray(2, 3, dtype, shape=shape),
}


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


@pytest.mark.parametrize("make", VECTORS.values(), ids=VECTORS.keys())
def test_vector_component_assignment_writes_the_container(make):
    a = make(qd.i32, 4)
    a[1][2] = 7
    assert a[1][2] == 7
    assert a.to_numpy().tolist() == [[0, 0, 0], [0, 0, 7], [0, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("make", VECTORS.values(), ids=VECTORS.keys())
def test_vector_component_augmented_assignment(make):
    a = make(qd.f32, 2)
    a[0] = [1.0, 2.0, 3.0]
    a[0][1] += 0.5
    a[0][2] *= 2
    a[0][0] -= 3
    assert a.to_numpy().tolist() == [[-2.0, 2.5, 6.0], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize("make", VECTORS.values(), ids=VECTORS.keys())
def test_whole_vector_assignment(make):
    a = make(qd.i64, (2, 2))
    a[1, 0] = [1, 2, 3]
    a[0, 1] = qd.Vector([4, 5, 6])
    a[1, 1] = np.array([7, 8, 9])
    a[0, 0] = 2  # a number fills the element
    expected = np.zeros((2, 2, 3), np.int64)
    expected[1, 0] = [1, 2, 3]
    expected[0, 1] = [4, 5, 6]
    expected[1, 1] = [7, 8, 9]
    expected[0, 0] = 2
    np.testing.assert_array_equal(a.to_numpy(), expected)


@pytest.mark.parametrize("make", VECTORS.values(), ids=VECTORS.keys())
def test_swizzle_assignment_writes_the_container(make):
    a = make(qd.f32, 3)
    a[0].x = 1.5
    a[1].z = 2.5
    a[1].y += 4
    a[2].xz = (7, 8)
    a[2].b = 9  # rgba names the same components as xyzw
    assert a.to_numpy().tolist() == [[1.5, 0, 0], [0, 4, 2.5], [7, 0, 9]]
    assert a[1].z == 2.5
    assert a[2].zx.to_list() == [9, 7]


@pytest.mark.parametrize("make", VECTORS.values(), ids=VECTORS.keys())
def test_negative_component_index_counts_from_the_end(make):
    a = make(qd.i32, 1)
    a[0][-1] = 5
    assert a[0][2] == 5
    assert a[0][-1] == 5


@pytest.mark.parametrize("make", MATRICES.values(), ids=MATRICES.keys())
def test_matrix_entry_assignment_writes_the_container(make):
    m = make(qd.f64, 2)
    m[1][1, 2] = 4.0
    m[1][0, 0] += 1.5
    m[0][1, 1] -= 2
    expected = np.zeros((2, 2, 3))
    expected[1, 1, 2] = 4.0
    expected[1, 0, 0] = 1.5
    expected[0, 1, 1] = -2
    np.testing.assert_array_equal(m.to_numpy(), expected)
    assert m[1][1, 2] == 4.0


@pytest.mark.parametrize("make", MATRICES.values(), ids=MATRICES.keys())
def test_matrix_row_then_column_writes_the_container(make):
    m = make(qd.i32, ())
    m[None][1][2] = 6
    m[None][0][1] += 3
    assert m[None].to_list() == [[0, 3, 0], [0, 0, 6]]
    m[None][0] = [7, 8, 9]
    assert m[None].to_list() == [[7, 8, 9], [0, 0, 6]]


@pytest.mark.parametrize("make", MATRICES.values(), ids=MATRICES.keys())
def test_whole_matrix_assignment(make):
    m = make(qd.i32, (2,))
    m[0] = [[1, 2, 3], [4, 5, 6]]
    m[1] = qd.Matrix([[7, 8, 9], [10, 11, 12]])
    assert m.to_numpy().tolist() == [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]


@pytest.mark.parametrize("make", list(VECTORS.values()) + list(MATRICES.values()),
                         ids=list(VECTORS.keys()) + list(MATRICES.keys()))
def test_values_read_back_behave_like_plain_values(make):
    a = make(qd.i32, 2)
    shape = a[0].to_numpy().shape
    values = np.arange(np.prod(shape), dtype=np.int32).reshape(shape) + 1
    a[1] = values.tolist()
    element = a[1]
    cls = qd.Vector if len(shape) == 1 else qd.Matrix
    assert isinstance(element, cls)
    assert element == cls(values.tolist())
    assert element.to_list() == values.tolist()
    np.testing.assert_array_equal(element.to_numpy(), values)
    assert element.to_numpy().dtype == np.int32
    assert (element.n, element.m) == (shape[0], shape[1] if len(shape) == 2 else 1)
    assert len(element) == shape[0]
    assert [np.asarray(row).tolist() for row in element] == values.tolist()


def test_element_reads_see_later_writes():
    a = qd.Vector.field(2, qd.f32, shape=3)
    element = a[2]

    @qd.kernel
    def write(x: qd.template()):
        for i in x:
            x[i] = qd.Vector([i * 10.0, i + 0.5])

    write(a)
    assert element.to_list() == [20.0, 2.5]
    a[2][0] = -1
    assert element[0] == -1


def test_element_written_by_python_is_seen_by_kernels():
    a = qd.Vector.ndarray(3, qd.i32, shape=2)
    out = qd.ndarray(qd.i32, shape=2)
    a[1][1] = 4
    a[1].z = 5

    @qd.kernel
    def total(x: qd.types.ndarray(dtype=qd.types.vector(3, qd.i32), ndim=1), y: qd.types.ndarray()):
        for i in x:
            y[i] = x[i][0] + x[i][1] + x[i][2]

    total(a, out)
    assert out.to_numpy().tolist() == [0, 9]


def test_copies_are_detached():
    a = qd.Vector.field(2, qd.i32, shape=1)
    a[0] = [1, 2]
    snapshot = copy.copy(a[0])
    deep = copy.deepcopy(a[0])
    pickled = pickle.loads(pickle.dumps(a[0]))
    plain = qd.Vector(a[0])
    for value in (snapshot, deep, pickled, plain):
        value[1] = 50
    assert a[0].to_list() == [1, 2]
    assert type(snapshot) is qd.Vector and snapshot.to_list() == [1, 50]


def test_element_of_a_zero_dimensional_field_uses_none():
    v = qd.Vector.field(2, qd.f32, shape=())
    v[None][1] = 2.5
    v[None].x = 1.0
    assert v.to_numpy().tolist() == [1.0, 2.5]


def test_out_of_range_element_and_component_indices():
    a = qd.Vector.ndarray(3, qd.f32, shape=(2,))
    with pytest.raises(IndexError, match=r"Index \(2, 0\) is out of bounds for shape \(2, 3\)"):
        a[2]
    # upstream raises an AssertionError for a field read or written out of range in Python scope
    x = qd.field(qd.f32, shape=3)
    for index in (3, -1):
        with pytest.raises(AssertionError, match="out of bounds"):
            x[index]
        with pytest.raises(AssertionError, match="out of bounds"):
            x[index] = 1.0
    with pytest.raises(IndexError, match=r"Index \(3,\) is out of range for a 3-vector"):
        a[0][3] = 1
    m = qd.Matrix.field(2, 3, qd.f32, shape=(2,))
    with pytest.raises(IndexError, match=r"Index \(1, 3\) is out of range for a 2x3 matrix"):
        m[0][1, 3]
    with pytest.raises(IndexError, match=r"Row 2 is out of range for a 2x3 matrix"):
        m[0][2][0] = 1


def test_swizzle_outside_the_vector_reads_as_an_attribute_error_and_assigns_as_a_syntax_error():
    a = qd.Vector.field(2, qd.f32, shape=1)
    with pytest.raises(qd.QuadrantsSyntaxError,  # upstream's class and words
                       match=r"vec2 only has attributes=\('x', 'y'\), got=\('z',\): a 2-vector has components x, y"):
        a[0].z = 1
    with pytest.raises(AttributeError, match=r"a 2-vector has components x, y, but got '.xyz'"):
        a[0].xyz
    assert not hasattr(a[0], "z")


def test_integer_overflow_through_an_element_is_an_error():
    a = qd.Vector.ndarray(2, qd.i8, shape=1)
    with pytest.raises(ValueError, match=r"300 does not fit in i8"):
        a[0][1] = 300
    assert a[0].to_list() == [0, 0]


def test_element_after_reset_is_a_clear_error():
    a = qd.Vector.field(2, qd.f32, shape=1)
    element = a[0]
    qd.reset()
    with pytest.raises(RuntimeError):
        element[0] = 1.0
    with pytest.raises(RuntimeError):
        a[0]
