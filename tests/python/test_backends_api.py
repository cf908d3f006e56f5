# tests/python/test_backends_api.py: quadrants.backends attributes, dtype tables, documentation and errors.
"""The Backend attributes of the third seed, backend_of, and the user errors of bad devices, missing
libraries and arrays of two backends mixed in one call."""

import importlib.util
import pydoc
import subprocess
import sys

import numpy as np
import pytest

import quadrants.backends as backends

STANDARD_FUNCTIONS = (
    "zeros ones empty arange linspace meshgrid copy "
    "sqrt sin cos arccos arctan2 exp log abs real imag conj maximum minimum "
    "argwhere tile moveaxis transpose reshape stack concatenate cast "
    "sum max min cumsum "
    "fft ifft rfft irfft fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn fftshift ifftshift "
    "rand randn to_numpy from_numpy"
).split()

SEED_COMPLEX_TABLE = {
    "int8": None, "int16": None, "int32": "complex64", "float32": "complex64", "complex64": "complex64",
    "int64": "complex128", "float64": "complex128", "complex128": "complex128",
}

STR_DTYPES = ["int8", "int16", "int32", "int64", "float32", "float64", "complex64", "complex128",
              "bool", "uint8", "float16"]


def torch_module():
    return pytest.importorskip("torch")


def test_numpy_backend_attributes():
    backend = backends.create_numpy_backend()
    assert backend.lib is np and backend.device == "cpu" and backend.cls is np.ndarray
    assert backend.str_to_lib_dtypes == {**{name: np.dtype(name) for name in STR_DTYPES}, None: np.dtype(None)}
    assert backend.lib_to_str_dtypes[np.dtype("float64")] == "float64"
    assert all(backend.lib_to_str_dtypes[np.dtype(name)] == name for name in STR_DTYPES)
    assert backend.mapping_to_complex_dtypes == SEED_COMPLEX_TABLE


def test_torch_backend_attributes():
    torch = torch_module()
    backend = backends.create_torch_backend("cpu")
    assert backend.lib is torch and backend.device == "cpu" and backend.cls is torch.Tensor
    assert backend.str_to_lib_dtypes == {**{name: getattr(torch, name) for name in STR_DTYPES}, None: None}
    assert backend.lib_to_str_dtypes == {value: key for key, value in backend.str_to_lib_dtypes.items()}
    assert backend.mapping_to_complex_dtypes == SEED_COMPLEX_TABLE
    assert backend == backends.Backend(torch, "cpu") and backend != backends.create_numpy_backend()


def test_every_standard_function_names_what_it_maps_to(array_backend):
    name = array_backend.lib.__name__
    for function_name in STANDARD_FUNCTIONS:
        function = getattr(array_backend, function_name)
        assert function.__name__ == function_name
        assert "Maps to " in function.__doc__ and name in function.__doc__, function_name
    text = pydoc.render_doc(array_backend.meshgrid, renderer=pydoc.plaintext)
    assert f"Maps to array_api_compat.{name}.meshgrid(*xi, indexing=indexing)" in text
    assert "meshgrid(*xi, indexing='xy')" in text


def test_float_defaults_are_numpy_defaults_on_every_backend(array_backend):
    for result in (array_backend.zeros(2), array_backend.ones((2, 1)), array_backend.empty(3),
                   array_backend.linspace(0, 1, 3), array_backend.arange(0.5, 2), array_backend.rand(2),
                   array_backend.randn(2), array_backend.cast(array_backend.arange(2), None)):
        assert array_backend.lib_to_str_dtypes[result.dtype] == "float64"
    assert array_backend.lib_to_str_dtypes[array_backend.arange(3).dtype] == "int64"


def test_transpose_reverses_all_axes(array_backend):
    assert tuple(array_backend.transpose(array_backend.zeros((2, 3, 4))).shape) == (4, 3, 2)


def test_is_backend_compliant(array_backend):
    own = array_backend.zeros(2)
    assert array_backend.is_backend_compliant(own, array_backend.ones(1))
    assert array_backend.is_backend_compliant()
    assert not array_backend.is_backend_compliant(own, [1.0])


def test_backend_of_numpy_and_torch():
    assert backends.backend_of(np.zeros(2)) == backends.create_numpy_backend()
    torch = torch_module()
    backend = backends.backend_of(torch.zeros(2))
    assert backend.lib is torch and backend.device == "cpu"
    assert backends.backend_of(torch.zeros(2)) is backend


