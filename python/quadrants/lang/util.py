# python/quadrants/lang/util.py: upstream's quadrants.lang.util, as far as programs import from it.
import importlib.util
import os
import shutil

from quadrants.base import dtypes as _dtypes


def has_pytorch():
    """Whether torch can be imported (QD_ENABLE_TORCH=0 says no, as upstream)."""
    if os.environ.get("QD_ENABLE_TORCH", "1") == "0":
        return False
    return importlib.util.find_spec("torch") is not None


def has_clangpp():
    """Whether clang++ is on PATH (upstream's tests of external C++ functions need it)."""
    return shutil.which("clang++") is not None


def to_numpy_type(dtype):
    """The numpy scalar type of a quadrants dtype (np.float32 for qd.f32, ...)."""
    return _dtypes.to_dtype(dtype).numpy.type


__all__ = ["has_clangpp", "has_pytorch", "to_numpy_type"]
