# tests/python/test_launch_args.py: zero-copy kernel arguments, Fortran-ordered and refused strided views,
# specialization counts, dtypes.
import gc
import weakref

import numpy as np
import pytest
import torch

import quadrants as qd
import quadrants.runtime._core as core


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


@pytest.fixture
def compiles(monkeypatch):
    """The IR texts handed to _core.compile_kernel from now on: one per new specialization."""
    seen = []
    original = core.compile_kernel

    def spy(text):
        seen.append(text)
        return original(text)

    monkeypatch.setattr(core, "compile_kernel", spy)
    return seen


@qd.kernel
def add_index(x: qd.types.ndarray(ndim=1)):
    for i in x:
        x[i] = x[i] * 10 + i


@qd.kernel
def add_index_2d(x: qd.types.ndarray(ndim=2)):
    for i, j in x:
        x[i, j] = x[i, j] * 10 + i * 3 + j


@qd.kernel
def fill_seven(x: qd.types.ndarray()):
    for I in qd.grouped(x):  # any ndim: one index vector
        x[I] = 7


@qd.kernel
def copy_1d(src: qd.types.ndarray(ndim=1), dst: qd.types.ndarray(ndim=1)):
    for i in src:
        dst[i] = src[i]


@qd.kernel
def sum_2d(x: qd.types.ndarray(ndim=2)) -> qd.f64:
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            total += x[i, j]
    return total


def expected_add_index(array):
    out = array.astype(np.float64) * 10 + np.arange(array.shape[0])
    return out.astype(array.dtype)


# Zero-copy writes, one test per kind of caller array.


def test_qd_ndarray_is_written_in_place():
    x = qd.ndarray(qd.f32, shape=(5,))
    x.from_numpy(np.arange(5, dtype=np.float32))
    add_index(x)
    assert x.to_numpy().tolist() == [0, 11, 22, 33, 44]


def test_vector_ndarray_is_written_in_place():
    @qd.kernel
    def scale(v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1), factor: qd.f32):
        for i in v:
            v[i] = v[i] * factor + qd.Vector([i, 0.0, -i])

    v = qd.Vector.ndarray(3, qd.f32, shape=(4,))
    v.from_numpy(np.ones((4, 3), dtype=np.float32))
    scale(v, 2.0)
    expected = np.stack([2.0 + np.arange(4), np.full(4, 2.0), 2.0 - np.arange(4)], axis=1)
    np.testing.assert_array_equal(v.to_numpy(), expected.astype(np.float32))


def test_numpy_array_is_written_in_place():
    a = np.arange(6, dtype=np.int32)
    pointer = a.ctypes.data
    add_index(a)
    assert a.tolist() == [0, 11, 22, 33, 44, 55]
    assert a.ctypes.data == pointer


def test_torch_cpu_tensor_is_written_in_place():
    t = torch.arange(6, dtype=torch.float64)
    pointer = t.data_ptr()
    add_index(t)
    assert t.tolist() == [0, 11, 22, 33, 44, 55]
    assert t.data_ptr() == pointer


def test_tensors_requiring_grad_are_read_inside_a_kernel():
    @qd.kernel
    def product(w: qd.types.ndarray(), x: qd.types.ndarray(), out: qd.types.ndarray()):
        for i in x:
            out[i] = w[i] * x[i]

    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    out = torch.empty(3)
    with pytest.warns(UserWarning, match="require grad while autograd is recording"):
        product(w, x, out)
    assert out.tolist() == [4.0, 10.0, 18.0]
    assert w.requires_grad and x.requires_grad
    # As upstream, a kernel gives a tensor that requires grad a zero .grad, for kernel.grad() to accumulate into.
    assert x.grad.tolist() == [0.0, 0.0, 0.0] and out.grad is None


def test_parameter_is_updated_in_place_like_an_optimizer_step():
    @qd.kernel
    def sgd_step(p: qd.types.ndarray(), grad: qd.types.ndarray(), lr: qd.f32):
        for i in p:
            p[i] -= lr * grad[i]

    p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 4.0]))
    pointer = p.data_ptr()
    with torch.no_grad():
        sgd_step(p, torch.tensor([2.0, 4.0, 8.0]), 0.5)
    assert p.tolist() == [0.0, 0.0, 0.0]
    assert isinstance(p, torch.nn.Parameter) and p.requires_grad and p.data_ptr() == pointer


