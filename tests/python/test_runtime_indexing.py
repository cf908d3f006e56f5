# tests/python/test_runtime_indexing.py: v[i], m[i, j], m[i, :] and a[k][i] with indices known only at run
# time (loop variables, arguments, loaded values), read, written and updated, checked against numpy. As upstream,
# a matrix takes two indices: m[i] is an error, its row is m[i, :].
import numpy as np
import pytest

import quadrants as qd
from quadrants.base.errors import QuadrantsIndexError


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def test_local_vector_read_with_loop_variables():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        v = qd.Vector([10, 20, 30, 40, 50])
        for i in range(out.shape[0]):
            for j in range(5):
                out[i, j] = v[j] + v[(i + j) % 5]

    out = np.zeros((7, 5), np.int32)
    k(out)
    v = np.array([10, 20, 30, 40, 50])
    expected = v[None, :] + v[(np.arange(7)[:, None] + np.arange(5)[None, :]) % 5]
    np.testing.assert_array_equal(out, expected)


def test_local_vector_write_and_update_match_upstreams_example():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        tmp = qd.Vector([1, 2, 3])
        for i in range(3):
            vec = qd.Vector([4, 5, 6])
            for j in range(3):
                vec[tmp[i] % 3] += vec[j]
            tmp[i] = vec[tmp[i] % 3]
        for i in qd.static(range(3)):
            out[i] = tmp[i]

    out = np.zeros(3, np.int32)
    k(out)
    np.testing.assert_array_equal(out, [24, 30, 19])


def test_local_vector_of_64_filled_in_a_loop():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        v = qd.types.vector(64, qd.i32)(0)
        for i in range(64):
            v[i] = i * i
        for i in range(64):
            out[i] = v[63 - i]

    out = np.zeros(64, np.int32)
    k(out)
    np.testing.assert_array_equal(out, (63 - np.arange(64)) ** 2)


def test_a_shared_local_is_written_only_at_the_runtime_index(compiles):
    # v is declared before the parallel loop, so its threads share it: a write must touch only v[i].
    # Writing every entry back through a select (v_k = i == k ? x : v_k) lost the other threads' writes
    # on a GPU; a thread's own local keeps the branch-free select.
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        v = qd.types.vector(4, qd.i32)(0)
        for i in range(4):
            w = qd.types.vector(4, qd.i32)(0)
            w[i] = i
            v[i] = w[i] + 1
        for i in range(4):
            out[i] = v[i]

    out = np.zeros(4, np.int32)
    k(out)
    np.testing.assert_array_equal(out, [1, 2, 3, 4])
    (text,) = compiles
    assert "(if (bin eq (var i) (const int 3)) (" in text
    assert text.count("(select (bin eq (var i) (const int 3))") == 1  # w's write only


