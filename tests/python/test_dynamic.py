# tests/python/test_dynamic.py: dynamic SNodes: qd.append, qd.length, struct-for over [0, length), deactivation.
"""Dynamic SNodes from issue 12: qd.append returns the old length and appends atomically, qd.length
reads it, a write at position p makes the list at least p + 1 long, struct-for loops visit
[0, length), and deactivating a list empties and zeroes it. Checked by hand and against numpy."""

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_parallel_append_keeps_every_value():
    x = qd.field(qd.i32)
    lst = qd.root.dynamic(qd.i, 256, chunk_size=32)
    lst.place(x)
    slots = qd.field(qd.i32, shape=200)

    @qd.kernel
    def push():
        for k in range(200):
            slots[k] = qd.append(lst, [], k * 3)

    @qd.kernel
    def size() -> qd.i32:
        return qd.length(lst, [])

    push()
    assert size() == 200
    values = x.to_numpy()
    np.testing.assert_array_equal(np.sort(values[:200]), np.arange(200) * 3)
    np.testing.assert_array_equal(np.sort(slots.to_numpy()), np.arange(200))  # each old length once
    np.testing.assert_array_equal(values[slots.to_numpy()], np.arange(200) * 3)
    assert not values[200:].any()


def test_lists_per_cell_and_struct_for_visits_their_lengths():
    n = 8
    x = qd.field(qd.i32)
    lists = qd.root.dense(qd.i, n).dynamic(qd.j, 16)
    lists.place(x)
    lengths = qd.field(qd.i32, shape=n)
    total, visits = qd.field(qd.i32, shape=()), qd.field(qd.i32, shape=())

    @qd.kernel
    def build():
        for i in range(n):
            for j in range(i):
                x[i].append(j * 2)

    @qd.kernel
    def inspect():
        for i in range(n):
            lengths[i] = x[i].length()
        for i, j in x:
            visits[None] += 1
            total[None] += x[i, j]

    build()
    inspect()
    np.testing.assert_array_equal(lengths.to_numpy(), np.arange(n))
    assert visits[None] == n * (n - 1) // 2
    assert total[None] == sum(j * 2 for i in range(n) for j in range(i))
    assert x[5, 3] == 6 and x[2, 7] == 0


def test_writes_extend_the_length():
    lengths = qd.field(qd.i32, shape=3)
    x = qd.field(qd.i32)
    lst = qd.root.dynamic(qd.i, 32)
    lst.place(x)

    @qd.kernel
    def run():
        for k in range(5):
            qd.append(lst, [], k)
        lengths[0] = qd.length(lst, [])
        x[20] = 42
        lengths[1] = qd.length(lst, [])
        x[10] = 43
        lengths[2] = qd.length(lst, [])

    run()
    np.testing.assert_array_equal(lengths.to_numpy(), [5, 21, 21])
    x[25] = 1  # Python scope too
    count = qd.field(qd.i32, shape=())

    @qd.kernel
    def visit():
        for i in x:
            count[None] += 1

    visit()
    assert count[None] == 26


def test_deactivate_empties_lists():
    n = 6
    x = qd.field(qd.i32)
    lst = qd.root.dense(qd.i, n).dynamic(qd.j, 64)
    lst.place(x)
    s = qd.field(qd.i32, shape=n)

    @qd.kernel
    def push(times: qd.i32):
        for i in range(n):
            for j in range(i * times):
                qd.append(lst, i, j + 1)

    @qd.kernel
    def fetch():
        for i in range(n):
            s[i] = qd.length(lst, i)

    @qd.kernel
    def clear_even():
        for i in range(n):
            if i % 2 == 0:
                qd.deactivate(lst, [i])

    push(2)
    clear_even()
    fetch()
    np.testing.assert_array_equal(s.to_numpy(), [0, 2, 0, 6, 0, 10])
    assert not x.to_numpy()[0::2].any()
    push(1)
    fetch()
    np.testing.assert_array_equal(s.to_numpy(), [0, 3, 2, 9, 4, 15])
    lst.deactivate_all()
    fetch()
    assert not s.to_numpy().any() and not x.to_numpy().any()


def test_one_dimensional_list_methods():
    y = qd.field(qd.f32)
    qd.root.dynamic(qd.i, 10).place(y)
    out = qd.field(qd.f32, shape=3)

    @qd.kernel
    def run():
        for j in range(4):
            y.append(j * 1.5)
        out[0] = y.length()
        out[1] = y[3]
        y.deactivate()
        out[2] = y.length() + y[3]

    run()
    np.testing.assert_array_equal(out.to_numpy(), [4, 4.5, 0])


def test_full_list_keeps_its_capacity():
    x = qd.field(qd.i32)
    lst = qd.root.dynamic(qd.i, 8)
    lst.place(x)

    @qd.kernel
    def overfill() -> qd.i32:
        for k in range(20):
            qd.append(lst, [], k + 1)
        return qd.length(lst, [])

    assert overfill() == 8
    values = x.to_numpy()
    assert len(set(values)) == 8 and values.min() >= 1 and values.max() <= 20  # 8 of the 20 values, each once


def test_append_vectors_and_structs():
    v = qd.Vector.field(2, qd.i32)
    qd.root.dense(qd.i, 3).dynamic(qd.j, 4).place(v)
    point = qd.types.struct(a=qd.u8, b=qd.f32)
    p = point.field()
    plist = qd.root.dense(qd.i, 2).dynamic(qd.j, 5)
    plist.place(p)

    @qd.kernel
    def run():
        for i in range(3):
            for j in range(i + 1):
                v[i].append(qd.Vector([i, j]))
        for i in range(2):
            qd.append(plist, i, point(a=i + 7, b=0.5 * i))

    run()
    assert v[2, 2][0] == 2 and v[2, 2][1] == 2 and v[0, 1][1] == 0
    assert p[1, 0].a == 8 and p[1, 0].b == 0.5 and p[0, 1].a == 0


