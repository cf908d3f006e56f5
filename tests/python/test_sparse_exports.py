# tests/python/test_sparse_exports.py: every way out of a field under sparse SNodes, checked against kernel reads.
"""A field under pointer/bitmasked/dynamic nodes is written by a kernel at scattered indices; a second kernel copies
every element (inactive cells read 0) into a dense field. to_numpy, to_torch, element reads and copy_from must
agree with that copy and with the numpy array built from the writes, for each layout: a pointer over several axes
(whose cells are pooled on the CPU), pointers nested or under a dense node, bitmasked nodes, axes in another order,
offsets, vector elements and dynamic lists. Upstream: inactive cells read as zero through every path."""

import pickle

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _p_dense_2d(x):
    qd.root.pointer(qd.ij, (4, 4)).dense(qd.ij, (2, 2)).place(x)


def _p_dense_2d_uneven(x):
    qd.root.pointer(qd.ij, (3, 2)).dense(qd.ij, (2, 5)).place(x)


def _p_dense_3d(x):
    qd.root.pointer(qd.ijk, (2, 3, 2)).dense(qd.ijk, (2, 2, 3)).place(x)


def _p_axes_swapped(x):
    qd.root.pointer(qd.axes(1, 0), (4, 3)).dense(qd.ij, (2, 2)).place(x)


def _dense_p_dense(x):
    qd.root.dense(qd.ij, (2, 2)).pointer(qd.ij, (2, 2)).dense(qd.ij, (2, 3)).place(x)


def _p_p_dense(x):
    qd.root.pointer(qd.ij, (2, 2)).pointer(qd.ij, (2, 2)).dense(qd.ij, (2, 2)).place(x)


def _p_bitmasked(x):
    qd.root.pointer(qd.ij, (4, 2)).bitmasked(qd.ij, (2, 3)).place(x)


def _bitmasked_dense(x):
    qd.root.bitmasked(qd.ij, (3, 4)).dense(qd.ij, (2, 2)).place(x)


def _p_i_dense_ij(x):
    qd.root.pointer(qd.i, 3).dense(qd.ij, (2, 5)).place(x)


LAYOUTS = [_p_dense_2d, _p_dense_2d_uneven, _p_dense_3d, _p_axes_swapped, _dense_p_dense, _p_p_dense, _p_bitmasked,
           _bitmasked_dense, _p_i_dense_ij]


def _place(layout):
    x = qd.field(qd.f32)
    layout(x)
    return x


def _scattered(shape, count, seed):
    """`count` distinct random indices of `shape` and a distinct nonzero value for each."""
    rng = np.random.default_rng(seed)
    flat = rng.choice(int(np.prod(shape)), size=count, replace=False)
    return np.stack(np.unravel_index(flat, shape), 1), np.arange(1, count + 1, dtype=np.float32) * 1.5


