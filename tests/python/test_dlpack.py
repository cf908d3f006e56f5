# tests/python/test_dlpack.py: zero-copy DLPack export (__dlpack__) and import (qd.from_dlpack), capsule rules.
import ctypes
import gc

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import quadrants as qd
from quadrants.runtime import _core

pytestmark = pytest.mark.cpu_only  # host capsules, aliased by numpy; the CUDA export is in test_cuda_*.py


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# --- capsule inspection through the C API ------------------------------------------------------------
_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


READ_ONLY_FLAG = 1


def capsule_name(capsule):
    return _api.PyCapsule_GetName(capsule).decode()


def capsule_struct(capsule):
    name = capsule_name(capsule)
    layout = DLManagedTensorVersioned if name == "dltensor_versioned" else DLManagedTensor
    return layout.from_address(_api.PyCapsule_GetPointer(capsule, name.encode()))


def tensor_fields(tensor):
    shape = tuple(tensor.shape[d] for d in range(tensor.ndim))
    strides = tuple(tensor.strides[d] for d in range(tensor.ndim)) if tensor.strides else None
    return shape, strides


# --- capsule names and contents ----------------------------------------------------------------------
def test_plain_dlpack_call_gives_a_legacy_capsule():
    capsule = qd.ndarray(qd.f32, shape=(2, 3)).__dlpack__()
    assert capsule_name(capsule) == "dltensor"
    assert 'capsule object "dltensor"' in repr(capsule)


@pytest.mark.parametrize("max_version", [(1, 0), (1, 5), (2, 0)])
def test_max_version_1_or_later_gives_a_versioned_capsule(max_version):
    capsule = qd.ndarray(qd.f32, shape=(2, 3)).__dlpack__(max_version=max_version)
    assert capsule_name(capsule) == "dltensor_versioned"
    managed = capsule_struct(capsule)
    assert managed.major == 1 and managed.deleter
    assert managed.flags & READ_ONLY_FLAG == 0


def test_max_version_before_1_gives_a_legacy_capsule():
    assert capsule_name(qd.ndarray(qd.f32, shape=2).__dlpack__(max_version=(0, 8))) == "dltensor"


@pytest.mark.parametrize(
    "dtype, code, bits",
    [(qd.u1, 6, 8), (qd.i8, 0, 8), (qd.i64, 0, 64), (qd.u16, 1, 16), (qd.u64, 1, 64), (qd.f16, 2, 16), (qd.f64, 2, 64)],
)
def test_capsule_describes_dtype_shape_strides_and_device(dtype, code, bits):
    x = qd.Vector.ndarray(3, dtype, shape=(4, 5))
    for versioned in (False, True):
        capsule = x.__dlpack__(max_version=(1, 0) if versioned else None)
        tensor = capsule_struct(capsule).dl_tensor
        assert (tensor.code, tensor.bits, tensor.lanes) == (code, bits, 1)
        assert (tensor.device_type, tensor.device_id) == (1, 0)
        shape, strides = tensor_fields(tensor)
        assert shape == (4, 5, 3)
        assert strides in (None, (15, 3, 1))  # strides count elements, not bytes
        assert tensor.data + tensor.byte_offset == x._array.data_ptr


def test_buffers_are_64_byte_aligned():
    for shape in [(1,), (3, 7), (1000,)]:
        assert qd.ndarray(qd.i8, shape=shape)._array.data_ptr % 64 == 0


def test_dlpack_device_is_the_cpu():
    assert qd.field(qd.f32, shape=2).__dlpack_device__() == (1, 0)
    assert qd.ndarray(qd.f32, shape=2).__dlpack_device__() == (1, 0)


def test_consumers_rename_the_capsule_they_took():
    x = qd.ndarray(qd.f32, shape=3)
    legacy = x.__dlpack__()
    torch.utils.dlpack.from_dlpack(legacy)
    assert capsule_name(legacy) == "used_dltensor"
    versioned = x.__dlpack__(max_version=(1, 0))
    _core.Array.from_dlpack(versioned)
    assert capsule_name(versioned) == "used_dltensor_versioned"


def test_a_consumed_capsule_cannot_be_imported_again():
    capsule = qd.ndarray(qd.f32, shape=3).__dlpack__(max_version=(1, 0))
    _core.Array.from_dlpack(capsule)
    with pytest.raises(TypeError, match="Expected a DLPack capsule named 'dltensor_versioned' or 'dltensor'.*consumed"):
        _core.Array.from_dlpack(capsule)


def test_an_unconsumed_capsule_keeps_the_memory_alive():
    x = qd.ndarray(qd.i32, shape=4)
    x.fill(3)
    capsule = x.__dlpack__()
    del x
    gc.collect()
    assert torch.utils.dlpack.from_dlpack(capsule).tolist() == [3, 3, 3, 3]


