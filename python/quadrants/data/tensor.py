# python/quadrants/_compat_names.py: names that exist only so programs written for upstream Quadrants
# run unchanged. Each maps to something quadrants already has, or stands in for something it does not.
import enum

from quadrants.runtime import _core, init as _runtime
from quadrants.data.container import ArrayContainer

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

    __slots__ = ("_impl", "_grad", "_dual")

    def __init__(self, impl):
        if isinstance(impl, Tensor):  # as upstream: a wrapper of a wrapper would confuse identity
            raise TypeError("qd.Tensor(...) requires a qd.field or qd.ndarray, but got a qd.Tensor, which is wrapped "
                            "already; pass it as it is, or its ._unwrap().")
        if not isinstance(impl, ArrayContainer):
            raise TypeError(f"qd.Tensor(...) requires a qd.field or qd.ndarray, but got {type(impl).__name__}.")
        self._impl = impl
        self._grad = self._dual = None

    def _unwrap(self):
        return self._impl

    @property
    def backend(self):
        from quadrants.data.ndarray import Ndarray

        return Backend.NDARRAY if isinstance(self._impl, Ndarray) else Backend.FIELD

    def __getattr__(self, name):
        if name.startswith("_"):  # private names stay the wrapper's (copy and pickle probe them unset)
            raise AttributeError(name)
        return getattr(self._impl, name)

    def __getitem__(self, key):
        return self._impl[key]

    def __setitem__(self, key, value):
        self._impl[key] = value

    @property
    def grad(self):
        """The gradient container, wrapped like this one (the same wrapper on every access)."""
        if self._grad is None:
            self._grad = wrap(self._impl.grad)
        return self._grad

    @property
    def dual(self):
        """The dual (forward-mode) container, wrapped like this one (the same wrapper on every access)."""
        if self._dual is None:
            self._dual = wrap(self._impl.dual)
        return self._dual

    @property
    def layout(self):
        """The axis permutation given to qd.tensor(layout=...), None for the natural order (see tensor())."""
        return getattr(self._impl, "_qd_layout", None)

    def __repr__(self):
        layout = "" if self.layout is None else f", layout={self.layout}"
        return (f"qd.{type(self).__name__}(backend={self.backend.name}, shape={tuple(self._impl.shape)}, "
                f"dtype={self._impl.dtype}{layout})")


class _ElementTensor(Tensor):
    """A qd.Tensor whose elements are vectors (_element_ndim 1) or matrices (2)."""

    __slots__ = ()
    _element_ndim = 0

    def __init__(self, impl):
        super().__init__(impl)
        if len(getattr(self._impl, "_element_shape", ())) != self._element_ndim:
            raise TypeError(f"qd.{type(self).__name__}(...) wraps a container of "
                            f"{'vectors' if self._element_ndim == 1 else 'matrices'}, but got {self._impl!r}.")

    @property
    def element_shape(self):
        return self._impl._element_shape


class VectorTensor(_ElementTensor):
    """qd.VectorTensor: a qd.Tensor whose elements are vectors, as qd.Vector.tensor() returns."""

    __slots__ = ()
    _element_ndim = 1


class MatrixTensor(_ElementTensor):
    """qd.MatrixTensor: a qd.Tensor whose elements are matrices, as qd.Matrix.tensor() returns."""

    __slots__ = ()
    _element_ndim = 2


_core.register_tensor_wrapper_type(Tensor)  # kernels take a qd.Tensor as the field or ndarray it wraps


class SNodeHandle:
    """x.snode.ptr: upstream's handle of the C++ SNode; answers the autodiff queries upstream programs make
    about the field a place node holds."""

    def __init__(self, node):
        self._node = node

    def _twin(self, attr):
        field = self._node._field
        twin = getattr(field, attr, None)
        return twin is not None and twin._place_node is not None

    def has_adjoint(self):
        return self._twin("grad")

    def has_dual(self):
        return self._twin("dual")

    def has_adjoint_checkbit(self):
        """Whether the field has the read marks of qd.ad.Tape(validation=True) (quadrants/ad/_validation.py),
        made the first time such a Tape checks a kernel that uses it."""
        return getattr(self._node._field, "_qd_read_marks", None) is not None

    def get_snode_grad_type(self):
        from quadrants.types.enums import SNodeGradType

        field = self._node._field
        if getattr(field, "_grad_of", None) is not None:
            return SNodeGradType.ADJOINT
        if getattr(field, "_dual_of", None) is not None:
            return SNodeGradType.DUAL
        return SNodeGradType.PRIMAL


def wrap(impl):
    """qd.wrap: a field or ndarray in the most specific of Tensor, VectorTensor and MatrixTensor."""
    element_ndim = len(getattr(impl, "_element_shape", ()))
    return (Tensor, VectorTensor, MatrixTensor)[element_ndim](impl) if element_ndim <= 2 else Tensor(impl)


