# Vector/matrix slices (matrix_slices.py), v.fill(x) in place, qd.Matrix.rows/cols of kernel vectors,
# float()/int() of compile-time values and tuple-valued `a if c else b`: what Genesis' solvers write.
import numpy as np
import pytest

import quadrants as qd


def _mats(values):
    m = qd.ndarray(qd.math.mat3, len(values))
    m.from_numpy(np.asarray(values, np.float32))
    return m


def test_slice_reads_have_numpys_shapes():
    @qd.kernel
    def read(m: qd.types.ndarray(dtype=qd.math.mat3, ndim=1), out: qd.types.ndarray()):
        a = m[0]
        row, col, block, tail = a[1, :], a[:, 2], a[0:2, 1:3], a[2, 1:]
        v = qd.Vector([1.0, 2.0, 3.0, 4.0, 5.0])
        out[0] = row.dot(qd.Vector([1.0, 10.0, 100.0]))
        out[1] = col.dot(qd.Vector([1.0, 10.0, 100.0]))
        out[2] = block[1, 0] * 1000 + block[0, 1]
        out[3] = tail[0] + tail[1] * 10 + v[::2].sum() * 100 + v[3:].sum() * 10000

    out = np.zeros(4, np.float32)
    read(_mats([np.arange(9).reshape(3, 3)]), out)
    np.testing.assert_array_equal(out, [3 + 40 + 500, 2 + 50 + 800, 4000 + 2, 7 + 80 + 900 + 90000])


def test_slice_stores_with_static_and_runtime_indices():
    @qd.kernel
    def store(m: qd.types.ndarray(dtype=qd.math.mat3, ndim=1), o: qd.types.ndarray(dtype=qd.math.mat3, ndim=1),
              i0: qd.i32):
        for n in range(m.shape[0]):
            matin = m[n]
            res = qd.Matrix.zero(qd.f32, 3, 3)
            res[0, :] = matin[i0, :] * 2.0  # a runtime row
            res[1:, 1] = matin[:2, 2]
            res[2, ::2] = qd.Vector([7.0, 8.0])
            o[n] = res
            o[n][:, 1] += 1.0  # an element's column, in place

    m, o = _mats([np.arange(9).reshape(3, 3)]), qd.ndarray(qd.math.mat3, 1)
    store(m, o, 2)
    np.testing.assert_array_equal(o.to_numpy()[0], [[12, 15, 16], [0, 3, 0], [7, 6, 8]])
    store(m, o, 0)
    np.testing.assert_array_equal(o.to_numpy()[0][0], [0, 3, 4])


def test_fill_sets_locals_and_elements_in_place():
    v = qd.Vector.field(3, qd.f32, shape=(2, 2))

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1), out: qd.types.ndarray()):
        for i in range(2):
            v[i, 1].fill(2.0)
            a[i].fill(i + 0.5)
        local = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        local.fill(9.0)
        out[0] = local.sum()

    a, out = qd.Vector.ndarray(3, qd.f32, 2), np.zeros(1, np.float32)
    fill(a, out)
    assert out[0] == 36
    np.testing.assert_array_equal(v.to_numpy()[:, 1], np.full((2, 3), 2.0))
    np.testing.assert_array_equal(v.to_numpy()[:, 0], np.zeros((2, 3)))
    np.testing.assert_array_equal(a.to_numpy(), [[0.5] * 3, [1.5] * 3])


def test_matrix_rows_and_cols_of_kernel_vectors():
    @qd.kernel
    def build(x: qd.f32) -> qd.f32:
        axis = qd.Vector([x, 2.0 * x])
        rows = qd.Matrix.rows([axis, -axis, [1.0, 2.0]])
        cols = qd.Matrix.cols([axis, -axis])
        return rows[1, 1] * 100 + rows[2, 0] * 10 + cols[1, 0] + cols[0, 1] * 1000

    assert build(3.0) == -600 + 10 + 6 - 3000


def test_float_and_int_of_compile_time_values_stay_python_values():
    limit = np.float64(1.0) / 3

    @qd.kernel
    def k(out: qd.types.ndarray()):
        nearest = qd.static(float(np.nextafter(limit, 1.0)) if limit > 0 else 3.0)  # a[0] = qd.static() is an error
        seven = qd.static(int(7.9))
        out[0] = nearest
        out[1] = seven
        out[2] = float(out[1])  # of a kernel value: still a cast

    out = np.zeros(3, np.float64)
    k(out)
    assert out[0] == float(np.nextafter(limit, 1.0)) and out[1] == 7 and out[2] == 7


def test_tuple_branches_of_a_runtime_condition_select_element_wise():
    @qd.kernel
    def pick(pairs: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in range(3):
            for j in range(3):
                out[(i, j) if i > j else (j, i)] += pairs[i, j]

    pairs = np.arange(9, dtype=np.float32).reshape(3, 3)
    out = np.zeros((3, 3), np.float32)
    pick(pairs, out)
    expected = np.zeros((3, 3), np.float32)
    for i in range(3):
        for j in range(3):
            expected[max(i, j), min(i, j)] += pairs[i, j]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("body, message", [
    ("v[n:]", "variables in slice now: the slice bounds of a 3-vector must be known at compile time"),
    ("v[2:1]", "selects no entries"),
    ("v[1, :]", "has 1 dimension.s., but was indexed with 2"),
])
def test_bad_slices_are_clear_errors(body, message, tmp_path):
    import importlib.util

    path = tmp_path / "bad_slice.py"  # kernels need a source file
    path.write_text("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32) -> qd.f32:\n"
                    f"    v = qd.Vector([1.0, 2.0, 3.0])\n    w = {body}\n    return w.sum()\n")
    spec = importlib.util.spec_from_file_location(f"bad_slice_{tmp_path.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(qd.QuadrantsCompilationError, match=message):
        module.k(1)
