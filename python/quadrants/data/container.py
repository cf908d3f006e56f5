# python/quadrants/data/container.py: behaviour shared by fields and ndarrays: copies, indexing, DLPack.
import numbers

import numpy as np

from quadrants.base import dtypes as _dtypes
from quadrants.base.errors import InvalidShapeTypeError, InvalidShapeValueError, QuadrantsIndexError
from quadrants.base import python_scope
from quadrants.data import zero_copy
from quadrants.data.element_ref import element_ref
from quadrants.runtime import _core, init as _runtime
from quadrants.runtime.dlpack import import_dlpack
from quadrants.types.annotations import VectorType

# Upstream's limit for an ndarray's extents: loop indices over them are i32.
_MAX_NDARRAY_EXTENT = 2**31 - 1


def normalize_shape(shape, what):
    """The shape as a tuple of ints; `what` ('qd.ndarray()', 'qd.field()') names the container in errors, which
    are upstream's QuadrantsRuntimeError and also a TypeError or ValueError. Zero extents pass here: storage the
    layout adds (hidden fields) and qd.Vector.ndarray() may be empty, as upstream's; the public qd.field() and
    qd.ndarray() refuse them with positive_shape()."""
    if shape is None:
        return ()
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    invalid = f"{shape!r} is not a valid shape for {what[len('qd.'):-len('()')]}"
    try:
        dims = tuple(shape)
    except TypeError:
        raise InvalidShapeTypeError(f"{what}: shape must be an int or a tuple of ints, but got {shape!r}; {invalid}.") \
            from None
    for d in dims:
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise InvalidShapeTypeError(f"{what}: shape must be an int or a tuple of ints, but got {shape!r}; "
                                        f"{invalid}.")
        if d < 0:
            raise InvalidShapeValueError(f"{what}: shape dimensions must be non-negative, but got {shape!r}; "
                                         f"{invalid}.")
        if d >= 2**63:
            raise InvalidShapeValueError(f"{what}: shape {shape!r} is too large to address; {invalid}.")
        if what == "qd.ndarray()" and d > _MAX_NDARRAY_EXTENT:
            raise InvalidShapeValueError(f"{what}: shape {shape!r} has an extent over 2**31 - 1 (loop indices are "
                                         f"i32); {invalid}.")
    return tuple(int(d) for d in dims)


def positive_shape(shape, what):
    """normalize_shape() for qd.field() and qd.ndarray(), which refuse a zero or negative extent as upstream does
    (its SNodes and ndarray allocations have no empty form); shape () still makes a single value."""
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    for i, d in enumerate(shape if isinstance(shape, (tuple, list)) else ()):
        if isinstance(d, numbers.Integral) and not isinstance(d, bool) and d <= 0:
            if what == "qd.field()":
                # Upstream's words start the message: programs and tests match on them.
                raise InvalidShapeValueError(
                    f"Every dimension of a Quadrants field should be positive, but qd.field() got the shape "
                    f"{tuple(shape)!r}, whose dimension {i} is {d}; use shape=() for a single value.")
            raise InvalidShapeValueError(
                f"{tuple(shape)!r} is not a valid shape for ndarray: {what} needs every extent to be a positive int "
                f"(at most 2**31 - 1), but dimension {i} is {d}; use shape=() for a single value.")
    return normalize_shape(shape, what)


class FieldIndexError(IndexError, AssertionError):
    """A field indexed with too few or too many indices: an IndexError, and the AssertionError upstream raises."""


def _same_device(have, want):
    """Whether a tensor on torch device `have` is on `want` ('cuda' without an index matches any CUDA device)."""
    return have.type == want.type and (want.index is None or have.index == want.index)


def _source_dtype_check(src_dtype, dst, what):
    """TypeError naming both dtypes for sources quadrants has no dtype for (complex, object...)."""
    try:
        return _dtypes.to_dtype(src_dtype)
    except TypeError:
        raise TypeError(
            f"{what}: cannot convert {src_dtype} data into a {dst.dtype.name} {dst._kind}; "
            f"convert it to a real numeric dtype first."
        ) from None


