# tests/python/test_buffer_view.py: qd.BufferView, a view of a contiguous sub-range of a 1-D ndarray: made in Python
# scope and in kernels, passed to kernels and funcs, checked in debug mode; results compared with numpy's slices.
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import quadrants as qd
from quadrants.lang import impl

N = 24


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _ndarray(values, dtype=qd.f32):
    arr = qd.ndarray(dtype, shape=values.shape)
    arr.from_numpy(values)
    return arr


# ---- Python scope ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", [slice(3, 10), slice(None, 5), slice(7, None), slice(-6, None), slice(-9, -2),
                                 slice(None), slice(10, 4), slice(None, 100)])
def test_a_slice_views_the_elements_numpy_slices(key):
    data = qd.ndarray(qd.f32, shape=(N,))
    view = data[key]
    expected = np.arange(N)[key]
    assert isinstance(view, qd.BufferView) and view.get_ndarray() is data
    assert (view.size, view.shape) == (len(expected), (len(expected),))
    if len(expected):
        assert view.offset == expected[0]


def test_slices_of_a_view_and_subview_accumulate_offsets():
    data = qd.Vector.ndarray(3, qd.f32, (N,))
    a = data[4:20]
    b = a[2:-3]
    c = b.subview(5, 4)
    positions = np.arange(N)[4:20][2:-3][5:9]
    assert (b.offset, b.size) == (6, 11)
    assert (c.offset, c.size) == (positions[0], len(positions)) and c.get_ndarray() is data


def test_python_scope_errors():
    data = qd.ndarray(qd.f32, shape=(N,))
    with pytest.raises(ValueError, match="step=1"):
        data[::2]
    with pytest.raises(ValueError, match="step=1"):
        data[2:8][::-1]
    with pytest.raises(TypeError, match="1D"):
        qd.ndarray(qd.f32, shape=(4, 4))[:2]
    with pytest.raises(TypeError, match="slice"):
        data[2:8][0]
    for offset, size in ((-1, 4), (0, -1), (20, 5)):
        with pytest.raises(ValueError, match="out of range"):
            qd.BufferView(data, offset, size)
    with pytest.raises(ValueError, match="subview out of range"):
        data[:8].subview(6, 3)
    with pytest.raises(TypeError, match="subview"):
        qd.BufferView(data[:8], 0, 2)
    with pytest.raises(TypeError, match="needs_grad"):
        qd.BufferView(qd.ndarray(qd.f32, shape=(4,), needs_grad=True), 0, 2)
    with pytest.raises(TypeError, match="qd.ndarray"):
        qd.BufferView(np.zeros(4), 0, 2)
    with pytest.raises(TypeError, match="must be an int"):
        qd.BufferView(data, 1.5, 2)


# ---- kernels ---------------------------------------------------------------------------------------------------
@qd.kernel
def scale_into(v: qd.BufferView[qd.f32], out: qd.BufferView[qd.f32], factor: qd.f32):
    for i in range(v.size):
        out[i] = v[i] * factor + i


def test_a_kernel_reads_and_writes_the_views_elements_and_compiles_once_for_every_offset():
    values = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    data = _ndarray(values)
    expected = values.copy()
    compiled = impl.get_runtime().get_num_compiled_functions()
    for (a, b), (c, d) in (((0, 6), (12, 18)), ((3, 10), (14, 21)), ((18, 24), (0, 6))):
        scale_into(data[a:b], data[c:d], 2.0)
        expected[c:d] = expected[a:b] * 2.0 + np.arange(b - a)
        np.testing.assert_allclose(data.to_numpy(), expected, rtol=1e-6)
    assert impl.get_runtime().get_num_compiled_functions() - compiled <= 1


def test_an_unannotated_dtype_follows_the_viewed_ndarray():
    @qd.kernel
    def total(v: qd.BufferView, out: qd.types.ndarray(qd.f64, ndim=1)):
        for i in range(v.size):
            out[0] += v[i]

    for dtype, np_dtype in ((qd.i32, np.int32), (qd.f64, np.float64)):
        values = np.arange(N, dtype=np_dtype) * 3
        out = np.zeros(1)
        total(_ndarray(values, dtype)[5:17], out)
        assert out[0] == values[5:17].sum()


