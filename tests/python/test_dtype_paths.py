# tests/python/test_dtype_paths.py: every dtype through every way into a kernel and every way out of a container.
#
# test_dtype_values.py checks numpy and torch arguments; this file runs the same type-revealing probe
# (compare with a threshold, halve) over every other door: non-contiguous numpy views, the buffer
# protocol, any __dlpack__ producer, quadrants.backends arrays, qd.ndarray and qd.field (filled from
# numpy or torch), __cuda_array_interface__ producers (CUDA only), scalar parameters and returns; and
# reads the results back through to_numpy, to_torch, DLPack export and element access. The values
# are ones only the right type holds (test_dtype_values.VALUES), so a door that reads uint16 as int16,
# or float16 as anything else, changes the result instead of copying the same bits.
import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

from test_dtype_values import DTYPES, VALUES, _expected, _np, _probe

# Host arrays given to a CUDA kernel are copied with a one-time RuntimeWarning (QD_TEST_ARCH=cuda).
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

WIDE_UNSIGNED = ("u16", "u32", "u64")


def _torch_or_skip(name):
    torch = pytest.importorskip("torch")
    if name in WIDE_UNSIGNED and not hasattr(torch, "uint16"):
        pytest.skip("this torch has no wide unsigned dtypes")
    return torch


class DlpackProducer:
    """Only __dlpack__ and __dlpack_device__: the launcher must take the generic capsule path."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class CudaProducer:
    """A __cuda_array_interface__ v3 producer over a qd.ndarray's device memory (as Numba or PyCUDA give)."""

    def __init__(self, owner):
        self.owner = owner
        self.__cuda_array_interface__ = {
            "shape": tuple(owner.shape), "typestr": owner.to_numpy().dtype.str,
            "data": (owner._array.data_ptr, False), "version": 3, "strides": None,
        }


def _host(arr):
    return arr


def _strided(arr):
    wide = np.zeros(2 * len(arr), arr.dtype)
    wide[::2] = arr
    return wide[::2]  # every other element: strides twice the item size


def _buffer(arr):
    return memoryview(arr)  # the buffer protocol's format letter, not numpy's type number


def _dlpack(arr):
    return DlpackProducer(arr)


def _qd_ndarray(arr):
    out = qd.ndarray(getattr(qd, _name_of(arr.dtype)), shape=len(arr))
    out.from_numpy(arr)
    return out


def _name_of(np_dtype):
    return {"u": "u", "i": "i", "f": "f"}[np_dtype.kind] + str(np_dtype.itemsize * 8)


# Each door: (wrap a numpy array into what the kernel is given, read what it wrote back as numpy).
DOORS = {
    "numpy": (_host, np.asarray),
    # numpy views that are neither C nor Fortran ordered are refused, as upstream (test_noncontiguous_args.py);
    # a strided buffer-protocol view still takes the stride-generic path.
    "buffer_strided": (lambda arr: memoryview(_strided(arr)), np.asarray),
    "buffer": (_buffer, np.asarray),
    "dlpack_producer": (_dlpack, lambda p: p.array),
    "qd_ndarray": (_qd_ndarray, lambda a: a.to_numpy()),
}


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("name", DTYPES)
def test_every_door_in_keeps_the_type(name, door):
    qd.init(arch=qd.cpu)
    wrap, unwrap = DOORS[door]
    arr, threshold, above, half = _expected(name, VALUES[name])
    got_above, got_half = np.zeros(len(arr), np.int32), wrap(np.zeros_like(arr))
    _probe(name)(wrap(arr.copy()), got_above, got_half, threshold.item())
    np.testing.assert_array_equal(got_above, above)
    out = unwrap(got_half)
    assert out.dtype == arr.dtype
    np.testing.assert_array_equal(out, half)


@pytest.mark.parametrize("library", ["numpy", "torch"])
@pytest.mark.parametrize("name", DTYPES)
def test_backend_arrays_keep_the_type(name, library):
    import quadrants.backends as backends
    from quadrants.backends.dtypes import STANDARD_DTYPE_NAMES

    if library == "torch":
        _torch_or_skip(name)
    qd.init(arch=qd.cpu)
    backend = backends.create_numpy_backend() if library == "numpy" else backends.create_torch_backend("cpu")
    arr, threshold, above, half = _expected(name, VALUES[name])
    got_above = np.zeros(len(arr), np.int32)
    if arr.dtype.name in STANDARD_DTYPE_NAMES:  # the backend maps the standard dtype name
        got_half = backend.zeros(len(arr), dtype=arr.dtype.name)
    else:  # uint16-64 are no standard dtypes
        got_half = backend.from_numpy(np.zeros_like(arr))
    _probe(name)(backend.from_numpy(arr.copy()), got_above, got_half, threshold.item())
    np.testing.assert_array_equal(got_above, above)
    out = backend.to_numpy(got_half)
    assert out.dtype == arr.dtype
    np.testing.assert_array_equal(out, half)


@pytest.mark.skipif(_core.cuda_status() != "", reason="__cuda_array_interface__ needs CUDA (a GPU or the emulator)")
@pytest.mark.parametrize("name", DTYPES)
def test_cuda_array_interface_producers_keep_the_type(name):
    qd.init(arch=qd.cuda)
    arr, threshold, above, half = _expected(name, VALUES[name])
    source, result = _qd_ndarray(arr), _qd_ndarray(np.zeros_like(arr))
    got_above = qd.ndarray(qd.i32, shape=len(arr))
    _probe(name)(CudaProducer(source), got_above, CudaProducer(result), threshold.item())
    np.testing.assert_array_equal(got_above.to_numpy(), above)
    np.testing.assert_array_equal(result.to_numpy(), half)


