# python/quadrants/lang/_template_mapper_hotpath.py: upstream's module path of `_extract_arg`, the features of one
# kernel argument that tell its specializations apart, for compatibility only.
#
# Upstream computes these on every launch to pick a compiled kernel. Ours are picked elsewhere (the C++ launcher's
# argument spec and kernels/dispatch.py's template key); TemplateMapper (_template_mapper.py) computes these
# features only when a kernel compiles, to show upstream's view of the kernel's specializations. Nested dataclass
# members are extracted through this module's global `_extract_arg`, as upstream's, so a program that patches it
# sees every member extracted.
import weakref

from quadrants.data.buffer_view import BufferView
from quadrants.data.ndarray import Ndarray
from quadrants.data.snode import SNode
from quadrants.data.tensor import Tensor, unwrap
from quadrants.frontend.compound_params import dataclass_schema, is_dataclass_type, member_annotation
from quadrants.frontend.data_oriented import is_data_oriented
from quadrants.frontend.tensor_params import ARRAY, slot_value
from quadrants.types.annotations import NdarrayType, Template
from quadrants.types.buffer_view_type import BufferViewType

# The first feature of a qd.Tensor slot's features: which kind of value the slot held.
_TENSOR_T_NDARRAY_MARKER = "__qd_tensor_ndarray__"
_TENSOR_T_FIELD_MARKER = "__qd_tensor_field__"
_DEFAULT_NDARRAY = NdarrayType()

# Template values: numbers and strings are keyed by value; other objects (fields, data_oriented instances, mutable
# containers) by identity through a weak reference (_Identity), so a record never keeps a field alive. Upstream
# keys fields by the object itself and containers by a weak reference.
_BY_VALUE = frozenset({int, float, bool, str, bytes, complex, type(None)})
_BY_WEAK_REFERENCE = (list, dict, set)


class _Identity:
    """A key part naming an object by identity without keeping it alive: equal only for the same live object."""

    __slots__ = ("_ref", "_id")

    def __init__(self, obj):
        try:
            self._ref = weakref.ref(obj)
        except TypeError:  # lists, dicts: no weak references; the id alone (upstream cannot key these at all)
            self._ref = None
        self._id = id(obj)

    def __eq__(self, other):
        return type(other) is _Identity and other._id == self._id and \
            (self._ref is None or self._ref() is not None and self._ref() is other._ref())

    def __hash__(self):
        return self._id

    def __call__(self):
        """The object, or None once it is gone (as a weakref.ref answers)."""
        return self._ref() if self._ref is not None else None


def _array_features(arg, annotation):
    """(element type, ndim, needs_grad, boundary, layout) of an ndarray or external array argument."""
    needs_grad = getattr(annotation, "needs_grad", None)
    boundary = getattr(annotation, "boundary", "unsafe")
    if isinstance(arg, Ndarray):
        if needs_grad is None:
            needs_grad = arg.grad is not None
        return arg.element_type, len(arg.shape), needs_grad, boundary, arg._qd_layout
    if needs_grad is None:
        needs_grad = bool(getattr(arg, "requires_grad", False))
    shape = tuple(getattr(arg, "shape", ()))
    return _dtype_text(getattr(arg, "dtype", type(arg).__name__)), len(shape), needs_grad, boundary, None


_numpy_dtype_texts = {}  # numpy dtype -> str(dtype): numpy's __str__ runs Python code, once per dtype here


def _dtype_text(dtype):
    """str(dtype); for a numpy dtype without fields (whose equal dtypes print alike), remembered per dtype."""
    if type(dtype).__module__ != "numpy.dtypes" or dtype.fields is not None:
        return str(dtype)
    found = _numpy_dtype_texts.get(dtype)
    if found is None:
        found = _numpy_dtype_texts[dtype] = str(dtype)
    return found


def _template_features(raise_on_templated_floats, arg, annotation, arg_name):
    if isinstance(arg, SNode):
        return id(arg)
    if isinstance(arg, tuple):
        return tuple(_extract_arg(raise_on_templated_floats, item, annotation, arg_name) for item in arg)
    if raise_on_templated_floats and type(arg) is float:
        raise ValueError("Floats not allowed as templated types.")
    if type(arg) in _BY_VALUE:
        return arg
    identity = _Identity(arg)
    if identity._ref is None and type(arg).__hash__ is not None and type(arg) not in _BY_WEAK_REFERENCE:
        return arg  # hashable, without weak references (an enum member, a __slots__ value): small, kept as is
    return identity


def _extract_arg(raise_on_templated_floats, arg, annotation, arg_name):
    """The features of argument `arg_name`: equal for two arguments that share a specialization of the kernel."""
    if isinstance(arg, Tensor):
        arg = unwrap(arg)
    if annotation is Tensor:
        if slot_value(arg) is ARRAY:
            return (_TENSOR_T_NDARRAY_MARKER,) + _array_features(arg, _DEFAULT_NDARRAY)
        return (_TENSOR_T_FIELD_MARKER, _template_features(raise_on_templated_floats, arg, annotation, arg_name))
    if annotation is Template or isinstance(annotation, Template):
        return _template_features(raise_on_templated_floats, arg, annotation, arg_name)
    if isinstance(annotation, BufferViewType) or annotation is BufferView:
        array = getattr(arg, "arr", arg)  # a BufferView, or its members as a launcher got them
        return array.element_type, 1, False, getattr(annotation, "boundary", "unsafe")
    if isinstance(annotation, NdarrayType) or annotation is NdarrayType:
        return _array_features(arg, annotation)
    if is_dataclass_type(annotation):
        # A member the kernel never reads is absent from what a launcher was given (TemplateMapper.record_flat): it
        # selects nothing, so it has no features.
        return tuple(_extract_arg(raise_on_templated_floats, getattr(arg, m.name), _member_annotation(m),
                                  f"{arg_name}.{m.name}") if hasattr(arg, m.name) else "#"
                     for m in dataclass_schema(annotation).members.values())
    return "#"  # scalars and vectors by value: one specialization for every value


def _member_annotation(member):
    """A dataclass member's annotation in the spelling _extract_arg reads (a bare Field class is a template...)."""
    if member.kind == "template":
        return Template
    if member.kind == "tensor":
        return Tensor
    if member.kind == "struct":
        return member.schema.cls
    return member_annotation(member)