_DL_CUDA = 2  # DLPack's device type code for CUDA memory


class ArrayContainer:
    """Dense storage with outer dims `shape` and element dims `_element_shape` appended after them."""

    # `_array` is a slot that the C++ launcher reads at its offset (src/bindings/arg_adapters.cpp): kernels take
    # these as arguments by the hundred. Subclasses keep a __dict__ for everything else and may not redefine it.
    __slots__ = ("_array", "__dict__", "__weakref__")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_array" in cls.__dict__:
            raise TypeError(f"{cls.__name__} redefines _array, which kernels read from ArrayContainer's slot.")

    _kind = "array"
    _pooled = False  # a field under a pooled pointer (field.py) holds chunks, not an array of its shape

    def __init__(self, dtype, shape, element_shape=(), _array=None, _huge_pages=True):
        _runtime.config()  # initializes with defaults if qd.init() was not called
        self.dtype = _runtime.cook_dtype(dtype)  # an instance attribute, as upstream's ndarrays' (fields: a property)
        self._element_shape = tuple(element_shape)
        self._describe_elements()
        self.grad = None  # the gradient container of needs_grad=True (quadrants/ad)
        self.dual = None  # the dual container of needs_dual=True (forward mode, quadrants/ad)
        self._allocate_array(shape, _array, _huge_pages)

    def _allocate_array(self, shape, _array=None, _huge_pages=True):
        """The storage of `shape` outer dims (or `_array`, adopted); fields call it when they are allocated."""
        config = _runtime.config()
        self._shape = normalize_shape(shape, f"qd.{self._kind}()")
        if _array is None and config.is_cuda:
            _array = _core.cuda_array(self.dtype.name, list(self._shape), list(self._element_shape), config.device_id)
        elif _array is None:
            # Dense storage of 4 MiB or more goes in transparent huge pages, as numpy's does: copies in and out
            # run at memcpy's best speed (benchmarks/RESULTS.md, to_numpy). Sparse storage passes False: its memory
            # must follow the cells in use page by page, and its worst-case layout (a dynamic list at full length
            # in every cell) may exceed memory many times over, so it is reserved, not committed (HostPages).
            _array = _core.Array.create(
                self.dtype.name, list(self._shape), list(self._element_shape), huge_pages=_huge_pages,
                sparse=not _huge_pages,
            )
        self._array = _array
        _runtime.track(self)

    def _release(self):
        self._array.release()

    @property
    def _numpy_shape(self):
        return self._shape + self._element_shape

    def __repr__(self):
        return f"<qd.{self._kind} {self.dtype.name} shape={self._shape} element_shape={self._element_shape}>"

    @property
    def shape(self):
        """The extents of the outer dims (the element dims not included)."""
        return self._shape

    def _describe_elements(self):
        """Sets the instance attributes that describe an element, as upstream's containers have them (not class
        attributes, so `dir(qd.Ndarray)` lists upstream's API only): element_type, the scalar dtype here."""
        self.element_type = self.dtype

    # --- copies -------------------------------------------------------------------------------
    def fill(self, value):
        """Sets every element to value: a number sets every component of vector/matrix elements, which
        also take a vector/matrix (or nested list) of the element's shape."""
        scalar = isinstance(value, (numbers.Number, np.generic)) or (isinstance(value, np.ndarray) and value.ndim == 0)
        if scalar or not self._element_shape:
            self._array.fill(value)
        elif all(self._shape):
            element = _encode(self._element_values(value), self.dtype, "fill()")
            source = np.broadcast_to(element, self._numpy_shape)  # one element, repeated by zero strides
            self._array.copy_from(import_dlpack(source), "fill", parallel=True)

    def copy_from(self, other):
        """Copies another field or ndarray of the same shape into this one."""
        other = getattr(other, "_unwrap", lambda: other)()  # a qd.Tensor copies as what it wraps
        if not isinstance(other, ArrayContainer):
            raise TypeError(f"copy_from() expects a qd.field or qd.ndarray, but got {type(other).__name__}.")
        if other._pooled:  # copy what its elements read as, not its chunks
            self.from_numpy(other.to_numpy(keep_dims=True).reshape(other._numpy_shape))
            return
        self._array.copy_from(other._array, "copy_from", parallel=True)

    # The host copies are private here and public in HostCopies: upstream's base qd.Ndarray has none of them.
    def _to_numpy(self, dtype=None, keep_dims=False, *, copy=True):
        """Returns a new numpy array with the contents (element dims appended to the shape).

        copy=False returns a view of this container's memory instead, or raises ValueError where none can be had
        (CUDA memory, a sparse layout, a dtype conversion); copy=None returns the view where it can, else a copy.
        """
        if copy is not True:
            view = self._shared_view("to_numpy", copy, lambda: np.from_dlpack(self), dtype is None or
                                     _dtypes.to_dtype(dtype) == self.dtype)
            if view is not None:
                return view.reshape(self._export_shape(keep_dims))
        target = self.dtype if dtype is None else _dtypes.to_dtype(dtype)
        out = np.empty(self._numpy_shape, dtype=target.numpy)
        import_dlpack(out).copy_from(self._array, "to_numpy")
        return out.reshape(self._export_shape(keep_dims))

    def _from_numpy(self, arr):
        """Copies a numpy array of the same shape in, converting dtypes with numpy's same_kind rule."""
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"from_numpy() expects a numpy.ndarray, but got {type(arr).__name__}.")
        _source_dtype_check(arr.dtype.newbyteorder("="), self, "from_numpy")
        if not arr.dtype.isnative or any(s % arr.itemsize for s in arr.strides):
            arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        # Our storage is usually mapped already, so a large copy may use every thread; the to_*
        # methods write fresh arrays, whose page faults make a parallel copy slower.
        self._array.copy_from(import_dlpack(self._expand(arr)), "from_numpy", parallel=True)

    def _to_torch(self, device=None, keep_dims=False, *, copy=True):
        """Returns a new torch tensor with the contents, on `device` (default: the CPU, as in Quadrants).

        copy=False returns a tensor sharing this container's memory instead (DLPack), or raises ValueError where
        none can be had (another device than the data's, a sparse layout); copy=None shares where it can, else copies.
        """
        import torch

        if copy is not True:
            view = self._shared_view("to_torch", copy, lambda: torch.from_dlpack(self), True)
            if view is not None and (device is None or _same_device(view.device, torch.device(device))):
                return view.reshape(self._export_shape(keep_dims))
            if view is not None and copy is False:
                raise ValueError(f"to_torch(copy=False) is incompatible with device transfer (data on "
                                 f"{view.device}, requested {device}).")
        device = torch.device("cpu" if device is None else device)
        if device.type not in ("cpu", "cuda"):
            raise ValueError(f"to_torch(device=...) expects a CPU or CUDA device, but got {device}.")
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"to_torch(device={str(device)!r}): this torch ({torch.__version__}) cannot reach a CUDA "
                             "device; pass device='cpu', or install a CUDA build of torch on a machine with a GPU.")
        # A tensor on the target device, filled by one copy: device data never takes a trip via the host.
        out = torch.empty(self._numpy_shape, dtype=self.dtype.torch, device=device)
        import_dlpack(out).copy_from(self._array, "to_torch")
        if out.is_cuda:  # the copy is on the legacy stream; torch's work on out comes after it
            _core.cuda_stream_wait(torch.cuda.current_stream(out.device).cuda_stream, 0, out.device.index)
        return out.reshape(self._export_shape(keep_dims))

    def _from_torch(self, tensor):
        """Copies a torch tensor of the same shape in (from any device)."""
        import torch

        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"from_torch() expects a torch.Tensor, but got {type(tensor).__name__}.")
        _source_dtype_check(tensor.dtype, self, "from_torch")
        tensor = tensor.detach().resolve_conj().resolve_neg()
        if tensor.device.type not in ("cpu", "cuda"):
            tensor = tensor.cpu()
        self._array.copy_from(import_dlpack(self._expand(tensor)), "from_torch", parallel=True)
        if tensor.is_cuda:  # torch may reuse the tensor's memory on its own stream once we return
            _core.cuda_synchronize(0, tensor.device.index)

    def _export_shape(self, keep_dims):
        return self._numpy_shape

    def _expand(self, arr):
        """arr reshaped to the storage layout when it is in another accepted layout (see keep_dims)."""
        return arr

    # --- zero-copy ----------------------------------------------------------------------------
    def _shared_view(self, what, copy, export, dtype_matches):
        """The array `export()` makes of this memory without a copy; for copy=None, None where it cannot."""
        reason = zero_copy.refusal(self) or (None if dtype_matches else "a dtype conversion needs a copy")
        if reason is None:
            try:
                return export()
            except (BufferError, RuntimeError, TypeError, ValueError) as exc:
                reason = str(exc)
        if copy is False:
            raise ValueError(f"{what}(copy=False): Zero-copy not available for {self!r}: {reason.rstrip('.')}. copy=True (the "
                             "default) returns a copy, copy=None a view where there is one.")
        return None

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("quadrants exports its memory without copying; copy=True is not supported.")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"Cannot export to device {dl_device}; the data lives on {self.__dlpack_device__()}.")
        if stream == 0 and self._array.device[0] == _DL_CUDA:
            raise BufferError("__dlpack__(stream=0) is ambiguous for CUDA and disallowed by the DLPack "
                              "standard; pass 1 for the legacy default stream or a stream handle.")
        if stream is not None and stream not in (-1, 1, 2) and self._array.device[0] == _DL_CUDA:
            # The DLPack stream contract: the consumer's stream waits for our work (done on the legacy
            # default stream), and the host never blocks.
            _core.cuda_stream_wait(stream, 0, self._array.device[1])
        versioned = max_version is not None and max_version[0] >= 1
        if not versioned and not self._array.writable:
            raise BufferError("Cannot export read-only memory as a legacy DLPack capsule, which cannot mark "
                              "it read-only; ask for max_version=(1, 0) or later.")
        return self._array.to_dlpack(versioned)

    def to_dlpack(self, versioned=False):
        """A DLPack capsule of this container's memory, without a copy (upstream's to_dlpack()): the legacy
        capsule, or a versioned one (DLPack 1.0, which can mark memory read-only) with versioned=True."""
        return self.__dlpack__(max_version=(1, 0) if versioned else None)

    def __dlpack_device__(self):
        return self._array.device

    # --- Python-scope element access ----------------------------------------------------------
    def _index(self, key):
        if python_scope.compile_time_calls():  # Python code run by a kernel's translation (python_scope.py)
            python_scope.refuse_element_access(self._kind)
        if key is None:
            key = ()
        elif not isinstance(key, tuple):
            key = (key,)
        for k in key:
            if not isinstance(k, numbers.Integral):
                # The second sentence is upstream's wording, which its tests match.
                raise TypeError(f"{self._kind} indices must be integers, but got {k!r}. Detected illegal element of "
                                f"type: {type(k)}. Please be aware that slicing a qd.{self._kind} is not supported so far.")
        if len(key) != len(self._shape) and len(key) != len(self._shape) + len(self._element_shape):
            message = f"Expected {len(self._shape)} indices for shape {self._shape}, but got {len(key)}"
            if self._kind == "field":
                raise FieldIndexError(f"{message}. Slicing is not supported on qd.field.")

            raise QuadrantsIndexError(f"{message}: a {len(self._shape)}d {self._kind} indexed with {len(key)}d indices.")
        return [int(k) for k in key]

    def __getitem__(self, key):
        """A scalar; for vector/matrix elements a qd.Vector/qd.Matrix that reads and writes this container."""
        index = self._index(key)
        if len(index) == len(self._shape) and self._element_shape:
            return element_ref(self, index)
        return self._array.get(index)

    def __setitem__(self, key, value):
        index = self._index(key)
        if len(index) == len(self._shape) and self._element_shape:
            values = self._element_values(value)
            for e in np.ndindex(*self._element_shape):
                self._array.set(index + list(e), values[e].item())
            return
        self._array.set(index, value)

    def _element_values(self, value):
        """value (a number, or a vector/matrix/list of the element's shape) as an array of that shape.

        A number fills every entry; an n-vector also fits an n x 1 or 1 x n element and the other way round.
        """
        values = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        if values.ndim == 0:
            return np.broadcast_to(values, self._element_shape)
        if values.shape != self._element_shape:
            squeezed = tuple(d for d in values.shape if d != 1)
            if squeezed != tuple(d for d in self._element_shape if d != 1):
                raise ValueError(f"Expected an element of shape {self._element_shape}, but got {values.shape}.")
            values = values.reshape(self._element_shape)
        return values


