# python/quadrants/__init__.py: the public Python API, `import quadrants as qd`.
import sys as _sys

from quadrants import _logging
from quadrants.data.tensor import *  # noqa: F401,F403  upstream's arch names, Backend, Tensor, extension
from quadrants.base.dtypes import (
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    u1,
    u8,
    u16,
    u32,
    u64,
    uint1,
    uint8,
    uint16,
    uint32,
    uint64,
)
from quadrants.base.log import CRITICAL, DEBUG, ERROR, INFO, TRACE, WARN, is_logging_effective, set_logging_level  # noqa: F401
from quadrants.runtime.init import cpu, cuda, gpu, init, reset, sync
from quadrants.backends import backend_of
from quadrants.interop.cpp_kernels import cpp_kernel
from quadrants.data.field import Field, MatrixField, ScalarField, field
from quadrants.runtime.dlpack import from_dlpack
from quadrants.lang import *  # noqa: F401,F403  kernel, func, types, math, atomics, errors, ...
from quadrants.lang import impl  # noqa: F401  qd.lang.impl, upstream's runtime internals that programs reach into
from quadrants import math  # noqa: F811  upstream's import path (`from quadrants.math import vec3`) of qd.math
from quadrants.lang import _template_mapper, exception, ops  # noqa: F401  upstream module paths under qd.lang
from quadrants.base.errors import *  # noqa: F401,F403  every exception class upstream exports at the top level
from quadrants.data.matrix import Matrix, Vector
from quadrants.frontend.sparse_access import activate, append, deactivate, is_active, length, rescale_index  # noqa: F401
from quadrants.frontend.field_address import get_addr  # noqa: F401  the address of a field element, in kernels
from quadrants.data.snode import (
    FieldsBuilder,
    SNode,
    SNodeTree,
    axes,
    i,
    ij,
    ijk,
    ijkl,
    ijl,
    ik,
    ikl,
    il,
    j,
    jk,
    jkl,
    jl,
    k,
    kl,
    l,
    root,
)
from quadrants.data.ndarray import MatrixNdarray, Ndarray, ScalarNdarray, VectorNdarray, ndarray
from quadrants import ad  # noqa: E402  qd.ad: reverse-mode autodiff (Tape, clear_all_gradients, custom gradients)
from quadrants import algorithms  # noqa: E402  qd.algorithms: parallel_sort and the scratch sizing helpers
from quadrants.interop.autograd_op import autograd_op
from quadrants.kernels.pitfalls import AutogradWarning, PrecisionWarning  # noqa: F401  to filter or catch them by name
from quadrants.interop.torch_ops import torch_op
from quadrants import linalg  # noqa: E402  qd.linalg: sparse matrices and their solvers, matrix-free CG/BiCGSTAB
from quadrants.library.linear_solve import solve  # noqa: E402  qd.solve(A, b) inside kernels
from quadrants.library.decompositions import polar_decompose, svd  # noqa: E402  2x2 and 3x3, inside kernels
from quadrants.library.eigen_decompositions import eig, make_spd, sym_eig  # noqa: E402  small matrices, inside kernels
from quadrants import experimental  # noqa: E402  qd.experimental.real_func, upstream's deprecated alias
from quadrants.frontend.checkpoint import GraphStatus, checkpoint  # noqa: E402  upstream's yield/resume marker and launch status
from quadrants.frontend import graph  # noqa: E402  qd.graph: parallel_context() regions of parallel() sections in graph kernels
# upstream's deprecated flat spellings, the same objects; kernels using them warn (lang/graph_spelling.py)
from quadrants.frontend.graph import (
    do_while as graph_do_while,
    parallel as graph_parallel,
    parallel_context as graph_parallel_context,
)  # noqa: E402,E501
from quadrants import profiler  # noqa: E402  qd.profiler: the kernel profiler (qd.init(kernel_profiler=True))
# Importing the quadrants.types package rebinds qd.types from lang.types (star-imported above) to it.
from quadrants.types.enums import Layout
from quadrants import types  # noqa: E402,F811

from quadrants.runtime.cache import clear_cache  # noqa: E402  empties the disk cache of compiled kernels (upstream has no such call)
from quadrants.runtime.paths import get_cmake_dir, get_include  # noqa: E402  for C++ users: headers and find_package(quadrants)
from quadrants.runtime.compiler import install_fallback_compiler as _install_fallback_compiler  # noqa: E402

_install_fallback_compiler()  # ziglang's clang for CPU kernels where the system has no C++ compiler


def _package_version():
    """The version pyproject.toml declares: from the installed metadata, else read from the source tree's pyproject."""
    import re
    from importlib import metadata
    from pathlib import Path
    try:
        return metadata.version("quadrants")
    except metadata.PackageNotFoundError:
        pass
    try:  # an uninstalled checkout on sys.path: python/quadrants/ -> the repository root
        text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
        return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)
    except (OSError, AttributeError):
        return "0.0.0+unknown"


__version__ = _package_version()


def __getattr__(name):
    # qd.cfg is the current configuration, or None before qd.init() (and after qd.reset()), as upstream.
    if name == "cfg":
        from quadrants.runtime import init as runtime

        return None if runtime._config is None else runtime._config.options
    raise AttributeError(f"module 'quadrants' has no attribute {name!r}")
