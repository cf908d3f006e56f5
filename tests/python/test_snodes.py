# tests/python/test_snodes.py: SNode trees: qd.root, dense nesting, place, shapes, FieldsBuilder, errors.
"""Dense SNode layouts from issue 12: a field's shape is the product of its path's extents per axis,
fields without a shape are placed later, qd.FieldsBuilder defines fields after kernels ran, and bad
layouts fail with messages that say what was wrong. Results are checked against numpy."""

import warnings

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_field_shape_is_the_product_of_extents_per_axis():
    x = qd.field(qd.f32)
    qd.root.dense(qd.i, 4).dense(qd.i, 8).place(x)
    assert x.shape == (32,)
    y = qd.field(qd.i32)
    qd.root.dense(qd.ij, (3, 5)).dense(qd.i, 2).place(y)
    assert y.shape == (6, 5)
    z = qd.field(qd.i32)
    qd.root.dense(qd.j, 4).dense(qd.i, 3).place(z)  # indices follow the axes' order, not the nesting
    assert z.shape == (3, 4)
    assert y.snode.parent().shape == (6, 5) and y.snode.parent(2).shape == (3, 5)


def test_nested_dense_field_in_kernels_matches_numpy():
    x = qd.field(qd.i32)
    qd.root.dense(qd.ij, (2, 3)).dense(qd.ij, (4, 2)).place(x)

    @qd.kernel
    def fill_with_index():
        for i, j in x:
            x[i, j] = i * 100 + j

    fill_with_index()
    i, j = np.meshgrid(np.arange(8), np.arange(6), indexing="ij")
    np.testing.assert_array_equal(x.to_numpy(), i * 100 + j)
    assert x[7, 5] == 705


def test_fields_share_a_node_and_root_place_gives_0d():
    a, b, total = qd.field(qd.f32), qd.field(qd.f32), qd.field(qd.f32)
    qd.root.dense(qd.i, 16).place(a, b)
    qd.root.place(total)
    assert total.shape == ()
    a.from_numpy(np.arange(16, dtype=np.float32))

    @qd.kernel
    def combine():
        for i in a:
            b[i] = a[i] * 2
            total[None] += a[i]

    combine()
    np.testing.assert_array_equal(b.to_numpy(), np.arange(16) * 2)
    assert total[None] == np.arange(16).sum()


def test_vector_and_matrix_fields_placed_later():
    v = qd.Vector.field(3, qd.f32)
    m = qd.Matrix.field(2, 2, qd.i32)
    qd.root.dense(qd.i, 5).place(v, m)
    assert v.shape == (5,) and m.shape == (5,)

    @qd.kernel
    def fill():
        for i in v:
            v[i] = qd.Vector([i, i + 1, i + 2])
            m[i] = qd.Matrix([[i, 0], [0, -i]])

    fill()
    np.testing.assert_array_equal(v.to_numpy(), np.arange(5)[:, None] + np.arange(3))
    assert m[3][1, 1] == -3


def test_snode_api_parent_shape_and_repr():
    x = qd.field(qd.f32)
    block = qd.root.dense(qd.ij, 4)
    cell = block.dense(qd.ij, 2)
    cell.place(x)
    assert x.snode.parent() is cell and x.parent() is cell and x.parent(2) is block
    assert block.parent() == qd.root and qd.root.parent() is None
    assert (block.shape, cell.shape, x.snode.shape, qd.root.shape) == ((4, 4), (8, 8), (8, 8), ())
    assert str(x.snode) == "qd.root => dense [4, 4] => dense [8, 8] => place [8, 8]"
    assert qd.ij == qd.axes(0, 1) and repr(qd.k[0]) == "qd.k"


def test_struct_for_over_a_dense_snode_visits_its_cells():
    x = qd.field(qd.i32)
    qd.root.dense(qd.ij, (3, 7)).dense(qd.ij, (2, 4)).place(x)
    counts = qd.field(qd.i32, shape=())

    @qd.kernel
    def over_blocks():
        for i, j in x.parent(2):
            x[i * 2, j * 4] += 1
            counts[None] += 1

    over_blocks()
    assert counts[None] == 21
    expected = np.zeros((6, 28), np.int32)
    expected[::2, ::4] = 1
    np.testing.assert_array_equal(x.to_numpy(), expected)


def test_grouped_loop_over_an_snode():
    x = qd.field(qd.f32)
    block = qd.root.dense(qd.ij, 2)
    block.dense(qd.ij, 3).place(x)

    @qd.kernel
    def mark():
        for I in qd.grouped(block):
            x[I * 3] = I[0] * 10 + I[1] + 1

    mark()
    assert [x[0, 0], x[0, 3], x[3, 0], x[3, 3], x[1, 1]] == [1, 2, 11, 12, 0]


