# python/quadrants/runtime/device_caps.py: upstream's DeviceCapabilityConfig (get_runtime().prog.get_device_caps()):
# the capabilities of the device in use that change generated code, and a fingerprint of them.
"""Upstream lists SPIR-V capabilities for its Vulkan and Metal devices and none for CPU and CUDA. quadrants has no
SPIR-V backend; its CUDA code is generated for the device's compute capability, so that is the one capability a CUDA
device reports here (the CPU reports none)."""
import hashlib

from quadrants.runtime import init as _runtime


class DeviceCapabilityConfig:
    """The device's capabilities by name (get(name) is 0 for one it does not report)."""

    def __init__(self, caps):
        self._caps = dict(caps)

    def get(self, name):
        return self._caps.get(name, 0)

    def hashed_key(self):
        """'T' and the SHA-256 of the capabilities: upstream's form (its cache keys start with a letter)."""
        text = "\n".join(f"{name}={value}" for name, value in sorted(self._caps.items()))
        return "T" + hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self):
        return f"DeviceCapabilityConfig({self._caps!r})"


def current_device_caps():
    """The capabilities of the device of the current qd.init()."""
    config = _runtime.config()
    if config.is_cuda:
        major, minor = config.cuda_properties["compute_capability"]
        return DeviceCapabilityConfig({"cuda_compute_capability": major * 10 + minor})
    return DeviceCapabilityConfig({})


__all__ = ["DeviceCapabilityConfig", "current_device_caps"]