class HostCopies:
    """The public copies between a container and numpy/torch, for the classes upstream gives them: fields and the
    scalar, vector and matrix ndarrays (not the base qd.Ndarray)."""

    to_numpy = ArrayContainer._to_numpy
    from_numpy = ArrayContainer._from_numpy
    to_torch = ArrayContainer._to_torch
    from_torch = ArrayContainer._from_torch


class MatrixContainer:
    """Mixin for fields and ndarrays whose elements are vectors (element shape (n,)) or matrices (n, m)."""

    @staticmethod
    def _checked_element_shape(element_shape):
        for e in element_shape:
            if not isinstance(e, numbers.Integral) or isinstance(e, bool) or e <= 0:
                raise ValueError(f"Vector/matrix dimensions must be positive ints, but got {element_shape}.")
        return tuple(int(e) for e in element_shape)

    def _describe_elements(self):
        """Instance attributes, as upstream's: n, the rows of each element (a vector's length); m, its columns (1
        for vectors); element_type, qd.types.vector/matrix."""
        self.n = self._element_shape[0]
        self.m = self._element_shape[1] if len(self._element_shape) == 2 else 1
        self.element_type = VectorType(self._element_shape, self.dtype)

    def _export_shape(self, keep_dims):
        # Quadrants: a matrix with one column (vectors included) exports as (..., n) unless keep_dims,
        # which gives (..., n, m) for every matrix container, vectors as (..., n, 1).
        if self.m == 1:
            return self._shape + ((self.n, 1) if keep_dims else (self.n,))
        return self._numpy_shape

    def _expand(self, arr):
        accepted = (self._export_shape(True), self._export_shape(False))
        if len(self._element_shape) == 1:  # upstream's numpy IO also takes a vector as a row, (..., 1, n)
            accepted += (self._shape + (1, self.n),)
        if self.m == 1 and tuple(arr.shape) in accepted:
            return arr.reshape(self._numpy_shape)
        return arr


def _encode(values, dtype, what):
    """values converted to dtype as storing each into the container would (floats to integers truncate
    toward zero); a value the dtype cannot hold is a ValueError, as for scalar writes."""
    target = dtype.numpy
    if values.dtype.kind not in "biuf":
        raise TypeError(f"{what}: expected numbers, but got values of dtype {values.dtype}.")
    if target.kind in "iu" and values.dtype.kind in "iuf" and values.size:
        whole = np.trunc(values) if values.dtype.kind == "f" else values
        info = np.iinfo(target)
        outside = ~np.isfinite(whole) | (whole < info.min) | (whole > info.max)
        if outside.any():
            bad = values[outside].flat[0].item()
            raise ValueError(f"{what}: {bad!r} does not fit in {dtype.name}; storing it would wrap around or be "
                             "undefined.")
        values = whole
    elif target.kind == "b":
        values = values != 0
    return values.astype(target)


_core.register_container_type(ArrayContainer)  # kernels take these as arguments without a copy
_core.register_numpy_type(np.ndarray)
