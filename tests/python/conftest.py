# tests/python/conftest.py: shared pytest fixtures.
"""Fixtures shared by several test files."""

import os

import numpy as np
import pytest

from quadrants.runtime import _core, init as _runtime

# Relative tolerance per result dtype: a few ulps of float16/32, and libm differences for float64.
_TOLERANCES = {"float16": 4e-3, "float32": 2e-5, "complex64": 2e-5, "float64": 1e-12, "complex128": 1e-12}


@pytest.fixture(scope="session", params=["numpy", "torch-cpu"])
def array_backend(request):
    """A quadrants.backends Backend for each CPU library; session-scoped so hypothesis tests may use it."""
    import quadrants.backends as backends

    if request.param == "numpy":
        return backends.create_numpy_backend()
    pytest.importorskip("torch")
    return backends.create_torch_backend("cpu")


def _assert_same(backend, got, expected, scale):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for got_item, expected_item in zip(got, expected):
            _assert_same(backend, got_item, expected_item, scale)
        return
    expected = np.asarray(expected)
    assert str(got.dtype).removeprefix("torch.") == expected.dtype.name
    got = backend.to_numpy(got)
    assert got.shape == expected.shape
    tolerance = _TOLERANCES.get(expected.dtype.name, 0.0)
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance * scale, equal_nan=True)


def _matches_numpy(backend, name, numpy_function, *args, scale=1.0, **kwargs):
    converted = [backend.from_numpy(arg) if isinstance(arg, np.ndarray) else arg for arg in args]
    with np.errstate(all="ignore"):  # nan and inf are compared too, so numpy's warnings about them are noise
        expected = numpy_function(*args, **kwargs)
        got = getattr(backend, name)(*converted, **kwargs)
    _assert_same(backend, got, expected, scale)
    return got


@pytest.fixture(scope="session")
def matches_numpy():
    """matches_numpy(backend, name, numpy_function, *args, scale=1.0, **kwargs) runs backend.<name> on
    args moved to the backend and numpy_function on args, and asserts equal dtypes and values within
    the result dtype's tolerance; `scale` widens the absolute tolerance of sums of many terms."""
    return _matches_numpy


# QD_TEST_ARCH=cuda runs the kernel suites on CUDA: qd.init() for the CPU (or with no arch) picks
# CUDA instead. scripts/run_tests.sh uses it with the driver emulation (tests/cuda_emulator/) where
# there is no GPU, and a GPU machine can use it with the real driver.
# Tests marked cpu_only check host-only behaviour (numpy aliasing a container's memory, CPU compile
# counts, the default arch) and are skipped then.
ON_CUDA = os.environ.get("QD_TEST_ARCH") == "cuda"
if ON_CUDA:
    from quadrants.runtime import init as _runtime

    _resolve_arch = _runtime._resolve_arch
    _runtime._resolve_arch = lambda arch, enable_fallback=True: _resolve_arch(
        _runtime.cuda if arch in (None, _runtime.cpu) else arch, enable_fallback)


@pytest.fixture
def compiles(monkeypatch):
    """The IR texts compiled for the target from now on: one per new specialization
    (the `compiles` fixture of the data_oriented and dataclass suites).

    CPU runs may also compile-check the CUDA code (QD_CHECK_CUDA); those compiles are not counted.
    """
    seen = []
    for name in ("compile_kernel", "compile_kernel_cuda"):
        original = getattr(_core, name)

        def spy(text, *args, _original=original, _for_cuda=name.endswith("cuda")):
            if _for_cuda == _runtime.config().is_cuda:
                seen.append(text)
            return _original(text, *args)

        monkeypatch.setattr(_core, name, spy)
    return seen


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_only: checks host-only behaviour; skipped when QD_TEST_ARCH=cuda")


def pytest_collection_modifyitems(config, items):
    if not ON_CUDA:
        return
    skip = pytest.mark.skip(reason="host-only behaviour (QD_TEST_ARCH=cuda)")
    for item in items:
        if "cpu_only" in item.keywords:
            item.add_marker(skip)
