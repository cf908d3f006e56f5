# python/quadrants/interop/python_backend.py: upstream's arch=python: containers are torch tensors, values too.
"""Under `qd.init(qd.python)` nothing is compiled: kernels and funcs run as plain Python (kernels/kernel.py and
frontend/funcs.py call the function itself), so the containers they index must behave like Quadrants' inside a
kernel. As upstream, they are `PyTensor`s (interop/py_tensor.py): `qd.field(qd.math.vec3, (N, M))` is a zeroed
torch tensor of size (N, M, 3) whose `.shape` is the batch shape (N, M); indexing one element gives a 0-d tensor
*view*, which is what lets `qd.atomic_add(a[i], 1)` update `a` in place. `qd.Vector`/`qd.Matrix` values and
`qd.grouped` indices are PyTensors as well.

The lower floors (data/ for containers and values, frontend/builtins.py for atomics, casts and qd.grouped) ask
`runtime.init.is_python_arch()` and call through the `python_backend` registry slot, which this module fills.
torch is imported only when the python backend is used (qd.init checks that it is installed)."""
import itertools
import types
import warnings

from quadrants.base import dtypes as _dtypes, registry
from quadrants.data.matrix_math import MatrixValue, typed_entries
from quadrants.data.struct import StructType
from quadrants.interop.py_tensor import tensor_class
from quadrants.interop.python_struct_field import PythonStructField
from quadrants.runtime import init as _runtime
from quadrants.types.annotations import VectorType

# Options of qd.field/qd.ndarray that only mean something for SNode trees, compiled kernels or autodiff.
_IGNORED_OPTIONS = ("order", "offset", "needs_grad", "needs_dual", "layout")
_warned = set()


def _torch():
    import torch  # optional third-party: present whenever qd.init(qd.python) succeeded

    return torch


def torch_dtype(dtype):
    """The torch dtype of a Quadrants dtype (Python's float and int: the current default_fp/default_ip)."""
    return _runtime.cook_dtype(dtype).torch


def _warn_ignored(what, options):
    for name in options:
        if name in _IGNORED_OPTIONS and options[name] not in (None, False, ()) and (what, name) not in _warned:
            _warned.add((what, name))
            warnings.warn(f"{what}({name}=...) has no effect under qd.init(arch=qd.python): containers there are "
                          "plain torch tensors (no SNode layout, offsets or gradient twins).", stacklevel=4)
    unknown = set(options) - set(_IGNORED_OPTIONS) - {"name"}
    if unknown:
        raise TypeError(f"{what}() got unexpected keyword argument(s) {', '.join(sorted(unknown))}.")


def _batch_shape(shape, what):
    if shape is None:
        return ()
    if isinstance(shape, int):
        return (shape,)
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"{what}(shape=...) expects an int or a tuple of ints, but got {shape!r}.") from None


def container(dtype, shape, element_shape=(), what="qd.field", **options):
    """A zeroed PyTensor of batch shape `shape` (an int, tuple or None for 0-d) holding `element_shape` entries."""
    _warn_ignored(what, options)
    batch = _batch_shape(shape, what)
    return tensor_class().create(batch + tuple(element_shape), torch_dtype(dtype), batch_ndim=len(batch))


def field(dtype, shape=None, **options):
    """qd.field(dtype, shape) under arch=python: scalar, vector/matrix (dtype a qd.types.vector/matrix) or struct."""
    if isinstance(dtype, StructType):
        return struct_field(dtype, shape, **options)
    if isinstance(dtype, VectorType):
        element = float if dtype.dtype is None else dtype.dtype
        return container(element, shape, dtype.shape, "qd.field", **options)
    return container(dtype, shape, (), "qd.field", **options)


def ndarray(dtype, shape=None, **options):
    """qd.ndarray(dtype, shape) under arch=python."""
    if isinstance(dtype, StructType):
        raise TypeError("qd.ndarray() of a struct type is not supported; use a struct field (dtype.field(shape)).")
    if isinstance(dtype, VectorType):
        element = float if dtype.dtype is None else dtype.dtype
        return container(element, shape, dtype.shape, "qd.ndarray", **options)
    return container(dtype, shape, (), "qd.ndarray", **options)