def _field_probe(name, field):
    dtype = getattr(qd, name)

    @qd.kernel
    def probe(above: qd.types.ndarray(dtype=qd.i32, ndim=1), half: qd.types.ndarray(dtype=dtype, ndim=1),
              threshold: dtype):
        for i in range(field.shape[0]):
            above[i] = 1 if field[i] > threshold else 0
            half[i] = field[i] // 2 if qd.static(name[0] in "ui") else field[i] * 0.5

    return probe


@pytest.mark.parametrize("fill", ["from_numpy", "from_torch", "setitem"])
@pytest.mark.parametrize("name", DTYPES)
def test_fields_filled_every_way_keep_the_type(name, fill):
    qd.init(arch=qd.cpu)
    arr, threshold, above, half = _expected(name, VALUES[name])
    field = qd.field(getattr(qd, name), shape=len(arr))
    if fill == "from_numpy":
        field.from_numpy(arr)
    elif fill == "from_torch":
        field.from_torch(_torch_or_skip(name).from_numpy(arr.copy()))
    else:
        for i, value in enumerate(arr.tolist()):
            field[i] = value
    got_above, got_half = np.zeros(len(arr), np.int32), np.zeros_like(arr)
    _field_probe(name, field)(got_above, got_half, threshold.item())
    np.testing.assert_array_equal(got_above, above)
    np.testing.assert_array_equal(got_half, half)


def _halved_container(kind, name):
    """A qd container holding the probe's `half` of VALUES[name], written by a kernel (not a copy)."""
    arr, threshold, _, half = _expected(name, VALUES[name])
    out = (qd.ndarray if kind == "ndarray" else qd.field)(getattr(qd, name), shape=len(arr))
    if kind == "ndarray":
        _probe(name)(arr.copy(), np.zeros(len(arr), np.int32), out, threshold.item())
    else:
        dtype = getattr(qd, name)

        @qd.kernel
        def halve(a: qd.types.ndarray(dtype=dtype, ndim=1)):
            for i in range(a.shape[0]):
                out[i] = a[i] // 2 if qd.static(name[0] in "ui") else a[i] * 0.5

        halve(arr.copy())
    return out, half


@pytest.mark.parametrize("kind", ["ndarray", "field"])
@pytest.mark.parametrize("name", DTYPES)
def test_every_door_out_keeps_the_type(name, kind):
    qd.init(arch=qd.cpu)
    container, half = _halved_container(kind, name)
    out = container.to_numpy()
    assert out.dtype == half.dtype
    np.testing.assert_array_equal(out, half)
    assert [container[i] for i in range(len(half))] == half.tolist()
    if name in WIDE_UNSIGNED and not hasattr(pytest.importorskip("torch"), "uint16"):
        return
    tensor = container.to_torch()
    assert str(tensor.dtype) == "torch." + {"f16": "float16", "f32": "float32", "f64": "float64"}.get(
        name, half.dtype.name)
    np.testing.assert_array_equal(tensor.cpu().numpy(), half)


@pytest.mark.cpu_only  # numpy and CPU torch can only import host memory through DLPack
@pytest.mark.parametrize("kind", ["ndarray", "field"])
@pytest.mark.parametrize("name", DTYPES)
def test_dlpack_export_keeps_the_type(name, kind):
    qd.init(arch=qd.cpu)
    container, half = _halved_container(kind, name)
    via_numpy = np.from_dlpack(container)
    assert via_numpy.dtype == half.dtype
    np.testing.assert_array_equal(via_numpy, half)
    torch = _torch_or_skip(name)
    via_torch = torch.from_dlpack(container)
    np.testing.assert_array_equal(via_torch.numpy(), half)
    assert via_torch.dtype == torch.from_numpy(half).dtype


@pytest.mark.parametrize("name", DTYPES)
def test_containers_filled_from_strided_and_torch_sources_keep_the_type(name):
    qd.init(arch=qd.cpu)
    arr = np.array(VALUES[name], dtype=_np(name))
    x = qd.ndarray(getattr(qd, name), shape=len(arr))
    x.from_numpy(_strided(arr))  # the strided copy loop, not a memcpy
    np.testing.assert_array_equal(x.to_numpy(), arr)
    x.from_numpy(np.zeros_like(arr))
    x.from_torch(_torch_or_skip(name).from_numpy(arr.copy()))
    np.testing.assert_array_equal(x.to_numpy(), arr)


@pytest.mark.parametrize("name", DTYPES)
def test_scalar_parameters_and_returns_keep_the_type(name):
    qd.init(arch=qd.cpu)
    dtype = getattr(qd, name)

    @qd.kernel
    def identity(x: dtype) -> dtype:
        return x

    @qd.kernel
    def is_negative(x: dtype) -> qd.i32:
        return 1 if x < 0 else 0

    for value in np.array(VALUES[name], dtype=_np(name)):
        got = identity(value.item())
        assert got == value.item() and type(got) is type(value.item()), (name, value, got)
        assert is_negative(value.item()) == int(value < 0), (name, value)


def test_bfloat16_tensors_are_rejected_not_read_as_another_type():
    torch = pytest.importorskip("torch")
    qd.init(arch=qd.cpu)

    @qd.kernel
    def fill(a: qd.types.ndarray(ndim=1)):
        for i in range(a.shape[0]):
            a[i] = 1.5

    t = torch.zeros(3, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match=r"Unsupported DLPack dtype \(code 4, 16 bits"):
        fill(t)
    assert t.tolist() == [0.0, 0.0, 0.0]