def test_backend_of_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"backend_of\(\) expected x to be a numpy.ndarray, cupy.ndarray or torch.Tensor, got list"):
        backends.backend_of([1, 2])


# Bad input -----------------------------------------------------------------------------------------

def test_missing_cuda_device_lists_the_available_ones():
    torch = torch_module()
    available = ", ".join(["'cpu'"] + [f"'cuda:{index}'" for index in range(torch.cuda.device_count())])
    with pytest.raises(RuntimeError, match=f"torch device 'cuda:7' is not available on this system; available devices: {available}"):
        backends.create_torch_backend("cuda:7")


@pytest.mark.parametrize("device", ["gpu", "cuda:", "cuda:x", "cuda:-1", "cpu:0", "CPU", " cpu", ""])
def test_malformed_device_is_a_value_error(device):
    with pytest.raises(ValueError, match=f"device must be one of 'cpu', 'cuda' or 'cuda:X' with X a device index, got {device!r}"):
        backends.create_torch_backend(device)


def test_device_of_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="device must be a str such as 'cpu', 'cuda' or 'cuda:0', got int 0"):
        backends.create_torch_backend(0)


def test_backend_checks_library_and_device():
    with pytest.raises(TypeError, match="Backend\\(\\) expected lib to be one of the modules numpy, cupy or torch, got 'numpy'"):
        backends.Backend("numpy", "cpu")
    with pytest.raises(ValueError, match="numpy arrays live on the CPU, so device must be 'cpu', got 'cuda'"):
        backends.Backend(np, "cuda")


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
def test_missing_cupy_names_the_package():
    with pytest.raises(ImportError, match=r"create_cupy_backend\(\) needs the 'cupy' package.*pip install cupy-cuda12x"):
        backends.create_cupy_backend()


def test_mixing_backends_names_both():
    torch = torch_module()
    numpy_backend, torch_backend = backends.create_numpy_backend(), backends.create_torch_backend("cpu")
    message = (r"sin\(\) of the torch backend on 'cpu' got x from the numpy backend on 'cpu'; "
               r"arrays of two backends cannot be mixed in one call")
    with pytest.raises(TypeError, match=message):
        torch_backend.sin(np.zeros(2))
    with pytest.raises(TypeError, match=r"maximum\(\) of the numpy backend on 'cpu' got x2 from the torch backend on 'cpu'"):
        numpy_backend.maximum(np.zeros(2), torch.zeros(2))
    with pytest.raises(TypeError, match=r"concatenate\(\) of the torch backend on 'cpu' got arrays from the numpy backend"):
        torch_backend.concatenate([torch.zeros(2), np.zeros(2)])
    with pytest.raises(TypeError, match=r"from_numpy\(\) expected a to be a numpy.ndarray, got an array of the torch backend"):
        numpy_backend.from_numpy(torch.zeros(2))


def test_unknown_dtype_lists_the_standard_ones(array_backend):
    with pytest.raises(ValueError, match=r"zeros\(\) expected dtype to be one of 'int8', .*'float16' or None, got 'float128'"):
        array_backend.zeros(2, dtype="float128")
    with pytest.raises(ValueError, match=r"rand\(\) expected dtype 'float32', 'float64' or None, got 'int32'"):
        array_backend.rand(2, dtype="int32")


def test_random_seed_and_generator_are_exclusive(array_backend):
    with pytest.raises(ValueError, match=r"rand\(\) takes a seed or a generator, not both; got seed=1 too"):
        array_backend.rand(2, seed=1, generator=np.random.default_rng(1))
    with pytest.raises(TypeError, match=r"randn\(\) expected generator to be a .*Generator, got list"):
        array_backend.randn(2, generator=[])


def test_import_works_without_torch():
    """torch stays optional: with it blocked, numpy backends work and torch's constructor names the package."""
    script = (
        "import sys; sys.modules['torch'] = None; sys.modules['cupy'] = None\n"
        "import quadrants.backends as backends\n"
        "assert backends.create_numpy_backend().zeros(2).sum() == 0\n"
        "try:\n    backends.create_torch_backend('cpu')\nexcept ImportError as error:\n    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "create_torch_backend() needs the 'torch' package" in result.stdout
    assert "pip install torch" in result.stdout
