# python/quadrants/interop/py_tensor.py: PyTensor, the torch tensor that the python backend (qd.init(qd.python),
# interop/python_backend.py) stores fields and ndarrays in; upstream's quadrants.lang._py_tensor re-exports it.
"""`PyTensor` is a `torch.Tensor` subclass with Quadrants' batch-shape convention: `.shape` is the batch shape (the
field's or ndarray's own dimensions), `.size()` the whole storage shape (batch then element dimensions). `create`
(`create_tensor`) makes a zeroed one with the `_tc`/`_T_tc`/`_np`/`_T_np` views that Genesis reads.

torch is optional and slow to import, so `import quadrants` must not import it: the methods live in a mixin here,
and `tensor_class()` builds the class (mixin + torch.Tensor) the first time the python backend or
quadrants.lang._py_tensor asks for it. There is only ever one PyTensor class."""
import numpy as np

_torch = None  # the torch module, set by tensor_class()
_class = None


def tensor_class():
    """The PyTensor class (imports torch on first use)."""
    global _torch, _class
    if _class is None:
        import torch  # optional third-party: only the python backend and lang._py_tensor need it

        _torch = torch
        # Named as upstream's, where pickle finds it (quadrants.lang._py_tensor binds the same class).
        _class = type("PyTensor", (PyTensorMethods, torch.Tensor),
                      {"__module__": "quadrants.lang._py_tensor", "__qualname__": "PyTensor",
                       "__doc__": PyTensorMethods.__doc__})
    return _class


def _plain(obj):
    """The same storage seen as a plain torch.Tensor, so a foreign subclass's rules decide an operation alone."""
    return _torch.Tensor._make_subclass(_torch.Tensor, obj) if isinstance(obj, _class) else obj


def _index_part(part):
    """A 0-d tensor index as an int (torch reads a 0-d float tensor index as a mask)."""
    return int(part) if isinstance(part, _torch.Tensor) and part.ndim == 0 else part


def _unpack_key(key):
    """A 1-d PyTensor used as an index vector (qd.grouped's I) is a tuple of ints; [i] is i; 0-d parts are ints."""
    if isinstance(key, _class) and key.ndim == 1:
        return tuple(int(v) for v in key.tolist())
    if isinstance(key, list) and len(key) == 1:
        return key[0]
    if isinstance(key, tuple):
        return tuple(_index_part(part) for part in key)
    return key


class PyTensorMethods:
    """A torch tensor whose `.shape` is its batch shape when one was set (`create`), else its size."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        # Mixed with another tensor subclass, neither class can order the other's rules: run it on plain tensors.
        if any(not issubclass(t, _class) and t is not _torch.Tensor for t in types):
            pytree = _torch.utils._pytree
            return func(*pytree.tree_map(_plain, args), **pytree.tree_map(_plain, kwargs))
        return super().__torch_function__(func, types, args, kwargs)

    @property
    def shape(self):  # noqa: D401 - upstream's property name
        batch = self.__dict__.get("_batch_shape")
        return batch if batch is not None else self.size()

    def get_shape(self):
        return self.size()

    @classmethod
    def zeros(cls, *args, **kwargs):
        return cls(_torch.zeros(*args, **kwargs))

    @classmethod
    def create(cls, shape, dtype, batch_ndim=None):
        """A zeroed tensor of `shape` whose first `batch_ndim` dimensions (all when None) are its batch shape."""
        shape = tuple(shape) if shape is not None else ()
        if batch_ndim is None:
            batch_ndim = len(shape)
        if not 0 <= batch_ndim <= len(shape):
            raise ValueError(f"PyTensor.create: batch_ndim must be between 0 and len(shape)={len(shape)}, "
                             f"got {batch_ndim}")
        made = cls.zeros(size=shape, dtype=dtype)
        made._setup_views(batch_ndim)
        return made

    def _setup_views(self, batch_ndim):
        """The views Genesis reads from a field: itself (_tc), with the batch dimensions reversed for two of them
        (_T_tc, the last batch dimension first), and numpy views of both sharing the storage."""
        self._tc = self
        self._T_tc = self.movedim(batch_ndim - 1, 0) if batch_ndim > 1 else self
        self._np = self.numpy()
        self._T_np = self._T_tc.numpy()
        self._batch_shape = self.size()[:batch_ndim]
        self.grad = None
        self.dual = None

    def fill(self, value):
        self.fill_(value)

    def from_numpy(self, array):
        self.copy_(_torch.from_numpy(np.ascontiguousarray(array)))

    def to_numpy(self):
        return self.numpy()

    @property
    def x(self):
        return self[0]

    @property
    def y(self):
        return self[1]

    @property
    def z(self):
        return self[2]

    def __iter__(self):
        """Iterates the first dimension; elements of a 1-d tensor come out as Python numbers (an integral float as
        an int), so `arr[(i, *J)]` indexes numpy arrays."""
        for k in range(self.size()[0]):
            value = super().__getitem__(k)
            if isinstance(value, _torch.Tensor) and value.ndim == 0:
                value = value.item()
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
            yield value

    def __getitem__(self, key):
        key = _unpack_key(key)
        # Kernels index a 0-d (shape=()) field with [0]; torch refuses it, so give a snapshot of the value.
        if type(key) is int and key == 0 and self.ndim == 0:
            return self.item()
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        key = _unpack_key(key)
        if isinstance(value, np.ndarray):
            value = _torch.from_numpy(value)
        elif isinstance(value, np.generic):
            value = value.item()
        try:
            super().__setitem__(key, value)
        except (TypeError, ValueError, IndexError, RuntimeError) as exc:
            raise type(exc)(f"PyTensor[{key!r}] = {value!r} (a {type(value).__name__}): {exc}") from exc

    def transpose(self, *dims):
        """transpose() with no dimensions transposes a matrix (2-d), as a Quadrants matrix's does."""
        if not dims:
            if self.ndim != 2:
                raise ValueError(f"PyTensor.transpose() without dimensions needs a 2-d tensor, got {self.ndim}-d")
            return super().transpose(0, 1)
        return super().transpose(*dims)


__all__ = ["PyTensorMethods", "tensor_class"]
