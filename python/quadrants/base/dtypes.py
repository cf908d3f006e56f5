# python/quadrants/base/dtypes.py: dtype objects (qd.f32, ...) and their numpy/torch equivalents.
import numpy as np

from quadrants.base import registry


def _never():
    return False


class DataType:
    """A scalar element type, e.g. ``qd.f32``. Calling one inside a kernel casts to it."""

    __slots__ = ("name", "numpy", "_torch_name")

    def __init__(self, name, numpy_dtype, torch_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self._torch_name = torch_name

    @property
    def torch(self):
        import torch

        return getattr(torch, self._torch_name)

    def __repr__(self):
        return f"qd.{self.name}"

    def __str__(self):
        """The short name, as upstream's str(dtype) and to_string(): 'f32'. Messages show repr(), 'qd.f32'."""
        return self.name

    # Each dtype is a singleton compared by identity: copies and unpickled dtypes are the same object.
    def __reduce__(self):
        return to_dtype, (self.name,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def to_string(self):
        """The short name, 'f32' for qd.f32 (upstream's DataType.to_string())."""
        return self.name

    def __call__(self, *args):
        # Under qd.init(qd.python) kernels run as Python, so qd.f32(x) there converts a number as upstream does:
        # float() for float types, int() (truncation toward zero) for the others.
        if len(args) == 1 and registry.get_or("is_python_arch", _never)():
            return float(args[0]) if self.numpy.kind == "f" else int(args[0])
        raise RuntimeError(
            f"qd.{self.name}(x) casts a value inside a @qd.kernel or @qd.func; "
            f"in Python scope use numpy, e.g. np.{self.numpy.name}(x)."
        )


u1 = DataType("u1", np.bool_, "bool")
i8 = DataType("i8", np.int8, "int8")
i16 = DataType("i16", np.int16, "int16")
i32 = DataType("i32", np.int32, "int32")
i64 = DataType("i64", np.int64, "int64")
u8 = DataType("u8", np.uint8, "uint8")
u16 = DataType("u16", np.uint16, "uint16")
u32 = DataType("u32", np.uint32, "uint32")
u64 = DataType("u64", np.uint64, "uint64")
f16 = DataType("f16", np.float16, "float16")
f32 = DataType("f32", np.float32, "float32")
f64 = DataType("f64", np.float64, "float64")

ALL = (u1, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)

# Upstream's long names for the same objects.
uint1, int8, int16, int32, int64 = u1, i8, i16, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64
float16, float32, float64 = f16, f32, f64

# The dtype sets of upstream's qd.types.primitive_types; Python's float, int and bool stand for the defaults.
real_types = {f16, f32, f64, float}
integer_types = {i8, i16, i32, i64, u1, u8, u16, u32, u64, int, bool}
all_types = real_types | integer_types
_BY_NAME = {t.name: t for t in ALL}
_BY_NUMPY = {t.numpy: t for t in ALL}
_BY_TORCH_NAME = {"torch." + t._torch_name: t for t in ALL}


def to_dtype(x):
    """Returns the DataType for a DataType, a name ('f32', 'float32'), a numpy dtype or a torch dtype."""
    if isinstance(x, DataType):
        return x
    if isinstance(x, str) and x in _BY_NAME:
        return _BY_NAME[x]
    if x is float:
        return f64
    if x is int:
        return i64
    found = _BY_TORCH_NAME.get(str(x)) if type(x).__module__ == "torch" else None
    if found is None:
        try:
            found = _BY_NUMPY.get(np.dtype(x))
        except TypeError:
            found = None
    if found is None:
        supported = ", ".join(t.name for t in ALL)
        raise TypeError(f"Unsupported dtype {x!r}; quadrants supports {supported}.")
    return found


def is_real(dtype):
    """Whether `dtype` is a floating-point dtype (f16, f32, f64)."""
    return _known(dtype, "is_real") in (f16, f32, f64)


def is_integral(dtype):
    """Whether `dtype` is an integer dtype, u1 included."""
    return _known(dtype, "is_integral") in (u1, i8, i16, i32, i64, u8, u16, u32, u64)


def is_signed(dtype):
    """Whether an integer dtype is signed; other dtypes are a TypeError, as upstream asserts."""
    found = _known(dtype, "is_signed")
    if not is_integral(found):
        raise TypeError(f"qd.types.is_signed() expects an integer dtype, but got {dtype!r}.")
    return found in (i8, i16, i32, i64)


def _known(dtype, what):
    try:
        return to_dtype(dtype)
    except TypeError:
        raise TypeError(f"qd.types.{what}() expects a dtype such as qd.f32, but got {dtype!r}.") from None
