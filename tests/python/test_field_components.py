# tests/python/test_field_components.py: get_scalar_field(): components of vector/matrix fields as scalar fields.
"""A component of a placed vector/matrix field shares its storage (kernels and Python scope, either way);
components of a field without a shape can be placed one by one, and the field then reads and writes through
them, with runtime entry indices, in kernels and in Python scope (issue 12, upstream's get_scalar_field)."""

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_component_of_a_placed_vector_field_shares_storage():
    v = qd.Vector.field(3, qd.f32, shape=4)
    y = v.get_scalar_field(1)
    assert isinstance(y, qd.ScalarField) and y.shape == (4,) and y.dtype == qd.f32
    assert v.get_scalar_field(1) is y

    @qd.kernel
    def fill():
        for i in range(4):
            v[i] = [i, 10 * i, 100 * i]

    @qd.kernel
    def bump():
        for i in y:
            y[i] += 1

    fill()
    np.testing.assert_array_equal(y.to_numpy(), [0, 10, 20, 30])
    bump()
    np.testing.assert_array_equal(v.to_numpy()[:, 1], [1, 11, 21, 31])
    np.testing.assert_array_equal(v.to_numpy()[:, 0], [0, 1, 2, 3])  # the neighbours are untouched
    y[2] = -5
    assert list(v[2]) == [2, -5, 200]
    v[3] = [7, 8, 9]
    assert y[3] == 8


def test_component_of_a_matrix_field():
    m = qd.Matrix.field(2, 3, qd.i32, shape=(2, 2))
    m.fill(0)
    c = m.get_scalar_field(1, 2)
    c[1, 0] = 42
    assert m[1, 0][1, 2] == 42
    assert m.to_numpy().sum() == 42
    assert m.get_scalar_field(1) is m.get_scalar_field(1, 0)  # upstream: j defaults to 0


def test_component_keeps_offsets_and_sparse_activity():
    v = qd.Vector.field(2, qd.f32, shape=4, offset=-2)
    x = v.get_scalar_field(0)
    x[-2] = 3.0
    assert v[-2][0] == 3.0

    w = qd.Vector.field(2, qd.i32)
    block = qd.root.pointer(qd.i, 4).dense(qd.i, 4)
    block.place(w)
    second = w.get_scalar_field(1)

    @qd.kernel
    def write():
        second[5] = 9  # activates the cell holding 4..7

    @qd.kernel
    def visited() -> qd.i32:
        count = 0
        for i in w:
            count += 1
        return count

    write()
    assert visited() == 4
    assert w[5][1] == 9 and w[5][0] == 0


def test_component_of_a_fields_builder_field_gets_storage_on_finalize():
    fb = qd.FieldsBuilder()
    v = qd.Vector.field(2, qd.f32)
    fb.dense(qd.i, 3).place(v)
    x = v.get_scalar_field(1)
    with pytest.raises(RuntimeError, match="not finalized"):
        x.to_numpy()
    fb.finalize()
    x[0] = 2.5
    assert v[0][1] == 2.5


def test_components_placed_one_by_one():
    v = qd.Vector.field(2, qd.i32)
    a, b = v.get_scalar_field(0), v.get_scalar_field(1)
    qd.root.dense(qd.i, 8).place(a)
    qd.root.dense(qd.i, 2).dense(qd.i, 4).place(b)
    assert v.shape == (8,)
    assert v._get_dynamic_index_stride() is None

    @qd.kernel
    def run():
        for i in v:
            for j in range(2):  # a runtime entry index picks a member
                v[i][j] = i * (j + 1)

    @qd.kernel
    def total() -> qd.i32:
        s = 0
        for i in range(8):
            s += v[i].sum()
        return s

    run()
    np.testing.assert_array_equal(a.to_numpy(), np.arange(8))
    np.testing.assert_array_equal(b.to_numpy(), 2 * np.arange(8))
    assert total() == 3 * 28
    assert list(v[3]) == [3, 6]
    v[1] = [7, 8]
    assert a[1] == 7 and b[1] == 8
    np.testing.assert_array_equal(v.to_numpy()[1], [7, 8])
    v.from_numpy(np.ones((8, 2), np.int32))
    assert total() == 16
    v.fill(2)
    assert b.to_numpy().sum() == 16


def test_members_of_different_shapes_fail_when_a_kernel_compiles():
    m = qd.Matrix.field(2, 2, qd.i32)
    for (i, j), n in {(0, 0): 10, (0, 1): 11, (1, 0): 10, (1, 1): 11}.items():
        qd.root.dense(qd.i, n).place(m.get_scalar_field(i, j))

    @qd.kernel
    def nothing():
        pass

    with pytest.raises(RuntimeError, match="Members of the following field have different shapes"):
        nothing()
    qd.reset()  # the broken field belongs to the old runtime: kernels compile again

    @qd.kernel
    def after_reset():
        pass

    after_reset()


def test_unplaced_member_and_mixed_placement_are_errors():
    v = qd.Vector.field(2, qd.f32)
    qd.root.dense(qd.i, 4).place(v.get_scalar_field(0))
    with pytest.raises(RuntimeError, match=r"Component \(1,\) .* is not placed"):
        v.to_numpy()
    with pytest.raises(RuntimeError, match="place either the whole field or each of its components"):
        qd.root.dense(qd.i, 4).place(v)

    placed = qd.Vector.field(2, qd.f32, shape=3)
    with pytest.raises(RuntimeError, match=r"component \(0,\) of a qd.field\(f32\) is already placed"):
        qd.root.dense(qd.i, 3).place(placed.get_scalar_field(0))


def test_bad_component_indices():
    v = qd.Vector.field(3, qd.f32, shape=2)
    with pytest.raises(IndexError, match=r"out of range for elements of shape \(3,\)"):
        v.get_scalar_field(3)
    with pytest.raises(TypeError, match="one or two int indices"):
        v.get_scalar_field(0.5)
    with pytest.raises(TypeError, match="one or two int indices"):
        v.get_scalar_field()


def test_dynamic_index_stride_of_a_whole_field():
    assert qd.Vector.field(3, qd.f32, shape=2)._get_dynamic_index_stride() == 4
    assert qd.Matrix.field(2, 2, qd.f64, shape=2)._get_dynamic_index_stride() == 8
