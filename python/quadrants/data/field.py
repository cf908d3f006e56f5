# python/quadrants/data/field.py: fields: what every field is (Field), and scalar fields.
#
# A field is placed in an SNode tree (snode.py): qd.field(dtype, shape) places it in a dense node of
# qd.root at once; qd.field(dtype) waits for `node.place(x)`. Until its tree is finalized a field has no
# storage, and every use says why. A field with an offset or sparse ancestors has a FieldLayout
# (field_layout.py) that shifts indices and keeps cells' activity; plain dense fields have none. Memory order
# (order=, layout=qd.Layout.SOA, a column-major SNode path) is decided when the array is made (field_order.py).
import numbers

import numpy as np

from quadrants.base import dtypes as _dtypes, registry
from quadrants.base.errors import QuadrantsRuntimeError, QuadrantsSyntaxError
from quadrants.data import field_checks
from quadrants.data.container import ArrayContainer, _encode, positive_shape
from quadrants.data.element_ref import element_ref
from quadrants.data.field_layout import FieldLayout
from quadrants.data.field_order import allocate, memory_order, order_string, parse_order
from quadrants.data.grads import dual_twin, grad_twin
from quadrants.data.snode import field_node_for_shape
from quadrants.runtime import init as _runtime
from quadrants.types.enums import Layout

_OPTIONS = {"name", "needs_grad", "order", "layout", "offset", "needs_dual", "ndim"}


def _check_field_options(kwargs, shape):
    """(offset, order) after checking every option as upstream does: the offset a tuple or None, the order the outer
    axes outermost in memory first (field_order.py), or None for row-major."""
    unknown = set(kwargs) - _OPTIONS
    if unknown:
        raise TypeError(f"qd.field() got unexpected keyword argument(s): {', '.join(sorted(unknown))}.")
    layout = kwargs.get("layout")
    if layout is not None:
        if layout not in (Layout.AOS, Layout.SOA, Layout.NULL):
            raise ValueError(f"layout= expects qd.Layout.AOS or qd.Layout.SOA, but got {layout!r}.")
    offset, order = kwargs.get("offset"), kwargs.get("order")
    if shape is None:
        if offset is not None:
            raise QuadrantsSyntaxError("shape cannot be None when offset is set")
        if order is not None:
            raise QuadrantsSyntaxError("shape cannot be None when order is set")
        return None, None
    ndim = 1 if isinstance(shape, numbers.Integral) else len(tuple(shape))
    if order is not None:
        order = parse_order(order, ndim)
        order = None if order == tuple(range(ndim)) else order
    if offset is None:
        return None, order
    offset = (offset,) if isinstance(offset, numbers.Integral) else tuple(offset)
    if len(offset) != ndim:
        raise QuadrantsSyntaxError(f"The dimensionality of shape and offset must be the same ({ndim} != "
                                   f"{len(offset)})")
    return offset, order


class NoStorage:
    """The `_array` of a field without storage (not placed, tree not finalized, or destroyed):
    every use raises a QuadrantsRuntimeError that says why."""

    def __init__(self, message):
        self.message = message

    def __getattr__(self, name):
        raise QuadrantsRuntimeError(self.message)


def _no_allocation(primal, attr):
    """The error of using the .grad/.dual of a field that has none placed (upstream's words: 'no allocation')."""
    asked = "needs_grad=True" if attr == "grad" else "needs_dual=True"
    lazy = "qd.root.lazy_grad()" if attr == "grad" else "qd.root.lazy_dual()"
    return (f"The {attr} of {primal._describe()} has no allocation: create the field with qd.field(..., {asked}), "
            f"or place it before reading or writing it ({lazy}, or node.place(x.{attr})).")


