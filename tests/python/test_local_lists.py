# tests/python/test_local_lists.py: Python lists, tuples and dicts of kernel values bound to names inside kernels:
# their entries are locals, so `verts[1] = verts[2]` stores into them, as quadrants 1.3.3 allows.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_assign_a_list_entry_of_vectors_built_in_the_kernel():
    @qd.kernel
    def k() -> qd.types.vector(3, qd.f32):
        verts = [qd.Vector([1.0, 0.0]), qd.Vector([2.0, 0.0]), qd.Vector([3.0, 0.0])]
        verts[1] = verts[2]
        verts[0] = verts[0] * 2
        return qd.Vector([verts[0][0], verts[1][0], verts[2][0]])

    np.testing.assert_allclose(k(), [2.0, 3.0, 3.0])  # 1.3.3: [2, 3, 3]


def test_entries_are_copies_taken_when_the_list_is_built():
    @qd.kernel
    def k() -> qd.i32:
        a = 1
        ys = [a, 2]
        a = 3
        return ys[0] * 10 + a

    assert k() == 13  # 1.3.3: 13 (ys[0] keeps the 1 that a held)


def test_stores_under_runtime_control_flow_and_static_loops():
    @qd.kernel
    def in_if(c: qd.i32) -> qd.f32:
        xs = [qd.Vector([1.0]), qd.Vector([2.0])]
        if c > 0:
            xs[0] = xs[1]
        return xs[0][0]

    @qd.kernel
    def in_loop(n: qd.i32) -> qd.f32:
        xs = [qd.Vector([1.0]), qd.Vector([2.0])]
        for i in range(n):
            xs[0] = xs[0] + xs[1]
        return xs[0][0]

    @qd.kernel
    def static_loop() -> qd.f32:
        xs = [qd.Vector([1.0]), qd.Vector([2.0])]
        for j in qd.static(range(2)):
            xs[j] = xs[j] * 10
        return xs[0][0] + xs[1][0]

    assert (in_if(1), in_if(0)) == (2.0, 1.0)
    assert in_loop(3) == 7.0
    assert static_loop() == 30.0


def test_scalar_entries_augmented_assignment_and_entry_elements():
    @qd.kernel
    def scalars(a: qd.f32) -> qd.f32:
        xs = [a, a + 1.0]
        xs[0] = xs[1] * 3
        return xs[0]

    @qd.kernel
    def elements() -> qd.f32:
        vs = [qd.Vector([1.0, 2.0]), qd.Vector([3.0, 4.0])]
        vs[0][1] = 7.0
        vs[1] += vs[0]
        return vs[1][1]

    @qd.kernel
    def numbers() -> qd.f32:
        ys = [1, 2]
        ys[0] = 2.5  # an integer entry: as upstream, its local is an i32 and keeps 2
        return ys[0]

    assert scalars(1.0) == 6.0
    assert elements() == 11.0
    assert numbers() == 2.0


def test_nested_lists_tuples_and_dicts():
    @qd.kernel
    def nested() -> qd.i32:
        ys = [[1, 2], [3, 4]]
        ys[1][0] = 9
        return ys[1][0] * 10 + ys[0][1]

    @qd.kernel
    def tuple_and_dict() -> qd.i32:
        t = (1, 2)
        t[0] = 4
        d = {"a": 1, "b": 2}
        d["a"] = 5
        return t[0] * 100 + d["a"] + d["b"]

    assert nested() == 92
    assert tuple_and_dict() == 407


def test_func_arguments_are_copies_unless_templates():
    @qd.func
    def set_first(xs):
        xs[0] = 5
        return xs[0]

    @qd.func
    def set_first_in_place(xs: qd.template()):
        xs[0] = 7

    @qd.kernel
    def copy() -> qd.i32:
        a = 1
        ys = [a, 2]
        r = set_first(ys)
        return r * 100 + ys[0] * 10 + a

    @qd.kernel
    def reference() -> qd.i32:
        a = 1
        ys = [a, 2]
        set_first_in_place(ys)
        return ys[0] * 10 + a

    assert copy() == 511  # 1.3.3: 511
    assert reference() == 71  # 1.3.3: 71


