# python/quadrants/backends/__init__.py: one numpy-style array API over numpy, CuPy and torch.
"""quadrants.backends: a standardized Backend class for unified use of numpy, cupy and torch.

A Backend maps standardized str dtypes ('float32', 'float64', 'int32', ...) to the library's
dtypes, and exposes functions (zeros, arange, sin, cos, meshgrid, fft, ...) that keep numpy's
names, signatures and defaults whatever the library underneath.

Constructors: create_numpy_backend(), create_cupy_backend() and create_torch_backend(device);
backend_of(x) gives the backend an existing array belongs to. For details, see
help(quadrants.backends.Backend) and the constructors' help.

Only numpy is imported eagerly; torch and CuPy are imported when a backend of theirs is created.
"""

from quadrants.backends.backend import (
    Backend,
    backend_of,
    create_cupy_backend,
    create_numpy_backend,
    create_torch_backend,
)

__all__ = ["Backend", "backend_of", "create_cupy_backend", "create_numpy_backend", "create_torch_backend"]
