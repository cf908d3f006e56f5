# tests/python/test_snode_activation_api.py: qd.deactivate_all_snodes(), qd.no_activate(), the dynamic-list methods
# of struct fields and qd.get_addr() on a place SNode, with the results quadrants 1.3.3 gives.
import numpy as np
import pytest

import quadrants as qd

S = qd.types.struct(a=qd.i32, b=qd.f32)


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _count_active(field):
    @qd.kernel
    def count() -> qd.i32:
        c = 0
        for _ in qd.grouped(field):
            c += 1
        return c

    return count()


# ---- qd.deactivate_all_snodes ---------------------------------------------------------------------------------
def test_deactivate_all_snodes_clears_every_tree():
    x = qd.field(qd.f32)
    block = qd.root.pointer(qd.i, 4)
    block.dense(qd.i, 4).place(x)
    y = qd.field(qd.i32)
    qd.root.dynamic(qd.i, 16, chunk_size=4).place(y)
    z = qd.field(qd.f32)
    qd.root.bitmasked(qd.i, 8).place(z)
    dense = qd.field(qd.f32, shape=3)
    builder = qd.FieldsBuilder()
    w = qd.field(qd.f32)
    builder.pointer(qd.i, 4).place(w)
    builder.finalize()

    @qd.kernel
    def fill():
        for i in range(6):
            x[i] = i + 1
            qd.append(y.parent(), [], i)
            z[i] = 1.0
        for i in range(3):
            dense[i] = 9.0
            w[i] = 2.0

    @qd.kernel
    def state() -> qd.types.vector(3, qd.i32):
        return qd.Vector([qd.length(y.parent(), []), qd.is_active(block, [0]), qd.is_active(block, [1])])

    fill()
    np.testing.assert_array_equal(state(), [6, 1, 1])
    assert (_count_active(x), _count_active(z), _count_active(w)) == (8, 6, 3)
    qd.deactivate_all_snodes()
    np.testing.assert_array_equal(state(), [0, 0, 0])  # 1.3.3: [0 0 0]
    assert (_count_active(x), _count_active(z), _count_active(w)) == (0, 0, 0)
    assert x.to_numpy().tolist() == [0.0] * 16 and w.to_numpy().tolist() == [0.0] * 4
    assert dense.to_numpy().tolist() == [9.0] * 3  # dense data is no activity: it stays


# ---- qd.no_activate -------------------------------------------------------------------------------------------
def test_no_activate_on_a_dynamic_list_updates_what_is_there():
    x = qd.field(qd.f32)
    d = qd.root.dynamic(qd.i, 64, chunk_size=8)
    d.place(x)

    @qd.kernel
    def init():
        for i in range(8):
            x[i] = 1

    @qd.kernel
    def bump():
        qd.no_activate(d)
        for i in range(4):
            x[i * 2 + 1] += 1

    @qd.kernel
    def beyond():
        qd.no_activate(d)
        x[10] = 5  # past the length: dropped, the list stays 8 long
        x[2] = 7

    @qd.kernel
    def length() -> qd.i32:
        return qd.length(d, [])

    init()
    bump()
    np.testing.assert_array_equal(x.to_numpy()[:10], [1, 2, 1, 2, 1, 2, 1, 2, 0, 0])  # upstream's test_no_activate
    beyond()
    assert length() == 8
    np.testing.assert_array_equal(x.to_numpy()[:12], [1, 2, 7, 2, 1, 2, 1, 2, 0, 0, 0, 0])