def _write_and_copy(x, indices, values, offset=None):
    """Writes values at indices of a scalar field in a kernel, then copies every element (kernel reads) to a dense
    field."""
    n = len(indices)
    idx = qd.ndarray(qd.i32, shape=indices.shape)
    idx.from_numpy(indices.astype(np.int32))
    val = qd.ndarray(qd.f32, shape=n)
    val.from_numpy(values)
    dense = qd.field(x.dtype, shape=x.shape, offset=offset)
    dim = len(x.shape)
    lo = np.array(offset or (0,) * dim)

    @qd.kernel
    def write(idx: qd.types.ndarray(), val: qd.types.ndarray()):
        for k in range(n):
            if qd.static(dim == 2):
                x[idx[k, 0] + lo[0], idx[k, 1] + lo[1]] = val[k]
            else:
                x[idx[k, 0] + lo[0], idx[k, 1] + lo[1], idx[k, 2] + lo[2]] = val[k]

    @qd.kernel
    def copy_out():
        for I in qd.grouped(qd.ndrange(*[(int(a), int(a) + s) for a, s in zip(lo, x.shape)])):
            dense[I] = x[I]

    write(idx, val)
    copy_out()
    return dense


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda f: f.__name__[1:])
def test_every_way_out_matches_kernel_reads(layout):
    x = _place(layout)
    indices, values = _scattered(x.shape, 7, seed=len(x.shape) * 31 + x.shape[0])
    dense = _write_and_copy(x, indices, values)
    expected = np.zeros(x.shape, np.float32)
    expected[tuple(indices.T)] = values
    np.testing.assert_array_equal(dense.to_numpy(), expected)  # the kernels themselves agree
    np.testing.assert_array_equal(x.to_numpy(), expected)
    np.testing.assert_array_equal(x.to_numpy(dtype=np.float64), expected.astype(np.float64))
    for index, value in zip(indices, values):
        assert x[tuple(int(i) for i in index)] == value
    inactive = tuple(int(i) for i in np.argwhere(expected == 0)[0])
    assert x[inactive] == 0
    copy = qd.field(qd.f32, shape=x.shape)
    copy.copy_from(x)
    np.testing.assert_array_equal(copy.to_numpy(), expected)
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(x.to_torch().numpy(), expected)


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda f: f.__name__[1:])
def test_from_numpy_then_to_numpy_keeps_places(layout):
    x = _place(layout)
    indices, values = _scattered(x.shape, 5, seed=7)
    _write_and_copy(x, indices, values)  # activates the cells of those elements
    active = x.to_numpy() != 0
    incoming = np.arange(1, x.to_numpy().size + 1, dtype=np.float32).reshape(x.shape)
    x.from_numpy(incoming)
    got = x.to_numpy()
    assert (got[active] == incoming[active]).all()
    dense = qd.field(qd.f32, shape=x.shape)

    @qd.kernel
    def read_back():
        for I in qd.grouped(dense):
            dense[I] = x[I]

    read_back()
    np.testing.assert_array_equal(dense.to_numpy(), got)  # what Python wrote is where kernels read it


def test_offsets_under_a_pointer():
    x = qd.field(qd.f32)
    qd.root.pointer(qd.ij, (4, 4)).dense(qd.ij, (2, 2)).place(x, offset=(-4, 3))
    indices, values = _scattered(x.shape, 6, seed=3)
    dense = _write_and_copy(x, indices, values, offset=(-4, 3))
    expected = np.zeros(x.shape, np.float32)
    expected[tuple(indices.T)] = values
    np.testing.assert_array_equal(dense.to_numpy(), expected)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    i, j = indices[0]
    assert x[int(i) - 4, int(j) + 3] == values[0]


def test_vector_field_under_a_2d_pointer():
    v = qd.Vector.field(3, qd.f32)
    qd.root.pointer(qd.ij, (3, 3)).dense(qd.ij, (2, 2)).place(v)

    @qd.kernel
    def write():
        v[1, 4] = qd.Vector([1.0, 2.0, 3.0])
        v[5, 0] = qd.Vector([4.0, 5.0, 6.0])

    write()
    got = v.to_numpy()
    assert got.shape == (6, 6, 3)
    np.testing.assert_array_equal(got[1, 4], [1, 2, 3])
    np.testing.assert_array_equal(got[5, 0], [4, 5, 6])
    assert np.count_nonzero(got) == 6
    assert list(v[5, 0]) == [4.0, 5.0, 6.0]


def test_dynamic_lists_read_out_in_place():
    x = qd.field(qd.i32)
    qd.root.dense(qd.i, 3).dynamic(qd.j, 8, chunk_size=4).place(x)

    @qd.kernel
    def grow():
        for i in range(3):
            for k in range(i * 2 + 1):
                qd.append(x.parent(), i, k + 10 * i)

    grow()
    expected = np.zeros((3, 8), np.int32)
    for i in range(3):
        expected[i, :2 * i + 1] = np.arange(2 * i + 1) + 10 * i
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert x[2, 4] == 24 and x[0, 5] == 0
    copy = qd.field(qd.i32, shape=(3, 8))
    copy.copy_from(x)
    np.testing.assert_array_equal(copy.to_numpy(), expected)


def test_sparse_fields_refuse_zero_copy_exports_and_pickling():
    x = _place(_p_dense_2d)
    x[2, 3] = 1.0
    with pytest.raises(BufferError, match="sparse SNode"):
        x.__dlpack__()
    with pytest.raises(ValueError, match="Zero-copy not available"):
        x.to_numpy(copy=False)
    with pytest.raises(TypeError, match="Cannot pickle"):
        pickle.dumps(x)
