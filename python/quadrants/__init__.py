# python/quadrants/__init__.py: the public Python API, `import quadrants as qd`.
from ._dtypes import f16, f32, f64, i8, i16, i32, i64, u1, u8, u16, u32, u64
from ._runtime import cpu, cuda, gpu, init, reset, sync
from .backends import backend_of
from .cpp_kernels import cpp_kernel
from .field import field
from .interop import from_dlpack
from .lang import *  # noqa: F401,F403  kernel, func, types, math, atomics, errors, ...
from .matrix import Matrix, Vector
from .ndarray import ndarray
from .torch_ops import torch_op

__version__ = "0.1.0"