def tensor(dtype, shape, *, backend=Backend.NDARRAY, layout=None, **kwargs):
    """qd.tensor: a qd.field (backend=qd.Backend.FIELD) or qd.ndarray (NDARRAY, the default), wrapped in qd.Tensor.

    layout= lists the canonical axes from outermost to innermost in memory, a permutation of range(ndim). Kernels
    and copies index the canonical shape either way; the memory is in that order: a field is qd.field(order=), an
    ndarray a row-major allocation of the permuted shape seen through a permuted view (ndarray_layout.py).
    """
    from quadrants.types.annotations import VectorType

    if isinstance(dtype, (ArrayContainer, Tensor)):
        raise TypeError(f"qd.tensor() allocates a new tensor; to wrap an existing {type(dtype).__name__}, use "
                        "qd.wrap(impl) instead")
    if layout is not None and isinstance(dtype, VectorType):
        raise TypeError("layout= is not supported with compound dtypes (vector/matrix). Use qd.Vector.tensor(...) or "
                        "qd.Matrix.tensor(...) without layout= instead.")
    _check_tensor_kwargs("qd.tensor", kwargs, ("needs_grad", "layout"))
    shape_tuple = (shape,) if isinstance(shape, int) else tuple(shape)
    if layout is not None:
        from quadrants.data.ndarray_layout import checked_layout

        layout = checked_layout(layout, len(shape_tuple))
    from quadrants.data.field import field
    from quadrants.data.ndarray import ndarray

    permuted = layout is not None and layout != tuple(range(len(layout)))
    if _backend_of(backend) is Backend.FIELD:
        from quadrants.data.field_order import order_string

        impl = field(dtype, shape, order=order_string(layout) if permuted else None, **kwargs)
    elif permuted:
        from quadrants.data.ndarray_layout import make_in_layout

        impl = make_in_layout(dtype, shape_tuple, (), layout, kwargs.get("needs_grad", False))
    else:
        impl = ndarray(dtype, shape, **kwargs)
    return wrap(impl)


def vector_tensor(n, dtype, shape, *, backend=Backend.NDARRAY, **kwargs):
    """qd.Vector.tensor: qd.Vector.field or qd.Vector.ndarray by backend=, wrapped in qd.VectorTensor."""
    from quadrants.data.matrix import Vector

    _check_tensor_kwargs("qd.Vector.tensor", kwargs, ("needs_grad",))
    make = Vector.field if _backend_of(backend) is Backend.FIELD else Vector.ndarray
    return VectorTensor(make(n, dtype, shape, **kwargs))


def matrix_tensor(n, m, dtype, shape, *, backend=Backend.NDARRAY, **kwargs):
    """qd.Matrix.tensor: qd.Matrix.field or qd.Matrix.ndarray by backend=, wrapped in qd.MatrixTensor."""
    from quadrants.data.matrix import Matrix

    _check_tensor_kwargs("qd.Matrix.tensor", kwargs, ("needs_grad",))
    make = Matrix.field if _backend_of(backend) is Backend.FIELD else Matrix.ndarray
    return MatrixTensor(make(n, m, dtype, shape, **kwargs))


def _backend_of(backend):
    try:
        return Backend(backend)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"backend={backend!r} is not a valid qd.Backend; expected one of qd.Backend.FIELD, "
                         "qd.Backend.NDARRAY") from exc


def _check_tensor_kwargs(factory, kwargs, accepted):
    """Upstream's tensor factories take only these options; the others belong to qd.field/qd.ndarray."""
    if "order" in kwargs:
        hint = ("pass layout=(...) instead" if "layout" in accepted else
                "layout= is not supported for vector/matrix tensors either; use the underlying qd.Vector.field / "
                "qd.Matrix.field for non-default storage order")
        raise TypeError(f"{factory}(...) does not accept order=; {hint}")
    extra = sorted(set(kwargs) - set(accepted))
    if extra:
        raise TypeError(f"{factory}() got unexpected keyword argument(s) {extra!r}; accepted: "
                        f"{', '.join(sorted(set(accepted) | {'backend', 'dtype', 'shape'}))}")


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
_SUPPORTED_EXTENSIONS = {extension.data64, extension.assertion, extension.sparse, extension.adstack}


def is_extension_supported(arch, ext):
    """Whether quadrants supports extension `ext` on `arch` (nothing on the backends it lacks)."""
    if ext not in vars(extension).values():
        raise ValueError(f"is_extension_supported() expects a qd.extension member, but got {ext!r}.")
    return arch in (_runtime.cpu, _runtime.cuda, _runtime.gpu) and ext in _SUPPORTED_EXTENSIONS


def is_extension_enabled(ext):
    """Whether extension `ext` is on for the current arch (qd.init's; our AD stacks are always on)."""
    return is_extension_supported(_runtime.config().arch, ext)


def is_arch_supported(arch):
    """Whether qd.init(arch=arch) would run on that arch here, without falling back."""
    return _runtime._is_available(arch)


def real_func(fn):
    """Upstream's @qd.real_func: a function compiled once per signature and called, not inlined, so it may
    recurse (python/quadrants/lang/real_functions.py)."""
    from quadrants.kernels.kernel import RealFunc  # lazily: the kernel language imports this module's package

    return RealFunc(fn)


# The class of qd.template(); upstream's kernels take `x: qd.Template` as well as `x: qd.template()`.
from quadrants.types.annotations import Template  # noqa: E402

__all__ = ["x64", "x86_64", "arm64", "amdgpu", "metal", "vulkan", "python", "Backend", "Tensor", "VectorTensor",
           "MatrixTensor", "wrap", "tensor", "extension", "is_extension_supported", "is_extension_enabled",
           "is_arch_supported", "real_func",
           "Template"]
