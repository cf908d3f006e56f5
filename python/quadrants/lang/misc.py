# python/quadrants/lang/misc.py: upstream's quadrants.lang.misc, as far as programs and upstream's test
# helpers import from it: the arch names, the queries about what this machine supports, and loop_unique.
from quadrants.frontend.hints import loop_unique  # noqa: F401  an optimizer hint: frontend/hints.py
from quadrants.runtime import init as _runtime
# upstream's private helper that qd.init calls (its tests call it with a stand-in config): runtime/ir_load_envs.py
from quadrants.runtime.ir_load_envs import check_against_caching as _check_ir_load_envs_against_caching  # noqa: F401
from quadrants.runtime.extensions import (
    amdgpu,
    arm64,
    extension,
    is_arch_supported,
    is_extension_enabled,
    is_extension_supported,
    metal,
    python,
    vulkan,
    x64,
)  # noqa: F401

cpu = _runtime.cpu
cuda = _runtime.cuda
gpu = _runtime.gpu  # upstream's is a list of GPU archs; qd.init(arch=qd.gpu) picks an available one either way


def get_host_arch_list():
    """The host CPU's arch, as a list (what upstream's tests pass to test(arch=...) for host-only tests)."""
    return [_runtime.cpu]


__all__ = ["cpu", "cuda", "gpu", "x64", "arm64", "amdgpu", "metal", "vulkan", "python", "extension",
           "is_arch_supported", "is_extension_supported", "is_extension_enabled", "get_host_arch_list",
           "loop_unique"]