def test_python_scope_copies_of_lists():
    x = qd.field(qd.f32)
    qd.root.dense(qd.i, 2).dynamic(qd.j, 4).place(x)
    x[0, 1] = 1.0  # list 0 now has length 2
    x.fill(5)
    np.testing.assert_array_equal(x.to_numpy(), [[5, 5, 0, 0], [0, 0, 0, 0]])
    x.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))
    np.testing.assert_array_equal(x.to_numpy(), [[0, 1, 0, 0], [0, 0, 0, 0]])


def test_list_errors():
    x = qd.field(qd.i32)
    lst = qd.root.dense(qd.i, 4).dynamic(qd.j, 8)
    lst.place(x)
    block = qd.root.pointer(qd.i, 4)
    block.place(qd.field(qd.i32))

    @qd.kernel
    def wrong_count():
        qd.append(lst, [0, 1, 2], 1)

    with pytest.raises(qd.QuadrantsTypeError, match="takes 1 index\\(es\\) \\(the cell that holds the list\\)"):
        wrong_count()

    @qd.kernel
    def not_a_list() -> qd.i32:
        return qd.length(block, [0])

    with pytest.raises(qd.QuadrantsTypeError, match="works on dynamic SNodes, but got a pointer"):
        not_a_list()

    @qd.kernel
    def is_active_on_list() -> qd.i32:
        return qd.is_active(lst, [0, 0])

    with pytest.raises(qd.QuadrantsTypeError, match="pointer and bitmasked"):
        is_active_on_list()


# ---- struct-fors over many lists (sparse_loops.py's listed form on the CPU) ------------------------------------
def _many_lists(capacity):
    """4096 lists in 8 x 8 pointer blocks of 8 x 8 cells, each holding up to `capacity` entries."""
    x = qd.field(qd.i32)
    blocks = qd.root.pointer(qd.ij, 8)
    blocks.dense(qd.ij, 8).dynamic(qd.k, capacity, chunk_size=64).place(x)
    return x, blocks


def _expected_counts(n):
    counts = np.zeros((64, 64), np.int64)
    for p in range(n):
        counts[(p * 7) % 64, (p * 11) % 48] += 1
    return counts


def test_struct_for_over_many_lists_visits_each_appended_entry_once():
    x, blocks = _many_lists(1 << 12)
    seen = qd.field(qd.i32, shape=(64, 64))
    n = 5000

    @qd.kernel
    def fill():
        for p in range(n):
            qd.append(x.parent(), [(p * 7) % 64, (p * 11) % 48], p + 1)

    @qd.kernel
    def visit() -> qd.i64:
        total = qd.i64(0)
        for i, j, k in x:
            if x[i, j, k] % 2 == 0:
                continue  # goes on to the list's next entry
            qd.atomic_add(seen[i, j], 1)
            total += x[i, j, k]
        return total

    @qd.kernel
    def visit_grouped() -> qd.i32:
        count = 0
        for I in qd.grouped(x):
            if x[I] > 0 and I[2] < qd.length(x.parent(), [I[0], I[1]]):
                count += 1
        return count

    fill()
    odd = np.arange(1, n + 1)[np.arange(1, n + 1) % 2 == 1]
    assert visit() == odd.sum()
    odd_counts = np.zeros((64, 64), np.int64)
    for p in range(n):
        if (p + 1) % 2 == 1:
            odd_counts[(p * 7) % 64, (p * 11) % 48] += 1
    np.testing.assert_array_equal(seen.to_numpy(), odd_counts)
    assert visit_grouped() == n
    blocks.deactivate_all()
    assert visit() == 0 and visit_grouped() == 0


def test_struct_for_skips_the_lists_of_a_deactivated_block():
    x, blocks = _many_lists(1 << 10)

    @qd.kernel
    def fill():
        for p in range(3000):
            qd.append(x.parent(), [(p * 7) % 64, (p * 11) % 48], 1)

    @qd.kernel
    def drop_first_block():
        qd.deactivate(blocks, [0, 0])

    @qd.kernel
    def count() -> qd.i32:
        c = 0
        for i, j, k in x:
            c += x[i, j, k]
        return c

    fill()
    assert count() == 3000
    drop_first_block()
    expected = _expected_counts(3000)
    expected[:8, :8] = 0
    assert count() == expected.sum()


@pytest.mark.cpu_only
def test_struct_for_over_many_lists_costs_the_entries_not_the_capacity():
    """A million-entry list per cell of a 512 x 512 grid (upstream's MPM particle lists): 2.7e11 positions, which
    the element-wise form took minutes to check; the loop runs over the lists and each list's length. CPU only:
    there the layout is reserved, not committed (on CUDA it would take 1 TiB of device memory)."""
    pid = qd.field(qd.i32)
    qd.root.pointer(qd.ij, 32).pointer(qd.ij, 16).dynamic(qd.k, 1 << 20, chunk_size=4096).place(pid)

    @qd.kernel
    def fill():
        for p in range(2000):
            qd.append(pid.parent(), [p % 300, (p * 3) % 200], p)

    @qd.kernel
    def total() -> qd.i64:
        s = qd.i64(0)
        for i, j, k in pid:
            s += pid[i, j, k]
        return s

    fill()
    assert "(const int 1048576)" not in total.export_ir()  # no loop over the capacity
    assert total() == 2000 * 1999 // 2