def test_vector_and_matrix_elements():
    vectors = np.random.default_rng(2).standard_normal((N, 3)).astype(np.float32)
    vec = qd.Vector.ndarray(3, qd.f32, (N,))
    vec.from_numpy(vectors)
    mat = qd.Matrix.ndarray(2, 2, qd.f32, (N,))

    @qd.kernel
    def outer(v: qd.BufferView, m: qd.BufferView):
        for i in range(m.size):
            for r in qd.static(range(2)):
                for c in qd.static(range(2)):
                    m[i][r, c] = v[i][r] * v[i][c + 1]

    outer(vec[4:12], mat[10:18])
    expected = np.zeros((N, 2, 2), np.float32)
    expected[10:18] = vectors[4:12, :2, None] * vectors[4:12, None, 1:]
    np.testing.assert_allclose(mat.to_numpy(), expected, rtol=1e-6)


def test_views_made_inside_a_kernel():
    @qd.func
    def bump(v: qd.BufferView[qd.i32], amount: qd.i32):
        for i in range(v.size):
            v[i] += amount

    @qd.kernel
    def k(arr: qd.types.ndarray(qd.i32, ndim=1), view: qd.BufferView[qd.i32], start: qd.i32, size: qd.i32):
        bump(arr[2:6], 1)  # an ndarray slice
        bump(qd.BufferView(arr, start, size), 10)
        bump(view[start - 10:start - 7], 100)  # a view's slice with runtime bounds
        bump(view[-2:], 1000)  # a constant negative bound counts from the end, as in Python
        bump(view.subview(1, 2), 10000)

    data = _ndarray(np.zeros(N, np.int32), qd.i32)
    k(data, data[10:20], 12, 5)
    expected = np.zeros(N, np.int32)
    expected[2:6] += 1
    expected[12:17] += 10
    view = np.arange(N)[10:20]
    expected[view[2:5]] += 100
    expected[view[-2:]] += 1000
    expected[view[1:3]] += 10000
    np.testing.assert_array_equal(data.to_numpy(), expected)


def test_atomic_updates_through_a_view_and_an_unannotated_func_parameter():
    @qd.func
    def count(v, i):
        qd.atomic_add(v[i % v.size], 1)

    @qd.kernel
    def k(v: qd.BufferView[qd.i32], n: qd.i32):
        for i in range(n):
            count(v, i)
            v[0] += 2

    data = _ndarray(np.zeros(N, np.int32), qd.i32)
    k(data[5:8], 100)
    expected = np.zeros(N, np.int32)
    np.add.at(expected, 5 + np.arange(100) % 3, 1)
    expected[5] += 200
    np.testing.assert_array_equal(data.to_numpy(), expected)


def test_a_view_keeps_the_bounds_it_was_made_with():
    @qd.kernel
    def k(arr: qd.types.ndarray(qd.i32, ndim=1)):
        start = 3
        view = arr[start:start + 2]
        start = 10  # the view was made at 3
        for i in range(view.size):
            view[i] = start

    data = _ndarray(np.zeros(N, np.int32), qd.i32)
    k(data)
    expected = np.zeros(N, np.int32)
    expected[3:5] = 10
    np.testing.assert_array_equal(data.to_numpy(), expected)


def test_kernel_errors():
    data = qd.ndarray(qd.f32, shape=(N,))

    @qd.kernel
    def fill(v: qd.BufferView[qd.f32]):
        for i in range(v.size):
            v[i] = 1.0

    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="expects a BufferView, got ScalarNdarray"):
        fill(data)
    fill(data[:4])
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match="expects a BufferView"):
        fill(data)  # the same check once the kernel has an entry

    @qd.kernel
    def stepped(v: qd.BufferView[qd.f32]):
        sub = v[::2]
        sub[0] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="explicit step"):
        stepped(data[:8])

    @qd.func
    def takes_view(v: qd.BufferView[qd.f32]):
        v[0] = 1.0

    @qd.kernel
    def passes_array(arr: qd.types.ndarray(qd.f32, ndim=1)):
        takes_view(arr)

    with pytest.raises(qd.QuadrantsSyntaxError, match="expects a BufferView"):
        passes_array(data)

    captured = data[:4]

    @qd.kernel
    def reads_a_global_view():
        captured[0] = 1.0

    with pytest.raises(qd.QuadrantsTypeError, match="only as an argument"):
        reads_a_global_view()


