# tests/python/test_cuda_array_interface.py: __cuda_array_interface__ producers as kernel arguments on CUDA (a GPU or the emulator).
"""The producers here are tiny pure-Python stand-ins for Numba device arrays and PyCUDA: they wrap a
qd.ndarray's device memory, so a kernel's writes through them must show in the qd.ndarray (zero-copy).
Run under the CUDA emulator with QD_CUDA_DRIVER_PATH and QD_NVRTC_PATH set (see
tests/cuda_emulator/emulated_driver.cpp); without a usable CUDA driver the whole file skips."""

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

if _core.cuda_status() != "":
    pytest.skip(f"CUDA is not usable: {_core.cuda_status()}", allow_module_level=True)


class Producer:
    """A CAI v3 producer over owner's memory. `interface` entries override the defaults, and an
    entry given as None for 'strides' or 'stream' stays None (both mean something then)."""

    def __init__(self, owner, shape=None, typestr="<f4", byte_offset=0, readonly=False, **interface):
        self.owner = owner  # keeps the memory alive, as a real producer's array does
        self.__cuda_array_interface__ = {
            "shape": tuple(owner.shape if shape is None else shape),
            "typestr": typestr,
            "data": (owner._array.data_ptr + byte_offset, readonly),
            "version": 3,
            **interface,
        }


@pytest.fixture(autouse=True)
def cuda_runtime():
    qd.init(arch=qd.cuda)


