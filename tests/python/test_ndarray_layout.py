# tests/python/test_ndarray_layout.py: memory order of ndarrays: qd.tensor(..., layout=...) and the _qd_layout tag.
"""Issue 12: an ndarray in a layout is a row-major allocation of the permuted (physical) shape, indexed in canonical
order everywhere (kernels, Python scope, copies, DLPack, pickle, deepcopy, gradients); only addresses change."""
import copy
import itertools
import pickle

import numpy as np
import pytest

import quadrants as qd
from quadrants._tensor import _with_layout


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


@qd.kernel
def fill_rank2(x: qd.types.ndarray()):
    for i, j in qd.ndrange(x.shape[0], x.shape[1]):
        x[i, j] = i * 100 + j


@qd.kernel
def fill_rank3(x: qd.types.ndarray()):
    for i, j, k in qd.ndrange(x.shape[0], x.shape[1], x.shape[2]):
        x[i, j, k] = i * 100 + j * 10 + k


def raw_memory(ndarray):
    """The allocation's elements in memory order: on the host read through DLPack as one flat run; in device memory
    (not readable from here) placed by the strides that kernels and copies address it with."""
    if ndarray.__dlpack_device__()[0] == 1:
        view = np.from_dlpack(ndarray)
        assert min(view.strides) > 0  # starts at the allocation's first element, so the flat run covers it
        return np.lib.stride_tricks.as_strided(view, shape=(view.size,), strides=(view.itemsize,)).copy()
    values = ndarray.to_numpy()
    offsets = sum(np.indices(values.shape) * np.reshape(ndarray._array.strides, (-1,) + (1,) * values.ndim))
    flat = np.zeros(values.size, values.dtype)
    flat[offsets.ravel()] = values.ravel()
    assert sorted(offsets.ravel()) == list(range(values.size))  # dense: every element once
    return flat


def canonical(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


def test_rank2_transpose_is_column_major_in_memory():
    t = qd.tensor(qd.i32, shape=(3, 4), layout=(1, 0))
    x = t._unwrap()
    assert t.shape == x.shape == (3, 4)
    assert x._physical_shape == (4, 3)
    assert x._qd_layout == (1, 0) and x.layout == (1, 0) and t.layout == (1, 0)
    fill_rank2(t)
    expected = np.array([[i * 100 + j for j in range(4)] for i in range(3)], dtype=np.int32)
    np.testing.assert_array_equal(t.to_numpy(), expected)
    np.testing.assert_array_equal(raw_memory(x), expected.T.ravel())  # physically (4, 3), row-major
    assert x._array.strides == (1, 3)  # in elements


@pytest.mark.parametrize("layout", list(itertools.permutations(range(3))))
def test_rank3_every_layout_stores_the_permuted_shape_row_major(layout):
    shape = (2, 3, 4)
    t = qd.tensor(qd.i32, shape=shape, layout=layout)
    x = t._unwrap()
    physical = tuple(shape[axis] for axis in layout)
    assert x.shape == shape and x._physical_shape == physical
    assert x.layout == (None if layout == (0, 1, 2) else layout)
    fill_rank3(t)
    values = np.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, shape, dtype=np.int32)
    np.testing.assert_array_equal(x.to_numpy(), values)
    np.testing.assert_array_equal(raw_memory(x), values.transpose(layout).ravel())
    for index in itertools.product(*(range(n) for n in shape)):
        assert t[index] == values[index]


def test_layout_buffer_is_byte_identical_to_the_row_major_physical_ndarray():
    """qd.tensor(shape=(B, N), layout=(1, 0)) holds the same bytes as qd.ndarray(shape=(N, B)) written transposed."""
    n, b = 5, 7
    rotated = qd.tensor(qd.i32, shape=(b, n), layout=(1, 0))
    parent = qd.ndarray(qd.i32, (n, b))

    @qd.kernel
    def fill_both(r: qd.types.ndarray(), p: qd.types.ndarray()):
        for i, j in qd.ndrange(b, n):
            r[i, j] = j * 1000 + i
            p[j, i] = j * 1000 + i

    fill_both(rotated, parent)
    np.testing.assert_array_equal(raw_memory(rotated._unwrap()), raw_memory(parent))


def test_copies_host_indexing_and_fill_are_canonical():
    shape = (3, 4)
    t = qd.tensor(qd.i32, shape=shape, layout=(1, 0))
    src = canonical(shape)
    t.from_numpy(src)
    np.testing.assert_array_equal(t.to_numpy(), src)
    np.testing.assert_array_equal(raw_memory(t._unwrap()), src.T.ravel())
    t[2, 1] = -5
    assert t[2, 1] == -5 and t.to_numpy()[2, 1] == -5
    plain = qd.ndarray(qd.i32, shape)
    plain.copy_from(t._unwrap())
    np.testing.assert_array_equal(plain.to_numpy(), t.to_numpy())
    t.fill(7)
    assert (t.to_numpy() == 7).all()