class Field(ArrayContainer):
    """A global array that kernels use directly (no argument needed); scalar elements."""

    _kind = "field"
    _layout = None  # a FieldLayout for offsets and sparse ancestors; None for a plain dense field
    _place_node = None  # the SNode of type place that holds this field
    _follows_primal = True  # a twin placed beside its primal when that is placed (False: placed by the program)
    _quant_type = None  # a qd.types.quant type: the field's bits live in a word field (data/bitpacked.py)
    _quant = None  # ... and once placed, its QuantBinding, through which Python scope reads and writes them

    def __init__(self, dtype, shape, element_shape=(), _twin=False, **kwargs):
        offset, order = _check_field_options(kwargs, shape)
        self.name = kwargs.get("name")
        _runtime.config()  # initializes with defaults if qd.init() was not called
        if getattr(dtype, "_qd_quant", False):  # a quantized type: values are its compute dtype's
            self._quant_type, dtype = dtype, dtype.compute
        self._dtype = _runtime.cook_dtype(dtype)
        self._element_shape = tuple(element_shape)
        self._describe_elements()
        self._shape = None
        self.grad = None  # the gradient field of needs_grad=True (quadrants/ad), placed beside this one
        self.dual = None  # the dual field of needs_dual=True (forward mode, quadrants/ad), placed beside this one
        self._array = NoStorage(f"{self._describe()} is not placed: give qd.field() a shape, or place it first, e.g. "
                                "qd.root.dense(qd.i, n).place(x).")
        self._set_memory_order(order, kwargs.get("layout"), shape is not None)
        if not _twin:  # a gradient or dual has none of its own
            if shape is None:
                field_checks.declared(self)
            self._make_twins(kwargs.get("needs_grad"), kwargs.get("needs_dual"), shape is None)
        if shape is not None:
            shape = positive_shape(shape, "qd.field()")
            field_node_for_shape(shape).place(self, offset=offset)

    @property
    def dtype(self):
        """The scalar dtype of the field's entries."""
        return self._dtype

    def _entry_fields(self):
        """The fields placing this one places instead of it (matrix_field.py), or None: it is placed itself."""
        return None

    def has_grad(self):
        """Whether this field has a gradient field that is placed (needs_grad=True, qd.root.lazy_grad(), or
        placed by the program)."""
        return self.grad is not None and self.grad._is_placed()

    def has_dual(self):
        """Whether this field has a dual field that is placed (needs_dual=True, qd.root.lazy_dual(), or placed by
        the program)."""
        return self.dual is not None and self.dual._is_placed()

    def _set_memory_order(self, order, layout, has_shape):
        """order= and layout= (field_order.py reads them when the array is allocated). As upstream, SOA applies
        to a field made with a shape: one placed later by the program is laid out by its SNodes."""
        if order is not None:
            self._qd_layout = order  # upstream's attribute name, which qd.Tensor and pickling read too
        if layout == Layout.SOA and has_shape and self._element_shape:
            self._soa = True

    def _make_twins(self, needs_grad, needs_dual, shapeless):
        """.grad/.dual: asked for on a field made with a shape, they are placed beside it. A float field has both
        in any case, as upstream; those not asked for (or of a field made without a shape) stay unplaced until
        `place(x, x.grad)` or `qd.root.lazy_grad()` puts them where the program wants them. Using an unplaced one
        raises that it has no allocation, and one asked for must be placed before a kernel compiles
        (field_checks.py)."""
        for attr, wanted, twin in (("grad", needs_grad, grad_twin), ("dual", needs_dual, dual_twin)):
            if not wanted and self.dtype.numpy.kind != "f":
                continue
            name = f"{self.name}.{attr}" if self.name else None
            made = twin(self, lambda n=name: type(self)(self.dtype, None, self._element_shape, _twin=True, name=n), bool(wanted))
            if made is not None:
                made._follows_primal = bool(wanted) and not shapeless
                if not wanted:
                    made._array = NoStorage(_no_allocation(self, attr))
                if wanted and shapeless:
                    field_checks.twin_needed(attr, made, self)
                if getattr(self, "_qd_layout", None) is not None:  # laid out as the primal (field_order.py)
                    made._qd_layout = self._qd_layout
                setattr(self, attr, made)

    def _describe(self):
        return f"field '{self.name}'" if self.name else f"a qd.field({(self._quant_type or self.dtype).name})"

    def __reduce__(self):
        """pickle: a new dense field of the same dtype, shape, element shape, name and offset holding a copy of the
        elements (and of the gradient); its memory order (order=, layout=) goes along. The SNode tree is not
        pickled, so a field under pointer, bitmasked or dynamic nodes, whose activity would be lost, is refused."""
        if self.shape is None or isinstance(self._array, NoStorage):
            raise TypeError(f"Cannot pickle {self._describe()}: it has no storage (not placed, or not finalized).")
        if self._layout is not None and self._place_node._activity_path():
            raise TypeError(f"Cannot pickle {self._describe()}: it lives under pointer, bitmasked or dynamic SNodes, "
                            "whose activity a pickle would not keep; pickle x.to_numpy() instead.")
        offset = self._layout.offset if self._layout is not None else None
        grad = self.grad.to_numpy() if self.has_grad() else None
        return _unpickle_field, (self._pickle_class(), self.dtype, self.shape, self._element_shape, self.name, offset,
                                 self.to_numpy(), grad, getattr(self, "_qd_layout", None), getattr(self, "_soa", False))

    def _pickle_class(self):
        """The class a pickled copy is made as (component fields come back as plain scalar fields)."""
        return ScalarField

    def _is_placed(self):
        """Whether the field has an SNode (field_checks.py asks before a kernel compiles)."""
        return self._place_node is not None

    # ---- placement and storage (snode.py) -------------------------------------------------------
    def _place(self, node, offset):
        self._place_node = node
        self._shape = node.shape
        if offset is not None or node._activity_path():
            self._layout = FieldLayout(self, node, offset)
        if node._tree.finalized:
            self._allocate()
        else:
            self._array = NoStorage(f"{self._describe()} was placed in a qd.FieldsBuilder that is not finalized yet; "
                                    "call fb.finalize() before using it.")
        for attr in ("grad", "dual"):  # asked for with a shape: each in a dense node of its own, as upstream
            twin = getattr(self, attr)
            if twin is not None and twin._place_node is None and twin._follows_primal:
                field_node_for_shape(self.shape, attr)._place_field(twin, offset)
                twin._placed_with_primal = True  # so upstream's explicit place(x, x.grad) is no error (snode.py)

    def _allocate(self):
        if self._quant is not None:  # no array of its own: its bits are in its word field
            self._array = self._quant
            return
        layout = self._layout
        array = None
        dense = not self._place_node._activity_path()  # sparse ancestors keep page-granular storage
        if layout is None or layout.pool is None:  # a pool's chunks have a layout of their own (field_layout.py)
            order = memory_order(self)
            if order is not None:
                array = allocate(self.dtype, self.shape, self._element_shape, order, dense)
        storage = layout.storage_shape() if layout is not None else self.shape
        self._allocate_array(storage, _array=array, _huge_pages=dense)
        self._shape = self._place_node.shape  # a pooled field's array has another shape (field_layout.py)

    @property
    def _pooled(self):
        return self._layout is not None and self._layout.pool is not None

    def _free(self, reason):
        if not isinstance(self._array, NoStorage):
            self._array.release()
        self._array = NoStorage(f"{self._describe()} has no storage any more: {reason}.")

    def _release(self):
        if not isinstance(self._array, NoStorage):
            self._array.release()

    def _zero_storage(self):
        """Zeroes the elements of active cells (deactivate_all), touching no page that holds none."""
        if self._quant is not None:
            return  # its word field is zeroed
        if self._pooled:
            self._layout.zero_used_chunks()
        elif self._layout is not None and self._array.device[0] == 1:  # the CPU: calloc'ed pages stay unmapped
            self._layout.zero_active()
        else:
            self._array.fill(0)

    @property
    def snode(self):
        """The SNode (of type place) that holds this field; parent() is the node it was placed in."""
        if self._place_node is None:
            raise QuadrantsRuntimeError(f"{self._describe()} is not placed yet, so it has no SNode.")
        return self._place_node

    _snode = snode  # upstream's private name, which its tests and tools read

    def parent(self, n=1):
        """The n-th ancestor of the field's SNode: x.parent() is the node x was placed in."""
        return self.snode.parent(n)

    @property
    def layout(self):
        """order= as upstream reports it: the outer axes from outermost in memory, e.g. (1, 0) for order='ji';
        None for row-major (field_order.py)."""
        return getattr(self, "_qd_layout", None)

    @property
    def _name(self):
        return self.name or ""

    # ---- Python-scope access with offsets and activity ----------------------------------------------
    def _check_storage(self):
        if isinstance(self._array, NoStorage):
            raise QuadrantsRuntimeError(self._array.message)

    @property
    def _numpy_shape(self):
        self._check_storage()
        return self.shape + self._element_shape

    def _index(self, key):
        self._check_storage()
        index = ArrayContainer._index(self, key)
        layout = self._layout
        if layout is not None and layout.offset is not None:
            for d, shift in enumerate(layout.offset):
                index[d] -= shift
        return index

    def __getitem__(self, key):
        if self._quant is not None:
            return self._quant.get(self._index(key))
        layout = self._layout
        if layout is None:
            return ArrayContainer.__getitem__(self, key)
        index = self._index(key)
        if len(index) == len(self.shape) and self._element_shape:
            return element_ref(_ThroughLayout(self), index)  # reads and writes go through the layout
        return layout.get(index)

    def __setitem__(self, key, value):
        if self._quant is not None:
            self._quant.set(self._index(key), value)
            return
        layout = self._layout
        if layout is None:
            ArrayContainer.__setitem__(self, key, value)
            return
        index = self._index(key)
        if len(index) == len(self.shape) and self._element_shape:
            values = self._element_values(value)
            for e in np.ndindex(*self._element_shape):
                layout.set(index + list(e), values[e].item())
            return
        layout.set(index, value)

    def fill(self, value):
        """Sets every element (of a sparse field: every element of its active cells) to value."""
        self._check_storage()
        if self._quant is not None:
            self._quant.fill(value)
            return
        if self._pooled:
            scalar = np.ndim(value) == 0 and not hasattr(value, "to_numpy")
            self._layout.fill_active(value if scalar else _encode(self._element_values(value), self.dtype, "fill()"))
            return
        ArrayContainer.fill(self, value)
        if self._layout is not None:
            self._layout.clear_inactive()

    def to_numpy(self, dtype=None, keep_dims=False, *, copy=True):
        """Returns a new numpy array with the contents; inactive cells of sparse fields read 0. copy=False/None:
        as ArrayContainer.to_numpy (a pooled sparse field has no view to share)."""
        if self._quant is not None:
            self._check_storage()
            if copy is False:
                raise ValueError(f"to_numpy(copy=False): Zero-copy not available for {self._describe()}: its values "
                                 "are packed bits of a quantized type.")
            return self._quant.to_numpy(None if dtype is None else _dtypes.to_dtype(dtype).numpy)
        if not self._pooled:
            return ArrayContainer._to_numpy(self, dtype, keep_dims, copy=copy)
        if copy is False:
            raise ValueError(f"to_numpy(copy=False): Zero-copy not available for {self._describe()}: its cells are "
                             "pooled.")
        data = self._layout.gather()
        return data.astype(self.dtype.numpy if dtype is None else _dtypes.to_dtype(dtype).numpy).reshape(
            self._export_shape(keep_dims))

    def to_torch(self, device=None, keep_dims=False, *, copy=True):
        """Returns a new torch tensor with the contents (default: on the CPU); copy= as ArrayContainer.to_torch."""
        if not self._pooled and self._quant is None:
            return ArrayContainer._to_torch(self, device, keep_dims, copy=copy)
        if copy is False:
            raise ValueError(f"to_torch(copy=False): Zero-copy not available for {self._describe()}: its cells are "
                             "pooled.")
        import torch

        return torch.from_numpy(self.to_numpy(keep_dims=keep_dims)).to("cpu" if device is None else device)

    def from_numpy(self, arr):
        """Copies a numpy array in; a sparse field takes the values of its active cells only."""
        self._check_storage()
        if self._quant is not None:
            if not isinstance(arr, np.ndarray):
                raise TypeError(f"from_numpy() expects a numpy.ndarray, but got {type(arr).__name__}.")
            self._quant.from_numpy(arr)
            return
        if self._pooled:
            if not isinstance(arr, np.ndarray):
                raise TypeError(f"from_numpy() expects a numpy.ndarray, but got {type(arr).__name__}.")
            values = np.asarray(self._expand(arr))
            if values.shape != self._numpy_shape:
                raise ValueError(f"from_numpy(): expected an array of shape {self._export_shape(False)}, but got "
                                 f"{arr.shape}.")
            self._layout.scatter(values.astype(self.dtype.numpy))
            return
        ArrayContainer._from_numpy(self, arr)
        if self._layout is not None:
            self._layout.clear_inactive()

    def from_torch(self, tensor):
        """Copies a torch tensor in; a sparse field takes the values of its active cells only."""
        self._check_storage()
        if self._pooled or self._quant is not None:
            self.from_numpy(tensor.detach().cpu().numpy())
            return
        ArrayContainer._from_torch(self, tensor)
        if self._layout is not None:
            self._layout.clear_inactive()

    def copy_from(self, other):
        """Copies another field or ndarray of the same shape into this one (activating every cell)."""
        self._check_storage()
        other = getattr(other, "_unwrap", lambda: other)()  # a qd.Tensor copies as what it wraps
        if self._layout is not None and self._quant is None:
            self._layout.activate_all()
        if not self._pooled and self._quant is None:
            ArrayContainer.copy_from(self, other)
            return
        if not isinstance(other, ArrayContainer):
            raise TypeError(f"copy_from() expects a qd.field or qd.ndarray, but got {type(other).__name__}.")
        self.from_numpy(other.to_numpy(keep_dims=True).reshape(other._numpy_shape))

    def __iter__(self):
        raise NotImplementedError("Struct for is only available in Quadrants scope: loop over a field inside a "
                                  "kernel, or over range(n) / x.to_numpy() in Python.")

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if self._quant is not None:
            raise BufferError(f"{self._describe()} is of a quantized type, whose values are packed bits in a word "
                              "field; copy it out with to_numpy() or to_torch().")
        if self._layout is not None and self._layout.activity is not None:
            raise BufferError(f"{self._describe()} lives in a sparse SNode (pointer, bitmasked or dynamic), whose "
                              "layout is not a dense array; copy it out with to_numpy() or to_torch().")
        return ArrayContainer.__dlpack__(self, stream, max_version, dl_device, copy)


