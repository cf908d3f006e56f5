# python/quadrants/backends/context.py: what every standardized function needs to know about its backend.
"""LibraryContext: the library, its array_api_compat namespace, the device and the dtype tables.

The standardized functions are closures over one LibraryContext, built once per Backend, so that
`help(backend.meshgrid)` can name the exact library function it calls.
"""

import functools

import numpy

from quadrants.backends import dtypes
from quadrants.backends.inference import array_origin, describe_origin
from quadrants.backends.libraries import import_compat_namespace


def _native_device(lib_name, lib, device, index):
    """The device object that array_api_compat creation functions accept for this backend.

    A bare 'cuda' is resolved to the current CUDA device once, when the backend is created.
    """
    if lib_name == "torch":
        if device == "cpu":
            return lib.device("cpu")
        return lib.device("cuda", lib.cuda.current_device() if index is None else index)
    if lib_name == "cupy":
        return lib.cuda.Device() if index is None else lib.cuda.Device(index)
    return "cpu"


class LibraryContext:
    """Library, device and dtype tables shared by the standardized functions of one Backend."""

    def __init__(self, lib_name, lib, device, index):
        self.name = lib_name
        self.lib = lib
        self.xp = import_compat_namespace(lib_name)
        self.device = device
        self.native_device = _native_device(lib_name, lib, device, index)
        self.origin = (lib_name, self._origin_device())
        self.str_to_lib = dtypes.str_to_lib_dtypes(lib_name, lib)
        self.lib_to_str = dtypes.lib_to_str_dtypes(self.str_to_lib)

    def _origin_device(self):
        if self.name == "cupy":
            return f"cuda:{self.native_device.id}"
        return str(self.native_device)

    def check_arrays(self, function_name, **arguments):
        """Reject arrays of another backend; sequences (stack, meshgrid) are checked element by element."""
        for argument, value in arguments.items():
            values = value if isinstance(value, (list, tuple)) else (value,)
            for item in values:
                origin = array_origin(item)
                if origin is not None and origin != self.origin:
                    raise TypeError(
                        f"{function_name}() of the {describe_origin(self.origin)} got {argument} from the "
                        f"{describe_origin(origin)}; arrays of two backends cannot be mixed in one call, "
                        f"convert with to_numpy()/from_numpy() or create the backend with backend_of(array)."
                    )

    def lib_dtype(self, function_name, dtype, default):
        """The library dtype for a standardized dtype argument; None means `default` (a str, as numpy does)."""
        if dtype is None:
            dtype = default
        if isinstance(dtype, str):
            if dtype not in self.str_to_lib:
                names = ", ".join(repr(name) for name in dtypes.STANDARD_DTYPE_NAMES)
                raise ValueError(f"{function_name}() expected dtype to be one of {names} or None, got {dtype!r}.")
            return self.str_to_lib[dtype]
        if dtype in self.lib_to_str:
            return dtype
        raise TypeError(
            f"{function_name}() expected dtype to be a str such as 'float32' or a {self.name} dtype, got {dtype!r}."
        )

    def follow_numpy_promotion(self, numpy_function, *arguments):
        """Cast torch arrays to the dtype numpy's `numpy_function` would return for these arguments.

        numpy and CuPy already promote this way; torch would give float32 for integer inputs of sin,
        arctan2 or maximum(x, 0.5), where numpy gives float64.
        """
        lib_dtype = self.numpy_result_dtype(numpy_function, *arguments)
        if lib_dtype is None:
            return arguments
        return tuple(value.to(lib_dtype) if self._widens(value, lib_dtype) else value for value in arguments)

    def numpy_result_dtype(self, numpy_function, *arguments):
        """On torch, the library dtype numpy_function would return for these arguments; else None.

        None too where numpy's answer has no torch counterpart (uint64 sums of uint8).
        """
        if self.name != "torch":
            return None
        signature = tuple(dtypes.dtype_name(value) if array_origin(value) else type(value) for value in arguments)
        target = _numpy_result_dtype(numpy_function, signature)
        return None if target is None else self.str_to_lib[target]

    def _widens(self, value, lib_dtype):
        """Whether casting array `value` to lib_dtype is numpy's promotion, not a loss (complex to real for abs)."""
        if array_origin(value) is None or value.dtype == lib_dtype:
            return False
        return lib_dtype.is_complex or not value.dtype.is_complex

    def standard(self, maps_to):
        """Decorator turning a closure into a documented standardized function of this backend.

        `maps_to` names the call made, with {lib} and {xp} standing for the library and its
        array_api_compat namespace. CuPy runs on its current device, so CuPy calls enter the backend's.
        """

        def decorate(function):
            call = maps_to.format(lib=self.name, xp=f"array_api_compat.{self.name}")
            function.__doc__ = f"{function.__doc__}\n\nMaps to {call}, on the {describe_origin(self.origin)}."
            function.__module__ = "quadrants.backends"
            if self.name != "cupy":
                return function

            @functools.wraps(function)
            def on_device(*args, **kwargs):
                with self.native_device:
                    return function(*args, **kwargs)

            return on_device

        return decorate


@functools.lru_cache(maxsize=1024)
def _numpy_result_dtype(numpy_function, signature):
    """Result dtype name of numpy_function on empty arrays of the given dtypes (types for scalars)."""
    try:
        probes = [numpy.empty(0, dtype=item) if isinstance(item, str) else item(0) for item in signature]
        name = numpy_function(*probes).dtype.name
    except TypeError:
        return None  # a dtype numpy lacks (bfloat16) or cannot combine: leave torch's own promotion
    return name if name in dtypes.STANDARD_DTYPE_NAMES else None