# ---- debug mode ------------------------------------------------------------------------------------------------
@pytest.fixture
def debug():
    qd.init(arch=qd.cpu, debug=True)


@qd.func
def store_at(v: qd.BufferView[qd.f32], i: qd.i32):
    v[i] = 1.0


@qd.kernel
def store_in_loop(v: qd.BufferView[qd.f32], i: qd.i32):
    for j in range(4):
        if j == 3:
            store_at(v, i)


def test_debug_mode_checks_every_index_against_the_view(debug):
    data = qd.ndarray(qd.f32, shape=(N,))
    store_in_loop(data[6:14], 7)  # the last element: no error
    assert data.to_numpy()[13] == 1.0
    for index in (8, -1):
        with pytest.raises(qd.QuadrantsAssertionError) as raised:
            store_in_loop(data[6:14], index)
        message = str(raised.value)
        assert f"BufferView Out Of Range: kernel[store_in_loop] tid=3, got index {index} (offset=6, size=8)" in message
        lines = message.splitlines()
        callstack = lines[lines.index("Callstack:") + 1:]
        assert [line.split(" (")[0] for line in callstack] == ["store_in_loop", "  store_at"]


def test_debug_mode_checks_views_made_in_a_kernel(debug):
    @qd.kernel
    def narrow(v: qd.BufferView[qd.f32], start: qd.i32, size: qd.i32):
        sub = v.subview(start, size)
        sub[0] = 2.0

    @qd.kernel
    def construct(arr: qd.types.ndarray(qd.f32, ndim=1), start: qd.i32, size: qd.i32):
        view = arr[start:start + size]
        view[0] = 3.0

    data = qd.ndarray(qd.f32, shape=(N,))
    narrow(data[4:12], 6, 2)
    construct(data, N - 2, 2)
    assert (data.to_numpy()[10], data.to_numpy()[N - 2]) == (2.0, 3.0)
    with pytest.raises(qd.QuadrantsAssertionError, match=r"subview Out Of Range: .* subview offset=6, subview size=3, "
                       r"parent size=8"):
        narrow(data[4:12], 6, 3)
    with pytest.raises(qd.QuadrantsAssertionError, match=r"construction out of range: offset=23, size=2, ndarray "
                       r"length=24"):
        construct(data, N - 1, 2)


# ---- the translation cache ---------------------------------------------------------------------------------------
PROGRAM = textwrap.dedent("""
    import json
    import numpy as np
    import quadrants as qd
    from quadrants.kernels import translation_cache

    qd.init(arch=qd.cpu)

    @qd.kernel
    def shift(v: qd.BufferView, out: qd.BufferView):
        for i in range(v.size):
            out[i] = v[i] + 1

    results = []
    for dtype in (qd.i32, qd.f32):
        data = qd.ndarray(dtype, shape=(8,))
        data.from_numpy(np.arange(8).astype(dtype.numpy))
        shift(data[0:3], data[4:7])
        results.append(data.to_numpy().tolist())
    print(json.dumps({"results": results, "stats": translation_cache.stats}))
""")


def test_a_warm_process_reuses_the_translation_of_a_view_kernel(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    env = dict(os.environ, QD_CACHE_DIR=str(tmp_path / "cache"), QD_TRANSLATION_CACHE="verify")
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    expected = [0, 1, 2, 3, 1, 2, 3, 7]
    assert runs[0]["results"] == runs[1]["results"] == [expected, expected]
    assert runs[0]["stats"]["translated"] == 2 and runs[1]["stats"]["translated"] == 0
