# tests/python/test_backends_doctests.py: the third seed's examples, run as doctests of quadrants.backends.
"""The seed's examples live in the constructors' docstrings with only the module path changed
(pyepri.backends -> quadrants.backends); each runs where its library and device exist."""

import doctest
import importlib.util
import re

import pytest

import quadrants.backends as backends


def _has_torch_cuda():
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


def _has_cupy_gpu():
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


def _torch_example(number):
    """Example 1 (cpu) or 2 (cuda) of create_torch_backend's docstring."""
    text = backends.create_torch_backend.__doc__
    first, second = text.split("Example 2:")
    return first if number == 1 else second


# The seed continues a commented line with a `>>>` line holding only a comment; read as written,
# doctest would attach the next output to that empty example, so such lines become continuations.
_COMMENT_PROMPT = re.compile(r"^(\s*)>>>(\s+#)", re.MULTILINE)


def run_doctest(text, name):
    text = _COMMENT_PROMPT.sub(r"\1...\2", text)
    test = doctest.DocTestParser().get_doctest(text, {}, name, backends.__file__, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert test.examples, f"{name} has no examples"
    assert runner.failures == 0, f"{runner.failures} of {len(test.examples)} examples of {name} failed"


def test_numpy_backend_examples():
    run_doctest(backends.create_numpy_backend.__doc__, "create_numpy_backend")


def test_help_example_names_the_mapped_function():
    run_doctest(backends.Backend.__doc__, "Backend")


def test_torch_cpu_examples():
    pytest.importorskip("torch")
    run_doctest(_torch_example(1), "create_torch_backend, example 1")


@pytest.mark.skipif(not _has_torch_cuda(), reason="needs torch with a CUDA device")
def test_torch_cuda_examples():
    run_doctest(_torch_example(2), "create_torch_backend, example 2")


@pytest.mark.skipif(not _has_cupy_gpu(), reason="needs CuPy and a CUDA device")
def test_cupy_examples():
    run_doctest(backends.create_cupy_backend.__doc__, "create_cupy_backend")
