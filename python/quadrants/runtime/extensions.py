# python/quadrants/runtime/extensions.py: upstream's other architecture names and its optional features
# (qd.extension), with what quadrants supports of each.
from quadrants.runtime import init as _runtime

# --- architectures: upstream's backend names. The host CPU's name is qd.cpu itself and qd.python is the
# python backend (runtime/init.py); every other name is a backend quadrants lacks, so qd.init() falls back to
# qd.cpu with a warning (a RuntimeError under enable_fallback=False), as upstream does for a backend it cannot find.
x64 = _runtime.Arch.by_name.get("x64") or _runtime.Arch("x64")  # the x86-64 CPU: qd.cpu on such a host
x86_64 = x64  # upstream's other name for x64
if "x86_64" not in _runtime.Arch.by_name:
    _runtime.Arch.by_name["x86_64"] = x64
arm64 = _runtime.Arch.by_name.get("arm64") or _runtime.Arch("arm64")  # the ARM CPU: qd.cpu on such a host
amdgpu = _runtime.Arch("amdgpu")  # AMD GPUs (HIP): no backend here
metal = _runtime.Arch("metal")  # Apple GPUs: no backend here
vulkan = _runtime.Arch("vulkan")  # Vulkan compute: no backend here
python = _runtime.python  # kernels run as Python on torch tensors (interop/python_backend.py)


class extension:
    """Upstream's optional features, for qd.is_extension_supported(arch, qd.extension.X)."""

    sparse = "sparse"
    quant = "quant"
    mesh = "mesh"
    quant_basic = "quant_basic"
    data64 = "data64"
    adstack = "adstack"
    bls = "bls"
    assertion = "assertion"
    extfunc = "extfunc"


# What qd.cpu and qd.cuda support: 64-bit data, assertions under qd.init(debug=True), sparse SNodes
# (pointer, bitmasked, dynamic: snode.py), and quantized types (qd.types.quant, qd.BitpackedFields,
# SNode.quant_array: data/bitpacked.py).
_SUPPORTED_EXTENSIONS = {extension.data64, extension.assertion, extension.sparse, extension.adstack,
                         extension.quant, extension.quant_basic}


def is_extension_supported(arch, ext):
    """Whether quadrants supports extension `ext` on `arch` (nothing on the backends it lacks)."""
    if ext not in vars(extension).values():
        raise ValueError(f"is_extension_supported() expects a qd.extension member, but got {ext!r}.")
    return arch in (_runtime.cpu, _runtime.cuda, _runtime.gpu) and ext in _SUPPORTED_EXTENSIONS


def is_extension_enabled(ext):
    """Whether extension `ext` is on for the current arch; the AD stack (adstack) also needs
    qd.init(ad_stack_experimental_enabled=True), as upstream."""
    config = _runtime.config()
    if ext == extension.adstack and not (config.options is not None and config.options.ad_stack_experimental_enabled):
        return False
    return is_extension_supported(config.arch, ext)


def is_arch_supported(arch):
    """Whether qd.init(arch=arch) would run on that arch here, without falling back."""
    return _runtime._is_available(arch)


__all__ = ["x64", "x86_64", "arm64", "amdgpu", "metal", "vulkan", "python", "extension", "is_extension_supported",
           "is_extension_enabled", "is_arch_supported"]
