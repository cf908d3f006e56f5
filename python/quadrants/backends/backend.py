# python/quadrants/backends/backend.py: the Backend class, its constructors and backend_of.
"""Backend(lib, device): one numpy-style API over numpy, CuPy and torch, with string dtypes."""

import functools

from quadrants.backends import (
    conversion,
    creation,
    dtypes,
    elementwise,
    fourier,
    manipulation,
    random_numbers,
    reductions,
)
from quadrants.backends.context import LibraryContext
from quadrants.backends.devices import check_device, parse_device
from quadrants.backends.inference import array_origin
from quadrants.backends.libraries import import_library, library_name

_FUNCTION_GROUPS = (creation, elementwise, manipulation, reductions, fourier, random_numbers, conversion)


class Backend:
    """Class for mapping our standardized data types and methods to the specified library (numpy, torch, cupy).

    Data types are given as str: 'int8', 'int16', 'int32', 'int64', 'float32', 'float64',
    'complex64', 'complex128', 'bool', 'uint8', 'float16' map to lib.dtype(name) for numpy and
    cupy and to torch.<name> for torch; None maps to lib.dtype(None) (float64) for numpy and cupy
    and to None for torch. Functions creating floating-point arrays default to 'float64' on every
    backend, as numpy does.

    Attributes:
        lib: the module numpy, cupy or torch.
        device: the device string the backend was created with ('cpu', 'cuda' or 'cuda:X').
        cls: the library's array type (numpy.ndarray, cupy.ndarray or torch.Tensor).
        str_to_lib_dtypes: dict from str dtypes to library dtypes.
        lib_to_str_dtypes: its inverse, from library dtypes to str dtypes.
        mapping_to_complex_dtypes: dict from a str dtype to the str dtype of its complex counterpart
            (None for 'int8' and 'int16'), e.g. to infer the dtype of a Fourier transform.

    Standardized functions, each with numpy's name, signature and defaults, whose help() names the
    library function it calls:
        creation: zeros, ones, empty, arange, linspace, meshgrid, copy;
        math: sqrt, sin, cos, arccos, arctan2, exp, log, abs, real, imag, conj, maximum, minimum;
        manipulation: argwhere, tile, moveaxis, transpose, reshape, stack, concatenate, cast;
        reductions: sum, max, min, cumsum;
        Fourier: fft, ifft, rfft, irfft, fft2, ifft2, rfft2, irfft2, fftn, ifftn, rfftn, irfftn,
            fftshift, ifftshift;
        random: rand, randn (with seed= or generator=);
        conversion: to_numpy, from_numpy.
    Passing an array of another backend (another library or device) to any of them raises TypeError.

    >>> import quadrants.backends as backends
    >>> backend = backends.create_numpy_backend()
    >>> help(backend.meshgrid)  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    Help on function meshgrid in module quadrants.backends:
    <BLANKLINE>
    meshgrid(*xi, indexing='xy')
        Coordinate arrays from coordinate vectors, as numpy.meshgrid ('xy' or 'ij' indexing).
    <BLANKLINE>
        Maps to array_api_compat.numpy.meshgrid(*xi, indexing=indexing), on the numpy backend on 'cpu'.
    <BLANKLINE>
    """

    def __init__(self, lib, device):
        lib_name = library_name(lib)
        index = check_device(lib_name, lib, device)
        context = LibraryContext(lib_name, lib, device, index)
        self._context = context
        self.lib = lib
        self.device = device
        self.cls = lib.Tensor if lib_name == "torch" else lib.ndarray
        self.str_to_lib_dtypes = context.str_to_lib
        self.lib_to_str_dtypes = context.lib_to_str
        self.mapping_to_complex_dtypes = dict(dtypes.COMPLEX_DTYPES)
        for group in _FUNCTION_GROUPS:
            for name, function in group.build(context).items():
                setattr(self, name, function)

    def is_backend_compliant(self, *arrays):
        """True when every argument is an array of this backend's library on this backend's device."""
        return all(array_origin(array) == self._context.origin for array in arrays)

    def __eq__(self, other):
        return isinstance(other, Backend) and self._context.origin == other._context.origin

    def __hash__(self):
        return hash(self._context.origin)

    def __repr__(self):
        return f"Backend(lib={self._context.name}, device={self.device!r})"