def test_layout_and_order_options_keep_semantics():
    # Memory order itself is checked in test_field_layout.py; here only that results do not depend on it.
    aos = qd.Vector.field(3, qd.f32, shape=(4, 2), layout=qd.Layout.AOS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # applied now, so nothing to warn about
        soa = qd.Vector.field(3, qd.f32, shape=(4, 2), layout=qd.Layout.SOA)
        ordered = qd.field(qd.f32, shape=(4, 2), order="ji")
    values = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
    aos.from_numpy(values)
    soa.from_numpy(values)
    ordered.from_numpy(values[..., 0])

    @qd.kernel
    def total(x: qd.template()) -> qd.f32:
        s = 0.0
        for i, j in x:
            s += x[i, j][1]
        return s

    assert total(aos) == pytest.approx(values[..., 1].sum(), rel=1e-5)
    assert total(soa) == pytest.approx(values[..., 1].sum(), rel=1e-5)
    np.testing.assert_array_equal(soa.to_numpy(), values)
    np.testing.assert_array_equal(ordered.to_numpy(), values[..., 0])
    with pytest.raises(ValueError, match="layout= expects qd.Layout.AOS or qd.Layout.SOA"):
        qd.Vector.field(3, qd.f32, shape=4, layout="rows")


def test_fields_builder_after_kernels_ran():
    x = qd.field(qd.f32, shape=4)

    @qd.kernel
    def bump():
        for i in x:
            x[i] += 1

    bump()
    y = qd.field(qd.i32)
    fb = qd.FieldsBuilder()
    fb.dense(qd.i, 8).place(y)
    with pytest.raises(qd.QuadrantsRuntimeError, match="FieldsBuilder that is not finalized yet"):
        y[0] = 1

    @qd.kernel
    def use_y():
        for i in y:
            y[i] = i * 3

    with pytest.raises(qd.QuadrantsCompilationError, match="not finalized yet; call fb.finalize"):
        use_y()
    tree = fb.finalize()
    assert fb.finalized
    use_y()
    bump()
    np.testing.assert_array_equal(y.to_numpy(), np.arange(8) * 3)
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 2))
    with pytest.raises(qd.QuadrantsRuntimeError, match="already finalized"):
        fb.finalize()
    with pytest.raises(qd.QuadrantsRuntimeError, match="finalized; no more nodes"):
        fb.dense(qd.i, 2)
    tree.destroy()
    with pytest.raises(qd.QuadrantsRuntimeError, match="destroyed"):
        y.to_numpy()
    with pytest.raises(qd.QuadrantsRuntimeError, match="already destroyed"):
        tree.destroy()


def test_root_is_reset_by_init():
    x = qd.field(qd.f32)
    qd.root.dense(qd.i, 3).place(x)
    old_block = x.parent()
    qd.init()
    y = qd.field(qd.f32)
    qd.root.dense(qd.i, 5).place(y)
    assert y.shape == (5,) and y.parent() is not old_block
    with pytest.raises(RuntimeError):
        x[0] = 1  # freed by qd.init()


def test_root_starts_a_new_tree_once_a_kernel_used_it():
    a = qd.field(qd.i32, shape=())

    @qd.kernel
    def touch(f: qd.template()):
        f[None] = 1

    touch(a)
    b = qd.field(qd.i32, shape=())
    touch(b)
    assert (a.snode._snode_tree_id, b.snode._snode_tree_id) == (0, 1)
    assert b[None] == 1


def test_sync_starts_a_new_tree_for_later_fields():
    """qd.sync() materializes qd.root's tree, as upstream, so each tree keeps its own storage (a sync with no new
    fields opens no empty tree)."""
    a, b = qd.field(qd.i32, (4,)), qd.field(qd.i32, (4,))
    qd.sync()
    c = qd.field(qd.i32, (4,))
    qd.sync()
    qd.sync()
    d = qd.field(qd.i32, (4,))
    assert [f.snode._snode_tree_id for f in (a, b, c, d)] == [0, 0, 1, 2]
    for k, f in enumerate((a, b, c, d)):
        f[0] = 10 + k
    assert [f[0] for f in (a, b, c, d)] == [10, 11, 12, 13]