class DlpackOnly:
    """A producer that only speaks DLPack: no buffer protocol, no C exchange API."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if max_version is None:
            return self._array.__dlpack__()
        return self._array.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_only_producer_is_recognized_by_the_container_api():
    # The same producer imports through qd.from_dlpack without a copy, which the launch test below relies on.
    base = np.zeros(3, dtype=np.float32)
    imported = qd.from_dlpack(DlpackOnly(base))
    assert imported.shape == (3,)


def test_dlpack_only_producer_is_written_in_place():
    base = np.arange(4, dtype=np.float32)
    add_index(DlpackOnly(base))
    assert base.tolist() == [0, 11, 22, 33]


def test_fields_used_as_globals_are_shared_both_ways():
    heat = qd.field(qd.f32, shape=(4,))

    @qd.kernel
    def warm(amount: qd.f32):
        for i in heat:
            heat[i] += amount * i

    @qd.kernel
    def read_heat(out: qd.types.ndarray()):
        for i in heat:
            out[i] = heat[i]

    warm(1.0)
    assert heat.to_numpy().tolist() == [0, 1, 2, 3]
    heat.from_numpy(np.full(4, 10, dtype=np.float32))  # a host write after compiling is seen, not a captured copy
    warm(2.0)
    out = np.zeros(4, dtype=np.float32)
    read_heat(out)
    assert out.tolist() == [10, 12, 14, 16]


# Strided views: upstream refuses numpy views in neither C nor Fortran order and non-contiguous torch tensors
# (test_noncontiguous_args.py checks the message); a Fortran-ordered numpy array is read through its strides.

NUMPY_VIEWS = {
    "every_second": lambda a: a[::2],
    "reversed": lambda a: a[::-1],
    "reversed_every_third": lambda a: a[-2::-3],
}


@pytest.mark.parametrize("view", NUMPY_VIEWS.values(), ids=NUMPY_VIEWS.keys())
def test_strided_numpy_views_are_refused_and_left_alone(view):
    base = np.arange(12, dtype=np.float32)
    strided = view(base)
    assert not strided.flags.owndata and not strided.flags.c_contiguous
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
        add_index(strided)
    np.testing.assert_array_equal(base, np.arange(12, dtype=np.float32))


def test_a_transposed_numpy_array_writes_through_to_the_base():
    base = np.arange(20, dtype=np.int64).reshape(4, 5)
    expected = base.copy()
    rows, cols = np.indices(expected.T.shape)
    expected.T[...] = expected.T * 10 + rows * 3 + cols
    add_index_2d(base.T)  # Fortran order: upstream copies it and back, we read it in place
    np.testing.assert_array_equal(base, expected)


NUMPY_2D_VIEWS = {
    "columns_reversed": lambda a: a[:, ::-1],
    "rows_every_second_reversed_columns": lambda a: a[::2, ::-2],
    "transpose_of_reversed": lambda a: a[::-1].T,
    "broadcast_row": lambda a: np.broadcast_to(a[0], (3, 5)),
}


@pytest.mark.parametrize("view", NUMPY_2D_VIEWS.values(), ids=NUMPY_2D_VIEWS.keys())
def test_unordered_2d_numpy_views_are_refused(view):
    base = np.arange(20, dtype=np.int64).reshape(4, 5)
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
        add_index_2d(view(base))
    np.testing.assert_array_equal(base, np.arange(20).reshape(4, 5))


def test_non_contiguous_torch_tensors_are_refused():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    for view in (base.t(), base.narrow(1, 1, 2), torch.arange(5, dtype=torch.float64).expand(3, 5)):
        with pytest.raises(ValueError, match="Non contiguous tensors are not supported"):
            add_index_2d(view)
    assert torch.equal(base, torch.arange(12, dtype=torch.float32).reshape(3, 4))
    add_index_2d(base.narrow(0, 1, 2))  # whole rows: contiguous
    assert base[1:].tolist() == [[40.0, 51, 62, 73], [83, 94, 105, 116]]


@pytest.mark.cpu_only
def test_c_and_fortran_order_calls_alternate_between_specializations(compiles):
    for round_ in range(3):
        c_order = np.full((2, 3), round_, dtype=np.float32)
        fill_seven(c_order)
        f_order = np.full((3, 2), round_, dtype=np.float32).T
        fill_seven(f_order)
        assert (c_order == 7).all() and (f_order == 7).all()
    assert len(compiles) == 2


@pytest.mark.cpu_only
def test_a_new_shape_never_recompiles(compiles):
    for n in (1, 7, 1000, 3):
        a = np.zeros(n, dtype=np.float32)
        add_index(a)
        assert a.tolist() == list(range(n))
    for shape in ((2, 3), (5, 1), (1, 9)):
        fill_seven(np.zeros(shape, dtype=np.int16))
    assert len(compiles) == 2


@pytest.mark.cpu_only
def test_numpy_torch_and_qd_arrays_of_one_dtype_share_a_specialization(compiles):
    add_index(np.zeros(3, dtype=np.float32))
    add_index(torch.zeros(8))
    add_index(qd.ndarray(qd.f32, shape=(2,)))
    assert len(compiles) == 1


@pytest.mark.cpu_only
def test_a_new_dtype_ndim_contiguity_or_writability_compiles_once_each(compiles):
    arrays = [
        np.zeros(4, dtype=np.float32),
        np.zeros(4, dtype=np.float64),
        np.zeros((2, 2), dtype=np.float32),
        np.zeros((2, 3), dtype=np.float32).T,
    ]
    for a in arrays:
        fill_seven(a)
        assert (a == 7).all()
    assert len(compiles) == len(arrays)
    for a in arrays:  # every specialization is kept, not only the last one
        fill_seven(a)
    assert len(compiles) == len(arrays)
    writable = np.ones((2, 2))
    readonly = np.ones((2, 2))
    readonly.setflags(write=False)
    assert sum_2d(writable) == 4 and sum_2d(readonly) == 4
    assert len(compiles) == len(arrays) + 2


# Every dtype round trips through a kernel, extremes included.


def extremes(dtype):
    if dtype == np.bool_:
        return np.array([True, False, True])
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    info = np.finfo(dtype)
    return np.array([info.min, info.max, info.tiny, -0.0, np.inf, -np.inf, 1.5], dtype=dtype)


ALL_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64, np.bool_]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips_through_numpy_arguments(dtype):
    src = extremes(dtype)
    dst = np.zeros_like(src)
    copy_1d(src, dst)
    np.testing.assert_array_equal(dst, src)
    assert np.signbit(dst).tolist() == np.signbit(src).tolist()


TORCH_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
                torch.float16, torch.float32, torch.float64, torch.bool]


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_every_dtype_round_trips_through_torch_arguments(dtype):
    src = torch.from_numpy(extremes(torch.empty(0, dtype=dtype).numpy().dtype.type))
    dst = torch.zeros_like(src)
    copy_1d(src, dst)
    assert torch.equal(dst, src)


SCALAR_VALUES = [(qd.i8, np.int8, -128), (qd.i16, np.int16, 32767), (qd.i32, np.int32, -2**31),
                 (qd.i64, np.int64, 2**63 - 1), (qd.u8, np.uint8, 255), (qd.u16, np.uint16, 65535),
                 (qd.u32, np.uint32, 2**32 - 1), (qd.u64, np.uint64, 2**63 - 1),
                 (qd.f16, np.float16, -65504.0), (qd.f32, np.float32, 1.5e38), (qd.f64, np.float64, 1e-300)]


@pytest.mark.parametrize("dtype, numpy_dtype, value", SCALAR_VALUES, ids=[str(v[1].__name__) for v in SCALAR_VALUES])
def test_every_scalar_dtype_is_passed_by_value(dtype, numpy_dtype, value):
    @qd.kernel
    def store(out: qd.types.ndarray(), s: dtype):
        out[0] = s

    out = np.zeros(1, dtype=numpy_dtype)
    store(out, value)
    assert out[0] == numpy_dtype(value)


def test_u64_scalar_above_int64_is_passed_by_value():
    @qd.kernel
    def store(out: qd.types.ndarray(), s: qd.u64):
        out[0] = s

    out = np.zeros(1, dtype=np.uint64)
    store(out, 2**64 - 1)
    assert out[0] == np.uint64(2**64 - 1)


def test_numpy_and_torch_scalars_are_accepted_for_scalar_params():
    @qd.kernel
    def store(out: qd.types.ndarray(), n: qd.i32, x: qd.f32):
        out[0] = n + x

    out = np.zeros(1, dtype=np.float32)
    store(out, np.int64(3), np.float64(0.5))
    assert out[0] == 3.5
    store(out, torch.tensor(2), torch.tensor(0.25))
    assert out[0] == 2.25
    store(out, True, 1)  # bool is an int; an int is a float
    assert out[0] == 2.0


# Kernel objects.


def test_dropped_kernels_are_garbage_collected():
    @qd.kernel
    def plain(x: qd.types.ndarray()):
        for i in x:
            x[i] = 1

    @qd.kernel
    def templated(x: qd.types.ndarray(), value: qd.template()):
        for i in x:
            x[i] = value

    a = np.zeros(2, dtype=np.int32)
    plain(a)
    templated(a, 3)
    assert a.tolist() == [3, 3]
    refs = [weakref.ref(plain), weakref.ref(templated)]
    del plain, templated
    gc.collect()
    assert [r() for r in refs] == [None, None]
