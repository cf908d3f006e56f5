# python/quadrants/backends/devices.py: parsing and availability checks of device strings.
"""Device strings are 'cpu', 'cuda' or 'cuda:X'; each library accepts only those it can run on."""

import re

_DEVICE_PATTERN = re.compile(r"(cpu|cuda)(?::(\d+))?")


def parse_device(device):
    """Split a device string into (kind, index), index being None when absent."""
    if not isinstance(device, str):
        raise TypeError(
            f"device must be a str such as 'cpu', 'cuda' or 'cuda:0', got {type(device).__name__} {device!r}."
        )
    match = _DEVICE_PATTERN.fullmatch(device)
    if match is None or (match.group(1) == "cpu" and match.group(2) is not None):
        raise ValueError(f"device must be one of 'cpu', 'cuda' or 'cuda:X' with X a device index, got {device!r}.")
    index = match.group(2)
    return match.group(1), None if index is None else int(index)


def _torch_devices(torch):
    return ["cpu"] + [f"cuda:{index}" for index in range(torch.cuda.device_count())]


def _cupy_devices(cupy):
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        count = 0
    return [f"cuda:{index}" for index in range(count)]


def _require_available(lib_name, device, index, available):
    wanted = f"cuda:{index or 0}" if device.startswith("cuda") else device
    if wanted not in available:
        listed = ", ".join(repr(name) for name in available) or "none"
        raise RuntimeError(f"{lib_name} device {device!r} is not available on this system; available devices: {listed}.")


def check_device(lib_name, lib, device):
    """Validate `device` for library `lib_name`; returns the device index (None for 'cpu' and bare 'cuda')."""
    kind, index = parse_device(device)
    if lib_name == "numpy":
        if kind != "cpu":
            raise ValueError(f"numpy arrays live on the CPU, so device must be 'cpu', got {device!r}.")
    elif lib_name == "cupy":
        if kind != "cuda":
            raise ValueError(f"cupy arrays live on CUDA devices, so device must be 'cuda' or 'cuda:X', got {device!r}.")
        _require_available(lib_name, device, index, _cupy_devices(lib))
    else:
        _require_available(lib_name, device, index, _torch_devices(lib))
    return index