def test_path_from_root_and_the_finalized_roots_after_materialize_root_fb():
    from quadrants.lang import impl

    x, y = qd.field(qd.f32), qd.field(qd.f32)
    outer = qd.root.dense(qd.k, 3)
    inner = outer.dense(qd.i, 5)
    inner.place(x)
    assert x.snode._path_from_root() == [qd.root, outer, inner, x.snode]
    assert qd.FieldsBuilder._finalized_roots() == []
    impl.get_runtime().materialize_root_fb(False)
    builder = qd.FieldsBuilder()
    builder.dense(qd.i, 2).place(y)
    builder.finalize()
    first, second = qd.FieldsBuilder._finalized_roots()
    assert outer in first._get_children() and second is builder.root
    assert qd.field(qd.i32, (4,)).snode._snode_tree_id != x.snode._snode_tree_id  # placed in a new tree


def test_struct_field_placed_later():
    particle = qd.types.struct(pos=qd.math.vec2, mass=qd.f32)
    p = particle.field()
    qd.root.dense(qd.i, 6).place(p)
    assert p.shape == (6,) and p.pos.shape == (6,)

    @qd.kernel
    def init():
        for i in p:
            p[i].pos = qd.math.vec2(i, -i)
            p[i].mass = 0.5 * i

    init()
    np.testing.assert_array_equal(p.mass.to_numpy(), 0.5 * np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(p.pos.to_numpy()[:, 1], -np.arange(6))


# ---- errors -----------------------------------------------------------------------------------------
def test_placing_a_field_twice_fails():
    x = qd.field(qd.f32, name="x")
    qd.root.dense(qd.i, 4).place(x)
    with pytest.raises(qd.QuadrantsRuntimeError, match="field 'x' is already placed"):
        qd.root.dense(qd.i, 8).place(x)
    y = qd.field(qd.f32, shape=3)
    with pytest.raises(qd.QuadrantsRuntimeError, match="already placed"):
        qd.root.place(y)


def test_placing_a_gradient_beside_its_field_as_upstream_writes_it():
    x = qd.field(qd.f32, needs_grad=True)
    qd.root.dense(qd.i, 4).place(x, x.grad)  # the gradient is placed with x; naming it again changes nothing
    assert x.grad.shape == (4,) and x.grad.parent() is x.parent()
    with pytest.raises(qd.QuadrantsRuntimeError, match="already placed"):
        qd.root.dense(qd.i, 4).place(x.grad)


def test_unplaced_field_fails_in_python_and_in_kernels():
    x = qd.field(qd.f32, name="x")
    for use in (lambda: x[0], lambda: x.to_numpy(), lambda: x.fill(1), lambda: x.snode):
        with pytest.raises(qd.QuadrantsRuntimeError, match="field 'x' is not placed"):
            use()

    @qd.kernel
    def read() -> qd.f32:
        return x[0]

    # As upstream: a kernel compile while a declared field is unplaced fails, naming the field.
    with pytest.raises(RuntimeError, match="(?s)These field\\(s\\) are not placed:.*field 'x', declared at"):
        read()


def test_layout_shape_errors():
    with pytest.raises(qd.QuadrantsRuntimeError, match="2 axes but 3 extents"):
        qd.root.dense(qd.ij, (2, 3, 4))
    with pytest.raises(qd.QuadrantsRuntimeError, match="every extent must be positive"):
        qd.root.dense(qd.i, 0)
    with pytest.raises(qd.QuadrantsRuntimeError, match="an axis appears twice"):
        qd.root.dense(qd.axes(0, 0), 4)
    with pytest.raises(qd.QuadrantsRuntimeError, match="expected axes such as qd.i"):
        qd.root.dense(0, 4)
    with pytest.raises(qd.QuadrantsRuntimeError, match="axis qd.i is already used above"):
        qd.root.dense(qd.i, 4).dynamic(qd.i, 8)
    with pytest.raises(qd.QuadrantsRuntimeError, match="belongs to the dynamic SNode above"):
        qd.root.dynamic(qd.i, 8).dense(qd.i, 2)
    with pytest.raises(qd.QuadrantsRuntimeError, match="exactly one axis"):
        qd.root.dynamic(qd.ij, 8)
    with pytest.raises(qd.QuadrantsRuntimeError, match="the offset \\(1,\\) has 1"):
        qd.root.dense(qd.ij, 4).place(qd.field(qd.f32), offset=(1,))
    with pytest.raises(qd.QuadrantsRuntimeError, match="place\\(\\) takes fields"):
        qd.root.dense(qd.i, 4).place(np.zeros(4))


def test_python_scope_iteration_is_rejected():
    x = qd.field(qd.i32, shape=3)
    with pytest.raises(NotImplementedError, match="Struct for is only available in Quadrants scope"):
        for _ in x:
            pass
