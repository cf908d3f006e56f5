# python/quadrants/__init__.py: the public Python API, `import quadrants as qd`.
#
# The only module that imports every floor of the package (docs/ARCHITECTURE.md), which also fills every slot of
# the registry (base/registry.py) that lower floors call up through. Names are grouped by the floor they come from;
# the order matters where a later import rebinds a name an earlier star import set (qd.types, qd.math).
import re as _re
from importlib import metadata as _metadata
from pathlib import Path as _Path

# base: dtypes, errors, logging
from quadrants.base import log as _logging  # qd._logging: upstream's path; Genesis assigns its functions
from quadrants.base.dtypes import (  # noqa: F401
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
from quadrants.base.errors import *  # noqa: F401,F403  every exception class upstream exports at the top level
from quadrants.base.log import CRITICAL, DEBUG, ERROR, INFO, TRACE, WARN, is_logging_effective, set_logging_level  # noqa

# runtime: init/reset, archs, the disk cache, C++ paths, the runtime object
from quadrants.runtime import init as _runtime
from quadrants.runtime import program as _program  # noqa: F401  the runtime object (qd.lang.impl.get_runtime())
from quadrants.runtime.cache import clear_cache  # noqa: F401  empties the disk cache of compiled kernels (not upstream's)
from quadrants.runtime.compiler import install_fallback_compiler as _install_fallback_compiler
from quadrants.runtime.extensions import *  # noqa: F401,F403  upstream's arch names and qd.extension
from quadrants.runtime.init import cpu, cuda, dump_compile_config, gpu, init, reset, sync  # noqa: F401
from quadrants.runtime.paths import get_cmake_dir, get_include  # noqa: F401  for C++ users: headers, find_package
from quadrants.runtime.streams import Event, Stream, create_event, create_stream  # noqa: F401  CUDA; no-ops on CPU

# types: annotations, vector/matrix/struct types, enums
from quadrants.types.annotations import Template  # noqa: F401  upstream's kernels take `x: qd.Template` too
from quadrants.types.annotations import sparse_matrix_builder  # noqa: F401  upstream's top-level alias
from quadrants.types.enums import DeviceCapability, Format, Layout  # noqa: F401  (the first two: Vulkan/Metal names)

# data: values and containers
from quadrants.data.buffer_view import BufferView  # noqa: F401  a view of a sub-range of a 1-D ndarray
from quadrants.data.field import Field, ScalarField  # noqa: F401
from quadrants.data.field_factory import field  # noqa: F401
from quadrants.data.matrix import Matrix, Vector  # noqa: F401
from quadrants.data.matrix_field import MatrixField  # noqa: F401
from quadrants.data.ndarray import MatrixNdarray, Ndarray, ScalarNdarray, VectorNdarray, from_dlpack, ndarray  # noqa
from quadrants.data.fields_builder import FieldsBuilder, SNodeTree  # noqa: F401
from quadrants.data.snode import (  # noqa: F401  SNode layouts: qd.root.dense(qd.ij, 8).pointer(...).place(x)
    SNode,
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
from quadrants.data.snode_activation import deactivate_all_snodes  # noqa: F401  every sparse cell of every tree
from quadrants.data.bitpacked import BitpackedFields  # noqa: F401  quantized fields packed into words
from quadrants.data.tensor import *  # noqa: F401,F403  qd.Backend, qd.Tensor, qd.tensor, qd.wrap

# frontend: the kernel language's built-ins that act on fields, graph kernels, real functions
from quadrants.frontend import graph  # noqa: F401  qd.graph: do_while(), parallel_context() and parallel() sections
from quadrants.frontend.checkpoint import GraphStatus, checkpoint  # noqa: F401  upstream's yield/resume marker
from quadrants.frontend.clock import clock_counter, clock_freq_hz  # noqa: F401
from quadrants.frontend.field_address import get_addr  # noqa: F401  the address of a field element, in kernels
from quadrants.frontend.funcs import RealFunc as _RealFunc
from quadrants.frontend.graph import do_while as graph_do_while  # noqa: F401  upstream's deprecated flat spellings
from quadrants.frontend.graph import parallel as graph_parallel  # noqa: F401  (kernels using them warn)
from quadrants.frontend.graph import parallel_context as graph_parallel_context  # noqa: F401
from quadrants.frontend.rescale_index import rescale_index  # noqa: F401
from quadrants.frontend.funcs import pyfunc  # noqa: F401  a @qd.func that Python scope may call as well
from quadrants.frontend.hints import assume_in_range, cache_read_only  # noqa: F401  optimizer hints: no effect here
from quadrants.frontend.meshes import Mesh, MeshInstance, mesh_local, mesh_patch_idx  # noqa: F401  raise: no meshes
from quadrants.frontend.stream_parallel import stream_parallel  # noqa: F401  `with qd.stream_parallel():` blocks
from quadrants.frontend.no_activate import no_activate  # noqa: F401  a kernel's stores leave these SNodes' cells
from quadrants.frontend.sparse_access import activate, append, deactivate, is_active, length  # noqa: F401

# kernels
from quadrants.kernels.pitfalls import AutogradWarning, PrecisionWarning  # noqa: F401  to filter or catch by name

# the kernel-language library
from quadrants.library.decompositions import polar_decompose, svd  # noqa: F401  2x2 and 3x3, inside kernels
from quadrants.library.eigen_decompositions import eig, make_spd, sym_eig  # noqa: F401  small matrices, in kernels
from quadrants.library.float_parts import frexp  # noqa: F401  (mantissa, exponent) of a float, in kernels
from quadrants.library.linear_solve import solve  # noqa: F401  qd.solve(A, b) inside kernels
from quadrants.library.simt import tile_slices as _tile_slices  # noqa: F401  tile slices in kernels
from quadrants.library.simt.block import global_thread_idx  # noqa: F401  upstream's top-level name for it

# siblings: autodiff, algorithms, linear algebra, torch and C++ interop, array backends
from quadrants import ad, algorithms, linalg, sparse, tools  # noqa: F401
from quadrants.backends import backend_of  # noqa: F401
from quadrants.interop.autograd_op import autograd_op  # noqa: F401
from quadrants.interop.cpp_kernels import cpp_kernel  # noqa: F401
from quadrants.interop import python_backend as _python_backend  # noqa: F401  fills the slot qd.python uses
from quadrants.interop.torch_ops import torch_op  # noqa: F401

# upstream's module paths: qd.lang (the kernel language's names, star-exported here too), qd.math, qd.profiler, ...
from quadrants.lang import *  # noqa: F401,F403  kernel, func, math, atomics, ...
from quadrants.lang import _launch_context_cache, _template_mapper, exception, impl, ops  # noqa: F401
from quadrants import _lib, experimental, math, profiler  # noqa: F401,F811  (_lib: upstream's qd._lib.utils / .core)
from quadrants import types  # noqa: F401,F811  qd.types is the package (qd.lang's star export names it as well)

_install_fallback_compiler()  # ziglang's clang for CPU kernels where the system has no C++ compiler


def real_func(fn):
    """@qd.real_func: a function compiled once per signature and called, not inlined, so it may recurse
    (frontend/real_functions.py)."""
    return _RealFunc(fn)


def _package_version():
    """The version pyproject.toml declares: from the installed metadata, else read from the source tree's pyproject."""
    try:
        return _metadata.version("quadrants")
    except _metadata.PackageNotFoundError:
        pass
    try:  # an uninstalled checkout on sys.path: python/quadrants/ -> the repository root
        text = (_Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
        return _re.search(r'^version\s*=\s*"([^"]+)"', text, _re.M).group(1)
    except (OSError, AttributeError):
        return "0.0.0+unknown"


__version__ = _package_version()


def __getattr__(name):
    # qd.cfg is the current configuration, or None before qd.init() (and after qd.reset()), as upstream.
    if name == "cfg":
        return None if _runtime._config is None else _runtime._config.options
    raise AttributeError(f"module 'quadrants' has no attribute {name!r}")


# dir(qd) lists upstream's public names, so a program (or upstream's test_api.py) that compares the surface with
# upstream's sees the same one. Not listed, and still reachable by attribute and import path:
_FLOORS = frozenset({"backends", "base", "data", "frontend", "kernels", "library", "runtime"})  # our package's floors
# quadrants' own additions (docs/guide.md); paths upstream keeps under qd.lang (impl, ops, exception); and outer,
# which upstream resolves on demand (module __getattr__), so its dir() does not list it either.
_QUADRANTS_ONLY = frozenset({
    "AutogradWarning", "PrecisionWarning", "SNodeTree", "atan", "autograd_op", "backend_of", "clear_cache",
    "cpp_kernel", "exception", "from_dlpack", "get_cmake_dir", "get_include", "impl", "is_arch_supported",
    "is_extension_supported", "ops", "outer", "torch_op",
})


def __dir__():
    return sorted(set(globals()) - _FLOORS - _QUADRANTS_ONLY)
