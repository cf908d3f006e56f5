# python/quadrants/backends/inference.py: which library and device an array belongs to.
"""Recognizing arrays of numpy, CuPy and torch without importing the libraries that are not loaded."""

import array_api_compat
import numpy


def array_origin(value):
    """(library name, device string) of an array, or None when `value` is not a numpy, CuPy or torch array.

    numpy scalars such as numpy.float64(1.0) count as scalars, not arrays, like Python numbers.
    """
    if isinstance(value, numpy.ndarray):
        return "numpy", "cpu"
    if array_api_compat.is_torch_array(value):
        return "torch", str(value.device)
    if array_api_compat.is_cupy_array(value):
        return "cupy", f"cuda:{value.device.id}"
    return None


def describe_origin(origin):
    """Human wording of an origin, as used in error messages: "torch backend on 'cuda:0'"."""
    lib_name, device = origin
    return f"{lib_name} backend on {device!r}"
