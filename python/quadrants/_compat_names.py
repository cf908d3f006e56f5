# python/quadrants/_compat_names.py: names that exist only so programs written for upstream Quadrants
# run unchanged. Each maps to something quadrants already has, or stands in for something it does not.
import enum

from . import _runtime
from ._container import ArrayContainer

# --- architectures: upstream's backend names. The host CPU's name is qd.cpu itself; every other
# name is a backend quadrants lacks, so qd.init() falls back to qd.cpu with a warning (a RuntimeError
# under enable_fallback=False), as upstream does for a backend it cannot find.
x64 = _runtime.Arch.by_name.get("x64") or _runtime.Arch("x64")  # the x86-64 CPU: qd.cpu on such a host
x86_64 = x64  # upstream's other name for x64
if "x86_64" not in _runtime.Arch.by_name:
    _runtime.Arch.by_name["x86_64"] = x64
arm64 = _runtime.Arch.by_name.get("arm64") or _runtime.Arch("arm64")  # the ARM CPU: qd.cpu on such a host
amdgpu = _runtime.Arch("amdgpu")  # AMD GPUs (HIP): no backend here
metal = _runtime.Arch("metal")  # Apple GPUs: no backend here
vulkan = _runtime.Arch("vulkan")  # Vulkan compute: no backend here
python = _runtime.Arch("python")  # upstream runs kernels as Python; here they run on the CPU


class Backend(enum.IntEnum):
    """Which container a tensor is stored in: FIELD (qd.field) or NDARRAY (qd.ndarray)."""

    FIELD = 0
    NDARRAY = 1


class Tensor:
    """qd.Tensor: upstream's wrapper around a field or an ndarray, and the annotation of a kernel
    parameter that takes either (what such a parameter accepts is the kernel frontend's to decide).

    Wrapping one of ours gives `_unwrap()`, `shape`, `dtype` and the container's own methods.
    """

    __slots__ = ("_impl",)

    def __init__(self, impl):
        if isinstance(impl, Tensor):
            impl = impl._impl
        if not isinstance(impl, ArrayContainer):
            raise TypeError(f"qd.Tensor(...) wraps a qd.field or qd.ndarray, but got {type(impl).__name__}.")
        self._impl = impl

    def _unwrap(self):
        return self._impl

    @property
    def backend(self):
        from .ndarray import Ndarray

        return Backend.NDARRAY if isinstance(self._impl, Ndarray) else Backend.FIELD

    def __getattr__(self, name):
        if name.startswith("_"):  # private names stay the wrapper's (copy and pickle probe them unset)
            raise AttributeError(name)
        return getattr(self._impl, name)

    def __getitem__(self, key):
        return self._impl[key]

    def __setitem__(self, key, value):
        self._impl[key] = value

    def __repr__(self):
        return f"qd.Tensor({self._impl!r})"


class extension:
    """Upstream's optional features, for qd.is_extension_supported(arch, qd.extension.X)."""

    sparse = "sparse"
    quant = "quant"
    mesh = "mesh"
    quant_basic = "quant_basic"
    data64 = "data64"
    adstack = "adstack"
    bls = "bls"
    assertion = "assertion"
    extfunc = "extfunc"


# What qd.cpu and qd.cuda support: 64-bit data, assertions under qd.init(debug=True), and sparse SNodes
# (pointer, bitmasked, dynamic: snode.py).
_SUPPORTED_EXTENSIONS = {extension.data64, extension.assertion, extension.sparse}


def is_extension_supported(arch, ext):
    """Whether quadrants supports extension `ext` on `arch` (nothing on the backends it lacks)."""
    if ext not in vars(extension).values():
        raise ValueError(f"is_extension_supported() expects a qd.extension member, but got {ext!r}.")
    return arch in (_runtime.cpu, _runtime.cuda, _runtime.gpu) and ext in _SUPPORTED_EXTENSIONS


def is_arch_supported(arch):
    """Whether qd.init(arch=arch) would run on that arch here, without falling back."""
    return _runtime._is_available(arch)


def real_func(fn):
    """Upstream's @qd.real_func: a function compiled once and called, not inlined. Here it is inlined like
    @qd.func, which computes the same results; what only a call allows (recursion) is a compile error."""
    from .lang.kernels import func  # lazily: the kernel language imports this module's package

    return func(fn)


# The class of qd.template(); upstream's kernels take `x: qd.Template` as well as `x: qd.template()`.
from .lang.types import Template  # noqa: E402

__all__ = ["x64", "x86_64", "arm64", "amdgpu", "metal", "vulkan", "python", "Backend", "Tensor", "extension",
           "is_extension_supported", "is_arch_supported", "real_func", "Template"]
