# tests/python/test_cuda_runtime.py: _core's CUDA runtime functions: clear status without a GPU, copies and streams with one.
"""Without a driver or device every CUDA entry point fails with a RuntimeError that says which is
missing; the device tests skip themselves then and run for real on a GPU machine."""

import numpy as np
import pytest

from quadrants.runtime import _core

STATUS = _core.cuda_status()
requires_cuda = pytest.mark.skipif(STATUS != "", reason=f"CUDA is not usable: {STATUS}")


def host_array(values, dtype):
    array = _core.Array.create(dtype, list(np.shape(values)), [])
    for index, value in np.ndenumerate(values):
        array.set(list(index), value.item())
    return array


def host_values(array):
    return np.array([array.get(list(index)) for index in np.ndindex(*array.shape)]).reshape(array.shape)


def host_values_of_device(device):
    host = _core.Array.create("f64", list(device.shape), [])
    _core.cuda_copy(host, device, 0)
    return host_values(host)


def test_status_names_what_is_missing():
    if STATUS == "":
        assert _core.cuda_device_count() > 0
        return
    assert STATUS.startswith(("no driver library", "cuInit failed (", "no device")), STATUS
    assert _core.cuda_device_count() == 0


@pytest.mark.skipif(STATUS == "", reason="CUDA is usable here")
def test_entry_points_raise_runtime_error_without_cuda():
    expected = f"CUDA is not available: {STATUS}."
    for call in (lambda: _core.cuda_init(0), lambda: _core.cuda_array("f32", [4], [], 0),
                 lambda: _core.cuda_synchronize(0), lambda: _core.cuda_stream_wait(2, 1)):
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == expected
    assert _core.cuda_pointer_device(id(expected)) is None


def test_host_copies_and_argument_checks_need_no_driver():
    src = host_array(np.array([1.5, 2.5]), "f64")
    dst = _core.Array.create("f32", [2], [])
    _core.cuda_copy(dst, src, 0)
    assert host_values(dst).tolist() == [1.5, 2.5]
    with pytest.raises(ValueError, match=r"cuda_copy: shape mismatch: the destination has shape \(3,\)"):
        _core.cuda_copy(_core.Array.create("f32", [3], []), src, 0)
    with pytest.raises(TypeError, match="cannot convert f64 data into a i32 array"):
        _core.cuda_copy(_core.Array.create("i32", [2], []), src, 0)


@requires_cuda
def test_device_array_round_trip_with_conversion():
    info = _core.cuda_init(0)
    assert info["sm_count"] > 0
    device = _core.cuda_array("f32", [2, 3], [], 0)
    assert device.device == (2, 0)
    assert _core.cuda_pointer_device(device.data_ptr) == 0
    assert host_values_of_device(device).tolist() == [[0] * 3] * 2
    values = np.arange(6, dtype=np.float64).reshape(2, 3)
    _core.cuda_copy(device, host_array(values, "f64"), 0)
    assert host_values_of_device(device).tolist() == values.tolist()
    with pytest.raises(ValueError, match="device_id must be between 0 and"):
        _core.cuda_init(_core.cuda_device_count())


@requires_cuda
def test_torch_tensors_and_streams():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch was built without CUDA")
    full = torch.zeros(4, 6, device="cuda:0")
    tensor = full[:, ::2]  # strided: the gaps must survive
    view = _core.Array.from_dlpack(tensor.__dlpack__())
    assert _core.cuda_pointer_device(tensor.data_ptr()) == 0
    side = torch.cuda.Stream()
    _core.cuda_stream_wait(side.cuda_stream, torch.cuda.current_stream().cuda_stream)
    _core.cuda_copy(view, host_array(np.arange(12).reshape(4, 3), "i64"), side.cuda_stream)
    _core.cuda_synchronize(side.cuda_stream)
    assert tensor.cpu().tolist() == np.arange(12, dtype=np.float32).reshape(4, 3).tolist()
    assert full.cpu()[:, 1::2].abs().sum().item() == 0