def struct_field(struct_type, shape=None, **options):
    """A struct type's .field(shape) under arch=python: one tensor per member (nested structs nest)."""
    name = options.pop("name", None)
    members = {}
    for key, member_type in struct_type.members.items():
        member_name = f"{name}.{key}" if name else key
        members[key] = field(member_type, shape, name=member_name, **options)
    return PythonStructField(members, struct_type, name)


def _plain_entries(arr):
    """Nested lists of Python numbers from a qd.Vector/qd.Matrix argument that may hold 0-d tensors or vectors."""
    torch = _torch()
    if isinstance(arr, torch.Tensor):
        return arr.tolist()
    if isinstance(arr, MatrixValue):
        return arr._values.tolist()
    if isinstance(arr, (list, tuple)):
        return [_plain_entries(x) for x in arr]
    if hasattr(arr, "tolist"):  # numpy arrays and scalars
        return arr.tolist()
    return arr


def value(arr, dt=None, who="Matrix"):
    """qd.Vector(arr, dt) / qd.Matrix(arr, dt) under arch=python: a PyTensor of the entries, of dtype dt, else of
    default_fp even for integer entries, as upstream's (a float tensor, so `v += 0.5` stays legal in place)."""
    if not isinstance(arr, (list, tuple)) and not hasattr(arr, "tolist"):
        raise TypeError(f"qd.{who}() takes a list, tuple or array of numbers, but got {type(arr).__name__}.")
    entries = _plain_entries(arr)
    if dt is None:
        dt = float
    return _torch().tensor(entries, dtype=torch_dtype(dt)).as_subclass(tensor_class())


def typed_value(vector_type, args):
    """`qd.math.vec3(1, 2, 3)` under arch=python: the typed entries as a PyTensor."""
    entries = typed_entries(vector_type, [_plain_entries(a) if not isinstance(a, (int, float)) else a for a in args])
    return _torch().from_numpy(entries.copy()).as_subclass(tensor_class())


def grouped(container):
    """The index vectors of a container's batch shape, row-major, as qd.grouped(x) gives them in a kernel."""
    shape = tuple(int(n) for n in container.shape)
    return [value(list(index), _dtypes.i32) for index in itertools.product(*(range(n) for n in shape))]


def cast(x, dtype):
    """qd.cast(x, dtype) under arch=python: a tensor converted (a new tensor), a number made float or int."""
    torch = _torch()
    target = torch_dtype(dtype)
    if isinstance(x, torch.Tensor):
        return x.to(target)
    return float(x) if target.is_floating_point else int(x)


def _updated(op, x, operands):
    torch = _torch()
    y = operands[0]
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    if op == "mul":
        return x * y
    if op == "min":
        return torch.minimum(x, torch.as_tensor(y, dtype=x.dtype))
    if op == "max":
        return torch.maximum(x, torch.as_tensor(y, dtype=x.dtype))
    if op == "and":
        return x & y
    if op == "or":
        return x | y
    if op == "xor":
        return x ^ y
    if op == "xchg":
        return y
    if op == "cas":  # operands: (compare, value)
        return torch.where(x == operands[0], torch.as_tensor(operands[1], dtype=x.dtype), x)
    raise ValueError(f"unknown atomic operation {op!r}")


def atomic(name, op, x, *operands):
    """qd.atomic_<op>(x, y) under arch=python: kernels run one statement at a time, so this is a read-modify-write
    of x, which must be an element (or vector) of a field or ndarray: a tensor view into its storage. Returns the
    old value: a Python number for a scalar, a copy for a vector."""
    if not isinstance(x, _torch().Tensor):
        raise TypeError(f"qd.{name}(x, ...) under qd.init(arch=qd.python) updates x in place, so x must be an "
                        f"element of a field or ndarray (a torch tensor view), but got {type(x).__name__} {x!r}.")
    old = x.item() if x.ndim == 0 else x.clone()
    x[()] = _updated(op, x, operands)
    return old


registry.provide("python_backend", types.SimpleNamespace(
    field=field, ndarray=ndarray, container=container, struct_field=struct_field, value=value,
    typed_value=typed_value, grouped=grouped, torch_dtype=torch_dtype, cast=cast, atomic=atomic))
