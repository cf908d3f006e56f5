# python/quadrants/interop.py: wrapping DLPack producers (numpy, torch, CuPy, ...) without copying.
from . import _core


def import_dlpack(obj):
    """A _core.Array aliasing obj's memory, via obj.__dlpack__ (versioned when the producer can)."""
    producer = getattr(obj, "__dlpack__", None)
    if producer is None:
        raise TypeError(f"Expected an object supporting DLPack (__dlpack__), but got {type(obj).__name__}.")
    try:
        capsule = producer(max_version=(1, 0))
    except TypeError:  # producers older than DLPack 1.0 take no max_version
        capsule = producer()
    return _core.Array.from_dlpack(capsule)


def from_dlpack(obj):
    """A qd.ndarray sharing memory with any DLPack producer: writes on either side are seen by both."""
    from .ndarray import Ndarray

    array = import_dlpack(obj)
    return Ndarray._wrap(array)
