# python/quadrants/runtime/dlpack.py: wrapping DLPack producers (numpy, torch, CuPy, ...) without copying.
from quadrants.runtime import _core


def import_dlpack(obj):
    """A _core.Array aliasing obj's memory, via obj.__dlpack__ (versioned when the producer can)."""
    return _core.Array.from_dlpack_producer(obj)


class CapsuleProducer:
    """A DLPack producer around a capsule from to_dlpack(), for consumers that take only producers
    (np.from_dlpack). Hands out its capsule and reports the device recorded in it."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **_options):  # max_version, dl_device, copy: the capsule is what it is
        return self._capsule

    def __dlpack_device__(self):
        return capsule_device(self._capsule)


# Where DLTensor.device sits (DLPack 1.x): right after DLTensor.data in a legacy DLManagedTensor, and after the
# version, manager context, deleter and flags words in a DLManagedTensorVersioned.
_DEVICE_OFFSETS = {b"dltensor": 8, b"dltensor_versioned": 40}


def capsule_device(capsule):
    """(device type, device id) of an unconsumed DLPack capsule, read from its DLTensor."""
    import ctypes

    # Own prototypes: setting argtypes on ctypes.pythonapi's shared functions would change them for everyone.
    get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    if type(capsule).__name__ != "PyCapsule":
        raise TypeError(f"Expected a DLPack capsule, but got {type(capsule).__name__}.")
    name = get_name(capsule)
    if name not in _DEVICE_OFFSETS:
        raise ValueError(f"Expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned'), but got one "
                         f"named {name!r}.")
    device = (ctypes.c_int32 * 2).from_address(get_pointer(capsule, name) + _DEVICE_OFFSETS[name])
    return int(device[0]), int(device[1])