def test_torch_copies_and_zero_copy_views_are_canonical():
    torch = pytest.importorskip("torch")
    shape = (3, 4)
    t = qd.tensor(qd.f32, shape=shape, layout=(1, 0))
    src = torch.arange(12, dtype=torch.float32).reshape(shape)
    t.from_torch(src)
    assert torch.equal(t.to_torch(), src)
    if t._unwrap().__dlpack_device__()[0] != 1 and not torch.cuda.is_available():
        return  # this torch cannot reach the device memory that the views below alias
    view = t.to_torch(copy=False)
    assert view.shape == shape and view.stride() == (1, 3)  # the canonical view of a (4, 3) allocation
    view[1, 2] = 99.0
    if view.is_cuda:
        torch.cuda.synchronize()
    assert t[1, 2] == 99.0
    exported = torch.utils.dlpack.from_dlpack(t.to_dlpack())
    assert exported.shape == shape and torch.equal(exported, view)


def test_pickle_and_deepcopy_keep_the_layout_and_the_values():
    shape = (2, 3, 4)
    x = qd.tensor(qd.i32, shape=shape, layout=(2, 0, 1))._unwrap()
    x.from_numpy(canonical(shape))
    for copied in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert copied.shape == shape and copied.layout == (2, 0, 1) and copied._physical_shape == (4, 2, 3)
        np.testing.assert_array_equal(copied.to_numpy(), canonical(shape))
        np.testing.assert_array_equal(raw_memory(copied), raw_memory(x))
        copied[0, 0, 0] = -1
        assert x[0, 0, 0] == 0  # a copy, not an alias


def test_gradient_shares_the_layout():
    t = qd.tensor(qd.f32, shape=(2, 3), layout=(1, 0), needs_grad=True)

    @qd.kernel
    def write(x: qd.types.ndarray()):
        for i, j in qd.ndrange(2, 3):
            x[i, j] = i * 10 + j
            x.grad[i, j] = i * 100 + j * 10

    write(t)
    grad = t.grad._unwrap()
    assert grad.shape == (2, 3) and grad.layout == (1, 0)
    np.testing.assert_array_equal(t.grad.to_numpy(), [[0, 10, 20], [100, 110, 120]])
    np.testing.assert_array_equal(raw_memory(grad), [0, 100, 10, 110, 20, 120])


def test_tagging_reinterprets_the_physical_allocation():
    """Upstream's bare path: an ndarray allocated at the physical shape, then tagged, keeps its memory and is seen
    in canonical order; retagging or untagging reinterprets the same memory again."""
    x = qd.ndarray(qd.i32, (4, 3))  # physical
    x.from_numpy(canonical((4, 3)))
    before = raw_memory(x)
    assert _with_layout(qd.Tensor(x), (1, 0)) is x
    assert x.shape == (3, 4) and x._physical_shape == (4, 3)
    np.testing.assert_array_equal(x.to_numpy(), canonical((4, 3)).T)
    np.testing.assert_array_equal(raw_memory(x), before)
    x._qd_layout = None
    assert x.shape == (4, 3) and x.layout is None
    np.testing.assert_array_equal(x.to_numpy(), canonical((4, 3)))
    x._qd_layout = (0, 1)  # the identity changes no memory, but reads back as written (upstream keys it apart)
    assert x._qd_layout == (0, 1) and x.layout is None and x.shape == (4, 3)
    np.testing.assert_array_equal(raw_memory(x), before)
    x._qd_layout = None
    assert x._qd_layout is None


def test_an_identity_tag_keys_the_fast_cache_apart_from_no_tag():
    from quadrants.lang._fast_caching.args_hasher import stringify_obj_type

    plain, tagged = qd.Vector.ndarray(3, qd.f32, (4,)), qd.Vector.ndarray(3, qd.f32, (4,))
    tagged._qd_layout = (0,)
    assert stringify_obj_type(False, ("x",), plain, None) == "[ndv-3-f32-1]"
    assert stringify_obj_type(False, ("x",), tagged, None) == "[ndv-3-f32-1-L(0,)]"


def test_vector_elements_stay_innermost():
    v = qd.Vector.ndarray(2, qd.f32, (3, 4))
    v._qd_layout = (1, 0)  # allocated (3, 4): canonical (4, 3)
    assert v.shape == (4, 3) and v.element_shape == (2,)
    data = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    v.from_numpy(data)
    np.testing.assert_array_equal(v.to_numpy(), data)
    np.testing.assert_array_equal(raw_memory(v), data.transpose(1, 0, 2).ravel())


def test_kernel_specializes_on_the_layout_and_reads_canonically():
    @qd.kernel
    def total(x: qd.types.ndarray()) -> qd.i32:
        s = 0
        for i, j in qd.ndrange(x.shape[0], x.shape[1]):
            s += x[i, j] * (i + 1)
        return s

    src = canonical((3, 4))
    plain, tagged = qd.ndarray(qd.i32, (3, 4)), qd.tensor(qd.i32, shape=(3, 4), layout=(1, 0))
    plain.from_numpy(src)
    tagged.from_numpy(src)
    assert total(plain) == total(tagged) == total(plain) == int((src * np.arange(1, 4)[:, None]).sum())


@pytest.mark.parametrize("layout, message", [((0, 1, 2), "layout has 3 entries but shape has 2 dimensions"),
                                             ((0, 0), r"layout=\(0, 0\) is not a permutation of range\(2\)")])
def test_bad_layouts_are_rejected(layout, message):
    with pytest.raises(ValueError, match=message):
        qd.tensor(qd.i32, shape=(3, 4), layout=layout)
    with pytest.raises(ValueError, match=message.replace("shape", "ndarray")):
        _with_layout(qd.ndarray(qd.i32, (3, 4)), layout)