def test_a_list_in_a_parallel_loop_is_private_to_each_iteration():
    out = qd.field(qd.f32, shape=8)

    @qd.kernel
    def k():
        for i in range(8):
            ps = [qd.Vector([i * 1.0, 0.0]), qd.Vector([0.0, 1.0])]
            ps[1] += ps[0]
            out[i] = ps[1][0] + ps[1][1]

    k()
    np.testing.assert_allclose(out.to_numpy(), np.arange(8) + 1.0)


def test_errors_name_the_entry():
    x = qd.field(qd.f32, shape=3)

    @qd.kernel
    def runtime_index(i: qd.i32) -> qd.f32:
        xs = [qd.Vector([1.0]), qd.Vector([2.0])]
        xs[i] = qd.Vector([5.0])
        return xs[0][0]

    @qd.kernel
    def out_of_range() -> qd.i32:
        ys = [1, 2]
        ys[2] = 4
        return ys[0]

    @qd.kernel
    def field_entry():
        fs = [x]
        fs[0] = 3

    @qd.kernel
    def list_entry() -> qd.i32:
        ys = [[1, 2], [3, 4]]
        ys[0] = ys[1]
        return ys[0][0]

    with pytest.raises(qd.QuadrantsTypeError, match="Python list inside a kernel can only be indexed with compile-time"):
        runtime_index(0)
    with pytest.raises(IndexError, match="List index 2 cannot be assigned to: IndexError"):
        out_of_range()
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"Variable 'fs\[0\]' cannot be assigned. Maybe it is not a "
                       "Quadrants object"):
        field_entry()
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"Variable 'ys\[0\]' cannot be assigned"):
        list_entry()


def test_a_static_value_stored_into_an_element_is_an_error_as_upstream():
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def into_static_list():
        a = qd.static([1, 2, 3])
        a[0] = qd.static(2)

    @qd.kernel
    def into_field():
        out[0] = qd.static(2)

    @qd.kernel
    def through_a_name():
        n = qd.static(2)
        out[1] = n

    for kernel in (into_static_list, into_field):
        with pytest.raises(qd.QuadrantsSyntaxError, match="Static assign cannot be used on elements in arrays"):
            kernel()
    through_a_name()
    assert out[1] == 2


def test_augmented_store_of_a_nested_list_into_a_matrix_element():
    m = qd.Matrix.field(2, 2, dtype=qd.i32, shape=2)
    v = qd.Vector.field(2, dtype=qd.i32, shape=2)

    @qd.kernel
    def k():
        m[1] = [[1, 2], [3, 4]]
        m[1] += [[1, 2], [3, 4]]  # a nested list is the matrix of that shape, as in a plain store (1.3.3 too)
        v[1] = [5, 6]
        v[1] -= [1, 2]

    @qd.kernel
    def wrong_shape():
        m[0] += [1, 2, 3]

    k()
    np.testing.assert_array_equal(m.to_numpy()[1], [[2, 4], [6, 8]])
    np.testing.assert_array_equal(v.to_numpy()[1], [4, 4])
    with pytest.raises(qd.QuadrantsTypeError, match=r"Cannot assign the list \[1, 2, 3\] to a 2x2 target"):
        wrong_shape()


def test_starred_entries_in_tuple_and_list_literals():
    """`(*I, j)` and `[*seq, x]` spread a qd.grouped index or a compile-time sequence, as Python does (upstream's
    NamedTuple test indexes `value[(*I, j)]`); a runtime scalar cannot be spread."""
    qd.init(arch=qd.cpu)
    pos = qd.Vector.field(3, qd.f32, shape=(2, 2))
    extents = (2, 2)

    @qd.kernel
    def spread(value: qd.types.ndarray(qd.f32, ndim=3)):
        for I in qd.grouped(qd.ndrange(*extents)):
            for j in qd.static(range(3)):
                pos[I][j] = value[(*I, j)] + [*extents, 10][2]

    value = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    spread(value)
    np.testing.assert_array_equal(pos.to_numpy(), value + 10)

    @qd.kernel
    def spread_runtime(n: qd.i32) -> qd.i32:
        t = (*n, 1)
        return t[1]

    with pytest.raises(qd.QuadrantsTypeError, match=r"Only compile-time sequences and vectors can be unpacked with \*"):
        spread_runtime(3)