@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_no_activate_drops_stores_to_inactive_cells(kind):
    """1.3.3 gives these results for pointer SNodes; under a bitmasked SNode it writes the inactive cells' memory,
    which its kernels then read while struct-fors skip the cells: here such writes are dropped, as under pointers."""
    x = qd.field(qd.f32)
    v = qd.Vector.field(2, qd.i32)
    p = getattr(qd.root, kind)(qd.i, 4)
    p.dense(qd.i, 2).place(x, v)

    @qd.kernel
    def init():
        x[0] = 1
        v[0] = [1, 1]

    @qd.kernel
    def update():
        qd.no_activate(p)
        x[1] = 5  # block 0 is active: stored
        x[4] = 6  # block 2 is not: dropped
        qd.atomic_add(x[5], 2.0)
        v[1] += [3, 4]
        v[6] = [8, 8]
        qd.activate(p, [3])  # explicit activation still activates

    init()
    update()
    assert _count_active(x) == 4  # blocks 0 and 3, as 1.3.3
    np.testing.assert_array_equal(x.to_numpy(), [1, 5, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(v.to_numpy()[:, 0], [1, 3, 0, 0, 0, 0, 0, 0])



@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_no_activate_drops_every_atomic_on_inactive_cells(kind):
    """Each atomic gets its own operand that leaves an inactive element (which holds 0) as it is (targets.py):
    0 for add, 1 for mul, the element itself for min, max, and and exchange, EXPECTED for cas's DESIRED. A
    wrong neutral value (max with 1, exchange with 1) would write the storage of inactive cells."""
    x = qd.field(qd.i32)
    p = getattr(qd.root, kind)(qd.i, 4)
    p.dense(qd.i, 8).place(x)

    @qd.kernel
    def init():
        for i in range(8):
            x[i] = 12  # block 0 active, the others not

    @qd.kernel
    def update() -> qd.i32:
        qd.no_activate(p)
        olds = 0
        for block in qd.static((0, 2)):  # block 0 is active, block 2 is not
            base = 8 * block
            olds += qd.atomic_min(x[base + 0], 5)
            olds += qd.atomic_max(x[base + 1], 20)
            olds += qd.atomic_and(x[base + 2], 6)
            olds += qd.atomic_mul(x[base + 3], 3)
            olds += qd.atomic_exchange(x[base + 4], 7)
            olds += qd.atomic_cas(x[base + 5], 12, 9)
            olds += qd.atomic_or(x[base + 6], 1)
        return olds

    @qd.kernel
    def block_two() -> qd.types.vector(8, qd.i32):
        return qd.Vector([x[16 + i] for i in qd.static(range(8))])

    @qd.kernel
    def wake():
        qd.activate(p, [2])

    init()
    assert update() == 7 * 12  # the old values: 12 in block 0, 0 in block 2
    np.testing.assert_array_equal(x.to_numpy()[:8], [5, 20, 4, 36, 7, 9, 13, 12])
    assert _count_active(x) == 8
    np.testing.assert_array_equal(block_two().to_numpy(), [0] * 8)
    wake()
    np.testing.assert_array_equal(x.to_numpy()[16:24], [0] * 8)  # nothing was written under the inactive cells

def test_no_activate_of_a_field_changes_nothing_and_covers_the_whole_kernel():
    x = qd.field(qd.f32)
    qd.root.pointer(qd.i, 8).place(x)
    y = qd.field(qd.f32)
    q = qd.root.pointer(qd.i, 4)
    q.place(y)

    @qd.kernel
    def by_field():
        qd.no_activate(x)  # a field names its place node, which has no activation: stores activate as usual
        for i in range(4):
            x[i] = 1

    @qd.func
    def stop():
        qd.no_activate(q)

    @qd.kernel
    def in_func():
        stop()
        y[1] = 5

    by_field()
    np.testing.assert_array_equal(x.to_numpy(), [1, 1, 1, 1, 0, 0, 0, 0])
    in_func()
    np.testing.assert_array_equal(y.to_numpy(), [0, 0, 0, 0])


def test_no_activate_errors():
    x = qd.field(qd.f32)
    p = qd.root.pointer(qd.i, 4)
    p.place(x)

    @qd.kernel
    def after_a_store():
        x[1] = 5
        qd.no_activate(p)

    @qd.kernel
    def not_an_snode():
        qd.no_activate(3)

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"qd.no_activate\(\) comes after a store"):
        after_a_store()
    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.no_activate\(\) takes SNodes \(or fields\), but got the "
                       r"Python value 3"):
        not_an_snode()
    with pytest.raises(RuntimeError, match=r"qd.no_activate\(\) can only be called inside"):
        qd.no_activate(p)


# ---- dynamic struct fields ------------------------------------------------------------------------------------
def test_struct_field_lists_append_length_deactivate():
    nested = S.field()
    qd.root.dense(qd.i, 4).dynamic(qd.j, 16, chunk_size=4).place(nested)
    flat = S.field()
    qd.root.dynamic(qd.i, 16, chunk_size=4).place(flat)

    @qd.kernel
    def fill() -> qd.i32:
        for i in range(4):
            for j in range(i + 1):
                nested[i].append(S(a=j + 1, b=j * 0.5))
        first = 0
        for j in range(5):
            first += flat.append(S(a=j + 1, b=j * 0.5))
        return first

    @qd.kernel
    def lengths() -> qd.types.vector(5, qd.i32):
        return qd.Vector([nested[0].length(), nested[1].length(), nested[2].length(), nested[3].length(),
                          flat.length()])

    @qd.kernel
    def clear():
        nested[2].deactivate()
        flat.deactivate()

    assert fill() == 0 + 1 + 2 + 3 + 4  # append returns the old length
    np.testing.assert_array_equal(lengths(), [1, 2, 3, 4, 5])
    np.testing.assert_allclose(flat.b.to_numpy()[:6], [0, 0.5, 1.0, 1.5, 2.0, 0])
    clear()
    np.testing.assert_array_equal(lengths(), [1, 2, 0, 4, 0])  # 1.3.3: [1 2 0 4] and 0
    np.testing.assert_array_equal(nested.a.to_numpy()[2], 0)
    np.testing.assert_array_equal(nested.a.to_numpy()[3, :5], [1, 2, 3, 4, 0])
    assert flat.a.to_numpy().tolist() == [0] * 16


# ---- qd.get_addr on SNodes ------------------------------------------------------------------------------------
def test_get_addr_of_a_place_snode_is_the_fields():
    x = qd.field(qd.f32)
    s = qd.root.dense(qd.i, 8)
    s.place(x)
    y = qd.Vector.field(3, qd.f32, shape=4)

    @qd.kernel
    def k(i: qd.i32) -> qd.types.vector(3, qd.i64):
        return qd.Vector([qd.get_addr(x.snode, [i + 1]) - qd.get_addr(x, [i]), qd.get_addr(x.snode, i + 1) -
                          qd.get_addr(x, i), qd.get_addr(y.snode, [i + 1]) - qd.get_addr(y, [i])])

    @qd.kernel
    def interior(i: qd.i32) -> qd.u64:
        return qd.get_addr(s, [i])

    np.testing.assert_array_equal(k(2), [4, 4, 12])  # 1.3.3: [4 4 12]
    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.get_addr\(\) takes a field or its place SNode \(x.snode\), "
                       "but got a dense SNode"):
        interior(0)