@qd.kernel
def add_one(x: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        x[i] += 1


@qd.kernel
def write_index(x: qd.types.ndarray(ndim=2)) -> None:
    for i, j in x:
        x[i, j] = i * 10 + j


@qd.kernel
def copy_doubled(src: qd.types.ndarray(), dst: qd.types.ndarray()) -> None:
    for i in range(src.shape[0]):
        dst[i] = src[i] * 2


def ndarray_of(values, dtype=qd.f32):
    values = np.asarray(values)
    array = qd.ndarray(dtype, values.shape)
    array.from_numpy(values)
    return array


def test_kernel_writes_through_the_interface_into_the_owner():
    owner = ndarray_of(np.arange(5, dtype=np.float32))
    add_one(Producer(owner))
    np.testing.assert_array_equal(owner.to_numpy(), np.arange(5) + 1)


def test_kernel_reads_a_read_only_producer():
    src = ndarray_of(np.arange(4, dtype=np.float32))
    dst = qd.ndarray(qd.f32, (4,))
    copy_doubled(Producer(src, readonly=True), Producer(dst))
    np.testing.assert_array_equal(dst.to_numpy(), np.arange(4) * 2)


def test_writing_a_read_only_producer_is_refused():
    owner = ndarray_of(np.zeros(3, dtype=np.float32))
    with pytest.raises(TypeError, match="writes to array 'x', which was passed read-only"):
        add_one(Producer(owner, readonly=True))
    np.testing.assert_array_equal(owner.to_numpy(), np.zeros(3))


@pytest.mark.parametrize("dtype,typestr", [(qd.f32, "<f4"), (qd.f64, "<f8"), (qd.i32, "<i4"), (qd.i64, "<i8"),
                                           (qd.i16, "<i2"), (qd.u8, "|u1"), (qd.u32, "=u4")])
def test_every_supported_typestr(dtype, typestr):
    owner = qd.ndarray(dtype, (3,))
    add_one(Producer(owner, typestr=typestr))
    np.testing.assert_array_equal(owner.to_numpy(), np.ones(3))


def test_missing_or_none_strides_mean_c_order():
    for strides in ({}, {"strides": None}, {"strides": (12, 4)}):
        owner = qd.ndarray(qd.f32, (4, 3))
        write_index(Producer(owner, **strides))
        np.testing.assert_array_equal(owner.to_numpy(), np.add.outer(np.arange(4) * 10, np.arange(3)))


def test_transposed_view_writes_the_owner_in_place():
    owner = qd.ndarray(qd.f32, (4, 3))
    write_index(Producer(owner, shape=(3, 4), strides=(4, 12)))
    np.testing.assert_array_equal(owner.to_numpy().T, np.add.outer(np.arange(3) * 10, np.arange(4)))


def test_every_other_row_with_an_offset():
    owner = qd.ndarray(qd.f32, (5, 3))
    write_index(Producer(owner, shape=(2, 3), strides=(24, 4), byte_offset=12))  # rows 1 and 3
    expected = np.zeros((5, 3), dtype=np.float32)
    expected[1::2] = np.add.outer(np.arange(2) * 10, np.arange(3))
    np.testing.assert_array_equal(owner.to_numpy(), expected)


def test_empty_array_with_null_pointer():
    owner = qd.ndarray(qd.f32, (1,))
    empty = Producer(owner, shape=(0,))
    empty.__cuda_array_interface__["data"] = (0, False)
    add_one(empty)
    assert owner.to_numpy()[0] == 0


@pytest.mark.parametrize("stream", [None, 1, 2])
def test_producer_streams_are_waited_for(stream):
    owner = qd.ndarray(qd.f32, (2,))
    add_one(Producer(owner, stream=stream))
    np.testing.assert_array_equal(owner.to_numpy(), np.ones(2))


def test_interface_is_preferred_to_dlpack():
    class Both(Producer):
        def __dlpack__(self, **kwargs):
            raise AssertionError("the __cuda_array_interface__ path reads this object without DLPack")

        def __dlpack_device__(self):
            return (2, 0)

    owner = qd.ndarray(qd.f32, (2,))
    add_one(Both(owner))
    np.testing.assert_array_equal(owner.to_numpy(), np.ones(2))


def test_cuda_dlpack_producer_is_given_the_legacy_stream():
    class DlpackOnly:
        def __init__(self, owner):
            self.owner = owner
            self.streams = []

        def __dlpack__(self, stream=None, max_version=None):
            self.streams.append(stream)
            return self.owner.__dlpack__(stream=stream, max_version=max_version)

        def __dlpack_device__(self):
            return self.owner.__dlpack_device__()

    producer = DlpackOnly(qd.ndarray(qd.f32, (2,)))
    add_one(producer)
    assert producer.streams == [1]
    np.testing.assert_array_equal(producer.owner.to_numpy(), np.ones(2))


def raises_for(match, error, **interface):
    owner = qd.ndarray(qd.f32, (4,))
    with pytest.raises(error, match=match):
        add_one(Producer(owner, **interface))


def test_big_endian_typestr_is_refused():
    raises_for(r"Kernel 'add_one' argument 'x': its __cuda_array_interface__ typestr '>f4' is big-endian; "
               r"quadrants needs native \(little-endian\) byte order, such as '<f4'\.", TypeError, typestr=">f4")


@pytest.mark.parametrize("typestr", ["<c8", "|V4", "<f16", "|b2"])
def test_unsupported_kind_is_refused(typestr):
    raises_for(f"quadrants cannot use arrays of __cuda_array_interface__ typestr '{typestr}'; supported are b1",
               TypeError, typestr=typestr)


@pytest.mark.parametrize("typestr", ["float32", "f4", "<fx"])
def test_malformed_typestr_is_refused(typestr):
    raises_for(f"typestr '{typestr}' is not a byte order, a kind and an item size, such as '<f4'",
               TypeError, typestr=typestr)


def test_stride_that_is_not_whole_items_is_refused():
    raises_for("a stride of 6 bytes for 4-byte items; pass a contiguous copy instead", ValueError,
               shape=(2,), strides=(6,))


def test_strides_of_the_wrong_length_are_refused():
    raises_for("'strides' has 2 entries for a 'shape' of 1", ValueError, strides=(4, 4))


def test_mask_is_refused():
    raises_for("has a 'mask'; quadrants cannot use masked arrays", TypeError, mask=object())


def test_stream_zero_is_refused():
    raises_for(r"'stream' is 0; the interface allows None, 1 \(legacy default stream\), 2 \(per-thread default "
               r"stream\) or a stream handle", ValueError, stream=0)


def test_host_pointer_is_refused():
    host = np.zeros(4, dtype=np.float32)
    producer = Producer(qd.ndarray(qd.f32, (4,)))
    producer.__cuda_array_interface__["data"] = (host.ctypes.data, False)
    with pytest.raises(ValueError, match=f"data pointer {hex(host.ctypes.data)} is not CUDA device memory"):
        add_one(producer)


def test_missing_members_and_wrong_types_are_refused():
    owner = qd.ndarray(qd.f32, (4,))
    for key, match in (("version", "has no 'version'"), ("typestr", "has no 'typestr' string"),
                       ("shape", "has no 'shape'"), ("data", r"'data' must be a tuple \(pointer, read_only\), "
                                                         "but is missing")):
        producer = Producer(owner)
        del producer.__cuda_array_interface__[key]
        with pytest.raises(TypeError, match=match):
            add_one(producer)
    producer = Producer(owner, shape=(4.0,))
    with pytest.raises(TypeError, match="'shape' entry must be an int, but got builtins.float"):
        add_one(producer)
    producer.__cuda_array_interface__ = [1, 2]
    with pytest.raises(TypeError, match="__cuda_array_interface__ must be a dict, but is builtins.list"):
        add_one(producer)