def test_dl_device_and_copy_requests():
    x = qd.ndarray(qd.f32, shape=2)
    assert capsule_name(x.__dlpack__(dl_device=(1, 0), copy=False)) == "dltensor"
    with pytest.raises(BufferError, match=r"Cannot export to device \(2, 0\); the data lives on \(1, 0\)"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="without copying; copy=True is not supported"):
        x.__dlpack__(copy=True)


# --- aliasing: exporting our memory ------------------------------------------------------------------
EXPORTERS = {
    "field": lambda: qd.field(qd.f32, shape=(3, 4)),
    "ndarray": lambda: qd.ndarray(qd.f32, shape=(3, 4)),
    "vector field": lambda: qd.Vector.field(4, qd.f32, shape=(3,)),
    "matrix ndarray": lambda: qd.Matrix.ndarray(2, 2, qd.f32, shape=(3,)),
}


@pytest.mark.parametrize("kind", sorted(EXPORTERS))
def test_torch_from_dlpack_aliases_both_ways(kind):
    x = EXPORTERS[kind]()
    t = torch.from_dlpack(x)
    assert tuple(t.shape) == x.to_numpy().shape
    assert t.data_ptr() == x._array.data_ptr
    t.view(-1)[5] = 42.0
    assert x.to_numpy().reshape(-1)[5] == 42.0
    x.fill(1.5)
    assert bool((t == 1.5).all())


@pytest.mark.parametrize("kind", sorted(EXPORTERS))
def test_numpy_from_dlpack_aliases_both_ways(kind):
    x = EXPORTERS[kind]()
    a = np.from_dlpack(x)
    assert a.flags.writeable
    a.reshape(-1)[7] = -3.0
    assert x.to_numpy().reshape(-1)[7] == -3.0
    x.from_numpy(np.full(x.to_numpy().shape, 2.0, np.float32))
    assert (a == 2.0).all()


def test_element_writes_are_seen_through_the_alias():
    x = qd.ndarray(qd.i64, shape=(2, 2))
    t = torch.from_dlpack(x)
    a = np.from_dlpack(x)
    x[1, 0] = 9
    assert t[1, 0].item() == 9 and a[1, 0] == 9
    t[0, 1] = 4
    assert x[0, 1] == 4 and a[0, 1] == 4


def test_zero_size_and_zero_dimensional_exports():
    assert tuple(torch.from_dlpack(qd.Vector.ndarray(3, qd.f32, shape=0)).shape) == (0, 3)
    scalar = qd.field(qd.f64, shape=())
    alias = np.from_dlpack(scalar)
    assert alias.shape == ()
    alias[...] = 6.5
    assert scalar[None] == 6.5


def test_every_dtype_exports_to_torch_and_numpy():
    for dtype in (qd.u1, qd.i8, qd.i16, qd.i32, qd.i64, qd.u8, qd.u16, qd.u32, qd.u64, qd.f16, qd.f32, qd.f64):
        x = qd.ndarray(dtype, shape=3)
        assert np.from_dlpack(x).dtype == dtype.numpy
        assert torch.from_dlpack(x).dtype == dtype.torch


# --- import: qd.from_dlpack -------------------------------------------------------------------------
def test_from_dlpack_of_torch_aliases_both_ways():
    t = torch.zeros(3, 4)
    x = qd.from_dlpack(t)
    assert (x.shape, x.dtype) == ((3, 4), qd.f32)
    assert x._array.data_ptr == t.data_ptr()
    x[2, 3] = 8.0
    assert t[2, 3].item() == 8.0
    t[0, 0] = -1.0
    assert x[0, 0] == -1.0


def test_from_dlpack_of_numpy_aliases_both_ways():
    a = np.zeros((2, 5), np.int16)
    x = qd.from_dlpack(a)
    assert (x.shape, x.dtype) == ((2, 5), qd.i16)
    x.fill(3)
    assert (a == 3).all()
    a[1, 4] = 11
    assert x[1, 4] == 11 and x.to_numpy()[1, 4] == 11


@pytest.mark.parametrize(
    "make, index",
    [
        (lambda: torch.arange(12.0).reshape(3, 4).T, (3, 1)),
        (lambda: torch.arange(40.0).reshape(5, 8)[1:4, ::3], (2, 2)),
        (lambda: np.arange(12.0).reshape(3, 4)[::-1, ::-2], (0, 1)),
        (lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)), (1, 2)),
    ],
    ids=["torch transpose", "torch slice", "numpy negative strides", "numpy fortran"],
)
def test_from_dlpack_of_non_contiguous_views_aliases(make, index):
    view = make()
    x = qd.from_dlpack(view)
    assert x.shape == tuple(view.shape)
    np.testing.assert_array_equal(x.to_numpy(), np.asarray(view))
    assert x[index] == float(view[index])
    x[index] = 100.0
    assert float(view[index]) == 100.0