def create_numpy_backend():
    """Create a numpy backend.

    Returns:
        backend (Backend): configured to perform operations using numpy library on CPU device.

    See also: create_cupy_backend, create_torch_backend.

    The following example illustrate how one can call the numpy.zeros and numpy.arange functions
    from a backend output of this create_numpy_backend() function.

    >>> import quadrants.backends as backends
    >>> b = backends.create_numpy_backend()
    >>> x = b.zeros((10,),dtype='float64')
    >>> print(x)
    [0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
    >>> print(type(x))
    <class 'numpy.ndarray'>
    >>> print(x.dtype)
    float64
    >>> y = b.arange(3,10,2,dtype='int32') # another example
    >>> print(y)
    [3 5 7 9]
    >>> z = b.arange(10) # b.arange behaves as its numpy counterpart
    >>>                  # (`start` and `end` parameters are optional
    >>>                  # as for numpy.arange)
    >>> print(z)
    [0 1 2 3 4 5 6 7 8 9]
    """
    return Backend(import_library("numpy", "create_numpy_backend()"), "cpu")


def create_cupy_backend():
    """Create a cupy backend.

    Returns:
        backend (Backend): configured to perform operations using cupy library on GPU device
        (the current CUDA device). Raises ImportError naming the package when CuPy is missing.

    See also: create_numpy_backend, create_torch_backend.

    The following example illustrate how one can call the cupy.zeros and cupy.arange functions
    from a backend output of this backends.create_cupy_backend function.

    >>> import quadrants.backends as backends
    >>> b = backends.create_cupy_backend()
    >>> x = b.zeros((10,),dtype='float64')
    >>> print(x)
    [0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
    >>> print(type(x))
    <class 'cupy.ndarray'>
    >>> print(x.dtype)
    float64
    >>> print(x.device) # should return a GPU device (e.g.,
    >>>                 # <CUDA Device 0>)
    <CUDA Device 0>
    >>> y = b.arange(3,10,2,dtype='int32') # another example
    >>> print(y)
    [3 5 7 9]
    >>> z = b.arange(10) # b.arange behaves as its cuppy counterpart
    >>>                  # (`start` and `end` parameters are optional
    >>>                  # as for cupy.arange)
    >>> print(z)
    [0 1 2 3 4 5 6 7 8 9]
    """
    return Backend(import_library("cupy", "create_cupy_backend()"), "cuda")


def create_torch_backend(device):
    """Create a torch backend with specified device.

    Parameters:
        device (str): one of {'cpu', 'cuda', 'cuda:X'} with X = device index.

    Returns:
        backend (Backend): configured to perform operations using torch library on the specified device.

    Raises ImportError when torch is not installed, ValueError for a malformed device string and
    RuntimeError, listing the available devices, when the device does not exist on this system.

    See also: create_numpy_backend, create_cupy_backend.

    Example 1: create and use a torch backend on 'cpu' device

    >>> import quadrants.backends as backends
    >>> b = backends.create_torch_backend('cpu')
    >>> x = b.zeros((10,),dtype='float64') # type is specified using a
    >>>                                    # str (here 'float64')
    >>> print(x)
    tensor([0., 0., 0., 0., 0., 0., 0., 0., 0., 0.],
           dtype=torch.float64)
    >>> print(x.device) # device is 'cpu' because 'cpu' was used as
    >>>                 # input in line 2 of this example
    cpu
    >>> y = b.arange(3,10,2,dtype='int32') # another example
    >>> print(y)
    tensor([3, 5, 7, 9], dtype=torch.int32)
    >>> print(y.device)
    cpu
    >>> z = b.arange(10) # b.arange behaves as its torch counterpart
    >>>                  # (`start` and `end` parameters are optional
    >>>                  # as for torch.arange)
    >>> print(z)
    tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])

    Example 2: create and use a torch backend on 'cuda' device

    >>> import quadrants.backends as backends
    >>> b = backends.create_torch_backend('cuda')
    >>> x = b.zeros((10,),dtype='float64') # type is specified using a
    >>>                                    # str (here 'float64')
    >>> print(x) # device is now cuda:0 (can be cuda:X with X = one
    >>>          # available device index on your own system)
    tensor([0., 0., 0., 0., 0., 0., 0., 0., 0., 0.], device='cuda:0',
           dtype=torch.float64)
    >>> y = b.arange(3,10,2,dtype='int32') # another example
    >>> print(y)
    tensor([3, 5, 7, 9], device='cuda:0', dtype=torch.int32)
    >>> z = b.arange(10)
    >>> print(z)
    tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], device='cuda:0')
    """
    parse_device(device)  # a malformed device is a ValueError even where torch is missing
    return Backend(import_library("torch", "create_torch_backend()"), device)


def backend_of(x):
    """The Backend of array x: its library and device, e.g. create_torch_backend('cuda:1') for a tensor on cuda:1."""
    origin = array_origin(x)
    if origin is None:
        raise TypeError(
            f"backend_of() expected x to be a numpy.ndarray, cupy.ndarray or torch.Tensor, got {type(x).__name__}."
        )
    return _backend_for(origin)


@functools.lru_cache(maxsize=None)
def _backend_for(origin):
    # Backends are immutable, so one per (library, device) is shared by every array living there.
    lib_name, device = origin
    return Backend(import_library(lib_name, "backend_of()"), device)