def test_local_matrix_entries_rows_and_nested_indexing():
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.f32, ndim=2), rows: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        m = qd.Matrix([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        for i in range(2):
            for j in range(3):
                m[i, j] = m[i, j] * 2.0 + m[i, :][j]  # 3 m[i, j]
        for i in range(2):
            m[i, 1] += 100.0
        for i in range(2):
            for j in range(3):
                out[i, j] = m[i, j]
        for i in range(2):
            r = m[i, :]
            for j in qd.static(range(3)):
                rows[i, j] = r[j]
        m[1, :] = qd.Vector([7.0, 8.0, 9.0])
        i = 1
        for j in range(3):
            rows[2, j] = m[i, :][j]

    out = np.zeros((2, 3), np.float32)
    rows = np.zeros((3, 3), np.float32)
    k(out, rows)
    expected = 3 * np.arange(6, dtype=np.float32).reshape(2, 3)
    expected[:, 1] += 100
    np.testing.assert_allclose(out, expected)
    np.testing.assert_allclose(rows[:2], expected)
    np.testing.assert_allclose(rows[2], [7, 8, 9])


def test_runtime_row_assignment_of_a_matrix():
    @qd.kernel
    def k(which: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        m = qd.Matrix([[1, 2], [3, 4], [5, 6]])
        m[which, :] = qd.Vector([-1, -2])
        for i, j in qd.static(qd.ndrange(3, 2)):
            out[i, j] = m[i, j]

    for which in range(3):
        out = np.zeros((3, 2), np.int32)
        k(which, out)
        expected = np.array([[1, 2], [3, 4], [5, 6]])
        expected[which] = [-1, -2]
        np.testing.assert_array_equal(out, expected)


def test_indices_from_arguments_and_loaded_values():
    @qd.kernel
    def k(i: qd.i32, idx: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        v = qd.Vector([0.5, 1.5, 2.5, 3.5])
        for n in range(idx.shape[0]):
            out[n] = v[idx[n]] + v[i]

    idx = np.array([3, 1, 0, 2, 2], np.int32)
    out = np.zeros(5, np.float32)
    k(2, idx, out)
    v = np.array([0.5, 1.5, 2.5, 3.5], np.float32)
    np.testing.assert_allclose(out, v[idx] + v[2])


def test_runtime_index_into_a_constructed_vector_and_a_func_argument():
    @qd.func
    def pick(v, i):
        return v[i]

    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(out.shape[0]):
            out[i] = qd.Vector([0, 1, 2])[i % 3] * 10 + pick(qd.Vector([7, 8, 9]), i % 3)

    out = np.zeros(6, np.int32)
    k(out)
    np.testing.assert_array_equal(out, (np.arange(6) % 3) * 10 + 7 + np.arange(6) % 3)


def test_shared_local_vector_updated_atomically_from_a_parallel_loop():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.i32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        counts = qd.Vector([0, 0, 0])
        for i in range(x.shape[0]):
            counts[x[i] % 3] += 1
        for j in qd.static(range(3)):
            out[j] = counts[j]

    x = np.arange(1000, dtype=np.int32) * 7
    out = np.zeros(3, np.int32)
    k(x, out)
    np.testing.assert_array_equal(out, np.bincount(x % 3, minlength=3))


def test_vector_and_matrix_ndarray_elements():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.math.mat2), b: qd.types.ndarray(dtype=qd.types.vector(10, qd.i32))):
        for i in range(a.shape[0]):
            for j, c in qd.ndrange(2, 2):
                a[i][j, c] = j * j + c * c + i
            for j in range(4):
                b[i][j * j] = j * j
            for j in range(10):
                b[i][j] += a[i][j % 2, :][j // 5]  # a runtime row, then a runtime entry of it

    a = np.zeros((5, 2, 2), np.float32)
    b = np.zeros((5, 10), np.int32)
    k(a, b)
    j, c = np.meshgrid(np.arange(2), np.arange(2), indexing="ij")
    expected_a = (j * j + c * c)[None] + np.arange(5)[:, None, None]
    np.testing.assert_allclose(a, expected_a)
    expected_b = np.zeros((5, 10), np.int32)
    expected_b[:, [0, 1, 4, 9]] = [0, 1, 4, 9]
    jj = np.arange(10)
    expected_b += expected_a[:, jj % 2, jj // 5].astype(np.int32)
    np.testing.assert_array_equal(b, expected_b)


def test_vector_and_matrix_field_elements():
    m = qd.Matrix.field(2, 3, qd.i32, 4)
    v = qd.Vector.field(3, qd.f32, 4)

    @qd.kernel
    def fill():
        for i in range(4):
            for r in range(2):
                for c in range(3):
                    m[i][r, :][c] = i * 100 + r * 10 + c
            for c in range(3):
                v[i][c] = m[i][1, c] * 0.5

    @qd.kernel
    def total(r: qd.i32, c: qd.i32, out: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(4):
            out[i] = m[i][r, c] + m[i][r, :][c]

    fill()
    expected_m = (np.arange(4)[:, None, None] * 100 + np.arange(2)[None, :, None] * 10
                  + np.arange(3)[None, None, :])
    np.testing.assert_array_equal(m.to_numpy(), expected_m)
    np.testing.assert_allclose(v.to_numpy(), expected_m[:, 1, :] * 0.5)
    out = np.zeros(4, np.int32)
    total(1, 2, out)
    np.testing.assert_array_equal(out, 2 * expected_m[:, 1, 2])


def test_parallel_updates_of_container_entries_are_atomic():
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.i32, ndim=1), hist: qd.types.ndarray(dtype=qd.types.vector(4, qd.i32))):
        for i in range(x.shape[0]):
            hist[0][x[i] % 4] += 1

    x = np.arange(4000, dtype=np.int32) * 3
    hist = np.zeros((1, 4), np.int32)
    k(x, hist)
    np.testing.assert_array_equal(hist[0], np.bincount(x % 4, minlength=4))


def test_container_element_with_runtime_index_is_one_load_in_the_ir():
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.math.vec4, ndim=1), j: qd.i32) -> qd.f32:
        return a[0][j]

    text = k.ir((("array", "f32", 1, (4,), True, True), ("scalar", "i32")))
    assert "(load a ((const int 0)) ((arg j)))" in text
    assert "(select " not in text  # not bare "select": the source path in the options may contain it


def test_out_of_range_local_index_is_an_assertion_in_debug_mode():
    qd.init(debug=True)

    @qd.kernel
    def write(i: qd.i32):
        x = qd.Vector([1, 0])
        x[i] = 42
        assert x[i] == 42

    @qd.kernel
    def read(i: qd.i32, j: qd.i32) -> qd.i32:
        y = qd.Matrix([[1, 1, 1], [2, 2, 2], [3, 3, 3]])
        return y[i, j]

    write(1)
    assert read(2, 2) == 3
    for bad in (2, -1):
        with pytest.raises(AssertionError, match="Out of bound access"):
            write(bad)
    for i, j in ((2, 3), (3, 0), (-1, 0)):
        with pytest.raises(AssertionError, match="Out of bound access"):
            read(i, j)


def test_out_of_range_container_element_index_is_an_index_error_in_debug_mode():
    qd.init(debug=True)

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), j: qd.i32):
        a[0][j] = 1.0

    a = np.zeros((2, 3), np.float32)
    k(a, 2)
    assert a[0, 2] == 1
    with pytest.raises(IndexError, match=r"index \(0, 3\) is out of bounds for 'a' of shape \(2, 3\) in dimension 1"):
        k(a, 3)


