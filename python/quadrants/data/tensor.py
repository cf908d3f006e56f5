# python/quadrants/data/tensor.py: qd.Tensor, upstream's wrapper around a field or an ndarray, and qd.tensor(), which
# makes one of either kind (backend=).
import enum

from quadrants.base import registry
from quadrants.data.container import ArrayContainer
from quadrants.data.field_factory import field
from quadrants.data.field_order import order_string
from quadrants.data.matrix import Matrix, Vector
from quadrants.data.ndarray import make_in_layout, ndarray
from quadrants.data.ndarray_layout import checked_layout
from quadrants.runtime import _core
from quadrants.types.annotations import VectorType


class Backend(enum.IntEnum):
    """Which container a tensor is stored in: FIELD (qd.field) or NDARRAY (qd.ndarray)."""

    FIELD = 0
    NDARRAY = 1


class Tensor:
    """qd.Tensor: upstream's wrapper around a field or an ndarray, and the annotation of a kernel
    parameter that takes either (what such a parameter accepts is the kernel frontend's to decide).

    Wrapping one of ours gives `_unwrap()`, `shape`, `dtype` and the container's own methods.
    """

    # The C++ launcher reads `_impl` at its slot's offset (src/bindings/arg_adapters.cpp): no subclass redefines it.
    __slots__ = ("_impl", "_grad", "_dual")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_impl" in cls.__dict__:
            raise TypeError(f"{cls.__name__} redefines _impl, which kernels read from qd.Tensor's slot.")

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
        return Backend.NDARRAY if self._impl._kind == "ndarray" else Backend.FIELD

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
        """The gradient container, wrapped like this one (the same wrapper on every access); None while the
        container has none (no needs_grad), as upstream's."""
        if self._grad is None and self._impl.grad is not None:
            self._grad = wrap(self._impl.grad)
        return self._grad

    @property
    def dual(self):
        """The dual (forward-mode) container, wrapped like this one (the same wrapper on every access); None while
        the container has none."""
        if self._dual is None and self._impl.dual is not None:
            self._dual = wrap(self._impl.dual)
        return self._dual

    @property
    def layout(self):
        """The axis permutation given to qd.tensor(layout=...), None for the natural order (see tensor())."""
        return getattr(self._impl, "_qd_layout", None)

    def __repr__(self):
        layout = "" if self.layout is None else f", layout={self.layout}"
        shape = self._impl.shape  # None for a field not placed yet (a float field's .grad without needs_grad)
        shape = shape if shape is None else tuple(shape)
        return (f"qd.{type(self).__name__}(backend={self.backend.name}, shape={shape}, "
                f"dtype={self._impl.dtype!r}{layout})")


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
    if isinstance(dtype, (ArrayContainer, Tensor)):
        raise TypeError(f"qd.tensor() allocates a new tensor; to wrap an existing {type(dtype).__name__}, use "
                        "qd.wrap(impl) instead")
    if layout is not None and isinstance(dtype, VectorType):
        raise TypeError("layout= is not supported with compound dtypes (vector/matrix). Use qd.Vector.tensor(...) or "
                        "qd.Matrix.tensor(...) without layout= instead.")
    _check_tensor_kwargs("qd.tensor", kwargs, ("needs_grad", "layout"))
    shape_tuple = (shape,) if isinstance(shape, int) else tuple(shape)
    if layout is not None:
        layout = checked_layout(layout, len(shape_tuple))

    permuted = layout is not None and layout != tuple(range(len(layout)))
    if _backend_of(backend) is Backend.FIELD:
        impl = field(dtype, shape, order=order_string(layout) if permuted else None, **kwargs)
    elif permuted:
        impl = make_in_layout(dtype, shape_tuple, (), layout, kwargs.get("needs_grad", False))
    else:
        impl = ndarray(dtype, shape, **kwargs)
    return wrap(impl)


def vector_tensor(n, dtype, shape, *, backend=Backend.NDARRAY, **kwargs):
    """qd.Vector.tensor: qd.Vector.field or qd.Vector.ndarray by backend=, wrapped in qd.VectorTensor."""
    _check_tensor_kwargs("qd.Vector.tensor", kwargs, ("needs_grad",))
    make = Vector.field if _backend_of(backend) is Backend.FIELD else Vector.ndarray
    return VectorTensor(make(n, dtype, shape, **kwargs))


def matrix_tensor(n, m, dtype, shape, *, backend=Backend.NDARRAY, **kwargs):
    """qd.Matrix.tensor: qd.Matrix.field or qd.Matrix.ndarray by backend=, wrapped in qd.MatrixTensor."""
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


def is_tensor_annotation(annotation):
    """Whether a parameter annotation is qd.Tensor (or one of its element kinds)."""
    return isinstance(annotation, type) and issubclass(annotation, Tensor)


_WRAPPERS = (Tensor, VectorTensor, MatrixTensor)


def unwrap(value):
    """The field or ndarray inside a qd.Tensor wrapper; any other value as it is."""
    return value._impl if type(value) in _WRAPPERS or isinstance(value, Tensor) else value


registry.provide("vector_tensor", vector_tensor)  # qd.Vector.tensor (matrix.py)
registry.provide("matrix_tensor", matrix_tensor)

__all__ = ["Backend", "Tensor", "VectorTensor", "MatrixTensor", "wrap", "tensor"]
