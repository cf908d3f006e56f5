# python/quadrants/interop.py: wrapping DLPack producers (numpy, torch, CuPy, ...) without copying.
from . import _core


def import_dlpack(obj):
    """A _core.Array aliasing obj's memory, via obj.__dlpack__ (versioned when the producer can)."""
    return _core.Array.from_dlpack_producer(obj)


def from_dlpack(obj):
    """A qd.ndarray sharing memory with any DLPack producer: writes on either side are seen by both."""
    from .ndarray import Ndarray

    array = import_dlpack(obj)
    return Ndarray._wrap(array)