class _ThroughLayout:
    """What element_ref reads and writes a vector/matrix element of a field with a layout through:
    its FieldLayout's get/set, which find pooled storage and activate cells on writes."""

    def __init__(self, field):
        self.dtype = field.dtype
        self._element_shape = field._element_shape
        self._array = field._layout


class ScalarField(Field):
    """A field of scalars (upstream's class name: qd.field(qd.f32, ...) is a ScalarField)."""


class HiddenField(Field):
    """Storage the layout adds (activity masks, dynamic lengths): a dense array in no SNode tree."""

    def __init__(self, dtype, shape):
        self.name = None
        self._dtype = _runtime.cook_dtype(dtype)
        self._element_shape = ()
        self._describe_elements()
        self.grad = self.dual = None
        self._allocate_array(shape)


def hidden_field(dtype, shape):
    return HiddenField(dtype, shape)


def _unpickle_field(cls, dtype, shape, element_shape, name, offset, data, grad, order=None, soa=False):
    options = {"name": name, "offset": offset, "needs_grad": grad is not None,
               "order": order_string(order) if order is not None else None, "layout": Layout.SOA if soa else None}
    restored = cls(dtype, shape, element_shape, **options)
    restored.from_numpy(data)
    if grad is not None:
        restored.grad.from_numpy(grad)
    return restored


def element_dtype(vector_type):
    """The scalar dtype of a qd.types.vector/matrix: Python's float (default_fp) where it has none."""
    return float if vector_type.dtype is None else vector_type.dtype


registry.provide("hidden_field", hidden_field)  # the masks and lengths of SNodes (snode.py)
