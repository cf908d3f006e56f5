# tests/python/test_backends_gpu.py: quadrants.backends on torch-CUDA and CuPy (skipped without a GPU).
"""The GPU backends agree with numpy and keep their arrays, and backend_of its device index, on the GPU."""

import importlib.util

import numpy as np
import pytest

import quadrants.backends as backends


def _torch_cuda():
    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs torch")
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs torch with a CUDA device")
    return torch


def _cupy():
    if importlib.util.find_spec("cupy") is None:
        pytest.skip("needs CuPy")
    import cupy

    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("needs a CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("needs a CUDA device")
    return cupy


@pytest.fixture(params=["torch-cuda", "cupy"])
def gpu_backend(request):
    if request.param == "torch-cuda":
        _torch_cuda()
        return backends.create_torch_backend("cuda")
    _cupy()
    return backends.create_cupy_backend()


def test_gpu_results_match_numpy_and_stay_on_the_gpu(gpu_backend, matches_numpy):
    a = np.random.default_rng(0).standard_normal((4, 6))
    for name, numpy_function, args in (
        ("sin", np.sin, (a,)), ("arctan2", np.arctan2, (a, a[::-1].copy())), ("cumsum", np.cumsum, (a,)),
        ("fft2", np.fft.fft2, (a,)), ("irfftn", np.fft.irfftn, (np.fft.rfftn(a),)),
        ("transpose", np.transpose, (a,)), ("argwhere", np.argwhere, (a > 0,)),
    ):
        result = matches_numpy(gpu_backend, name, numpy_function, *args, scale=float(np.abs(a).sum()))
        assert gpu_backend.is_backend_compliant(result)
    zeros = gpu_backend.zeros((3,))
    assert gpu_backend.lib_to_str_dtypes[zeros.dtype] == "float64"
    assert backends.backend_of(zeros) == gpu_backend


def test_torch_cuda_device_index_and_mixing():
    torch = _torch_cuda()
    backend = backends.create_torch_backend("cuda:0")
    assert backends.backend_of(torch.zeros(2, device="cuda:0")).device == "cuda:0"
    with pytest.raises(TypeError, match=r"sin\(\) of the torch backend on 'cuda:0' got x from the torch backend on 'cpu'"):
        backend.sin(torch.zeros(2))
    missing = f"cuda:{torch.cuda.device_count()}"
    with pytest.raises(RuntimeError, match=f"torch device '{missing}' is not available on this system; available devices: 'cpu', 'cuda:0'"):
        backends.create_torch_backend(missing)


def test_cupy_backend_of_and_mixing():
    cupy = _cupy()
    backend = backends.create_cupy_backend()
    assert backend.cls is cupy.ndarray
    assert backends.backend_of(cupy.zeros(2)).device == f"cuda:{cupy.cuda.Device().id}"
    with pytest.raises(TypeError, match=r"sin\(\) of the cupy backend on 'cuda:0' got x from the numpy backend on 'cpu'"):
        backend.sin(np.zeros(2))
