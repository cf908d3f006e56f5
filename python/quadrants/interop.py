# python/quadrants/interop.py: wrapping DLPack producers (numpy, torch, CuPy, ...) without copying.
from . import _core


_DL_CUDA = 2
_DL_CUDA_MANAGED = 13


def import_dlpack(obj):
    """A _core.Array aliasing obj's memory, via obj.__dlpack__ (versioned when the producer can)."""
    producer = getattr(obj, "__dlpack__", None)
    if producer is None:
        raise TypeError(f"Expected an object supporting DLPack (__dlpack__), but got {type(obj).__name__}.")
    # Our copies run on the legacy default stream (stream=1 in the DLPack contract), so a CUDA
    # producer must order its pending work before it; host producers take no stream.
    kwargs = {}
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and device()[0] in (_DL_CUDA, _DL_CUDA_MANAGED):
        kwargs["stream"] = 1
    try:
        capsule = producer(max_version=(1, 0), **kwargs)
    except TypeError:  # producers older than DLPack 1.0 take no max_version
        capsule = producer(**kwargs)
    return _core.Array.from_dlpack(capsule)


def from_dlpack(obj):
    """A qd.ndarray sharing memory with any DLPack producer: writes on either side are seen by both."""
    from .ndarray import Ndarray

    array = import_dlpack(obj)
    return Ndarray._wrap(array)