def test_out_of_range_indices_do_not_crash_in_release_mode():
    @qd.kernel
    def k(i: qd.i32, a: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)) -> qd.f32:
        v = qd.Vector([1.0, 2.0, 3.0])
        v[i] = 9.0  # writes nothing
        a[0][i] = 5.0  # clamped into the element
        return v[0] + v[1] + v[2] + a[1][i] * 0.0

    a = np.zeros((2, 3), np.float32)
    for i in (-100000, -1, 3, 100000):
        assert k(i, a) == 6.0
    assert a[1].tolist() == [0, 0, 0]


def test_too_many_indices_name_the_vector():
    @qd.kernel
    def k(i: qd.i32) -> qd.i32:
        v = qd.Vector([1, 2, 3])
        return v[i, 0]

    with pytest.raises(QuadrantsIndexError, match="Expected 1 indices, got 2: a 3-vector takes 1"):
        k(0)  # upstream's class and words, then the vector


@qd.kernel
def _constant_row(i: qd.i32, a: qd.types.ndarray(dtype=qd.math.mat2, ndim=1)) -> qd.f32:
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    return m[0][0]


@qd.kernel
def _runtime_row(i: qd.i32, a: qd.types.ndarray(dtype=qd.math.mat2, ndim=1)) -> qd.f32:
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    return m[i][0]


@qd.kernel
def _element_row(i: qd.i32, a: qd.types.ndarray(dtype=qd.math.mat2, ndim=1)) -> qd.f32:
    return a[0][i][0]


@pytest.mark.parametrize("kernel", [_constant_row, _runtime_row, _element_row])
def test_a_matrix_indexed_with_one_index_is_an_error_as_upstream(kernel):
    with pytest.raises(QuadrantsIndexError, match="Expected 2 indices, got 1: a 2x2 matrix takes 2"):
        kernel(0, np.zeros((1, 2, 2), np.float32))


def test_a_matrix_row_assigned_with_one_index_is_an_error_as_upstream():
    @qd.kernel
    def write(i: qd.i32):
        m = qd.Matrix([[1, 2], [3, 4]])
        m[i] = qd.Vector([5, 6])

    with pytest.raises(QuadrantsIndexError, match="Expected 2 indices, got 1"):
        write(0)


def test_vector_members_of_struct_field_elements():
    particle = qd.types.struct(vel=qd.math.vec3, mass=qd.f32)
    f = particle.field(shape=4)

    @qd.kernel
    def k():
        for i in range(4):
            for j in range(3):
                f[i].vel[j] = i * 10 + j
                f[i].vel[j] += f[i].vel[(j + 1) % 3]

    k()
    base = np.arange(4)[:, None] * 10 + np.arange(3)[None, :]
    expected = base.astype(np.float32)
    expected[:, 2] += base[:, 0]  # only the last entry sees an entry written before it
    np.testing.assert_allclose(f.vel.to_numpy(), expected)


def test_a_grouped_index_vector_indexes_a_matrix_entry():
    # m[I] with I one entry per axis, from qd.grouped over a static or a runtime ndrange, as upstream.
    x = qd.Matrix.field(2, 3, dtype=qd.f32, shape=(4,))

    @qd.kernel
    def fill(out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(4):
            for I in qd.static(qd.grouped(qd.ndrange(2, 3))):
                x[i][I] = I[0] + I[1] * 10 + i * 100
        m = qd.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        for I in qd.grouped(qd.ndrange(2, 3)):
            out[I[0] * 3 + I[1]] = m[I]

    out = np.zeros(6, np.float32)
    fill(out)
    expected = np.array([[k + l * 10 for l in range(3)] for k in range(2)], np.float32)
    np.testing.assert_array_equal(x.to_numpy(), [expected + 100 * i for i in range(4)])
    np.testing.assert_array_equal(out, [1, 2, 3, 4, 5, 6])