def test_from_dlpack_of_a_read_only_numpy_array_reads_but_refuses_writes():
    source = np.arange(4, dtype=np.float32)
    source.flags.writeable = False
    x = qd.from_dlpack(source)
    assert x.to_numpy().tolist() == [0, 1, 2, 3]
    assert x[2] == 2.0
    with pytest.raises(ValueError, match="Cannot write into a read-only array"):
        x[1] = 5.0
    with pytest.raises(ValueError, match="from_numpy: the destination is read-only"):
        x.from_numpy(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="copy_from: the destination is read-only"):
        x.copy_from(qd.ndarray(qd.f32, shape=4))
    assert source.tolist() == [0, 1, 2, 3]
    assert not np.from_dlpack(x).flags.writeable
    assert capsule_struct(x.__dlpack__(max_version=(1, 0))).flags & READ_ONLY_FLAG


def test_fill_refuses_to_write_a_read_only_import():
    source = np.arange(4, dtype=np.float32)
    source.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        qd.from_dlpack(source).fill(9.0)
    assert source.tolist() == [0, 1, 2, 3]


def test_legacy_export_of_a_read_only_array_is_refused():
    source = np.arange(4, dtype=np.float32)
    source.flags.writeable = False
    with pytest.raises(BufferError):
        qd.from_dlpack(source).__dlpack__()


def test_from_dlpack_keeps_the_producer_alive():
    x = qd.from_dlpack(torch.arange(5, dtype=torch.int32))
    gc.collect()
    assert x.to_numpy().tolist() == [0, 1, 2, 3, 4]


def test_from_dlpack_of_our_own_export_shares_memory():
    x = qd.ndarray(qd.u8, shape=(2, 2))
    y = qd.from_dlpack(x)
    y[0, 1] = 200
    assert x[0, 1] == 200


def test_from_dlpack_of_a_legacy_only_producer():
    class LegacyProducer:
        """A producer from before DLPack 1.0: __dlpack__ takes no max_version."""

        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, stream=None):
            return torch.utils.dlpack.to_dlpack(self.tensor)

    t = torch.ones(3)
    x = qd.from_dlpack(LegacyProducer(t))
    x[0] = 4.0
    assert t.tolist() == [4.0, 1.0, 1.0]


@pytest.mark.parametrize("argument", [[1, 2], np.float32(1.0).item(), "tensor", None])
def test_from_dlpack_of_a_non_producer_names_its_type(argument):
    with pytest.raises(TypeError, match=f"supporting DLPack \\(__dlpack__\\), but got {type(argument).__name__}"):
        qd.from_dlpack(argument)


def test_from_dlpack_of_an_unsupported_dtype_names_it_and_the_supported_ones():
    message = r"Unsupported DLPack dtype \(code 5, 64 bits, 1 lanes\); quadrants supports bool"
    with pytest.raises(TypeError, match=message):
        qd.from_dlpack(torch.zeros(2, dtype=torch.complex64))


@pytest.mark.parametrize("make", [qd.ndarray, qd.field])
@pytest.mark.parametrize("versioned", [False, True])
def test_to_dlpack_gives_a_capsule_that_shares_memory(make, versioned):
    x = make(qd.i32, (3, 2))
    x[1, 1] = 5
    t = torch.utils.dlpack.from_dlpack(x.to_dlpack(versioned=versioned))
    assert t.dtype == torch.int32 and tuple(t.shape) == (3, 2) and t[1, 1].item() == 5
    t[2, 0] = 9
    assert x[2, 0] == 9


def test_copy_from_looks_through_tensor_wrappers():
    a = qd.tensor(qd.f32, 3)
    a.from_numpy(np.array([1, 2, 3], np.float32))
    b = qd.tensor(qd.f32, 3, backend=qd.Backend.FIELD)
    b.copy_from(a)
    c = qd.ndarray(qd.f32, 3)
    c.copy_from(b)
    assert c.to_numpy().tolist() == [1, 2, 3]


def test_struct_field_exports_share_each_members_memory_with_copy_false():
    # SOA: each member in a cell of its own, which upstream lends without a copy (AoS members: see test_zero_copy)
    s = qd.types.struct(a=qd.i32, b=qd.f32, v=qd.types.vector(2, qd.f32))
    f = s.field(shape=(4,), layout=qd.Layout.SOA)
    tensors = f.to_torch(copy=False)
    arrays = f.to_numpy(copy=False)
    tensors["b"][1] = 3.5
    arrays["a"][2] = 7
    tensors["v"][3, 1] = 2.0
    assert (f[1].b, f[2].a, f[3].v[1]) == (3.5, 7, 2.0)
    copied = f.to_torch()  # the default still copies
    copied["b"][0] = 9.0
    assert f[0].b == 0.0
