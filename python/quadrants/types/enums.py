# python/quadrants/types/enums.py: upstream's enums qd.Layout and AutodiffMode (quadrants.types.enums), and the names
# of its Vulkan/Metal-only settings (qd.Format, qd.DeviceCapability), which no backend here takes.
import enum


class Layout(enum.IntEnum):
    """How the components of vector/matrix elements are stored: AOS (each element's components
    together) or SOA (each component in its own array). NULL: unspecified."""

    AOS = 0
    SOA = 1
    NULL = 2


class AutodiffMode(enum.IntEnum):
    """What a kernel object runs as (kernel.autodiff_mode, upstream's values): NONE its own build; VALIDATION
    while a qd.ad.Tape(validation=True) records it, its build that checks the global data access rule.
    FORWARD and REVERSE name upstream's derived kernels; here those are kernel.grad and qd.ad.FwdMode."""

    FORWARD = 0
    REVERSE = 1
    NONE = 2
    VALIDATION = 3


class SNodeGradType(enum.IntEnum):
    """What a field is to autodiff (upstream's x.snode.ptr.get_snode_grad_type()): a primal, the adjoint (.grad)
    or dual (.dual) of one; ADJOINT_CHECKBIT names upstream's check bits, here the read marks of
    qd.ad.Tape(validation=True), which are no field."""

    PRIMAL = 0
    ADJOINT = 1
    DUAL = 2
    ADJOINT_CHECKBIT = 3


class DeviceCapability:
    """Upstream's names of SPIR-V device capabilities, which its Vulkan backend reports in
    get_device_caps() (each name is its key there). quadrants has no Vulkan backend, so no device here reports
    any of them; the names exist so that programs that spell them import."""

    spirv_version_1_3 = "spirv_version=66304"
    spirv_version_1_4 = "spirv_version=66560"
    spirv_version_1_5 = "spirv_version=66816"
    spirv_has_int8 = "spirv_has_int8"
    spirv_has_int16 = "spirv_has_int16"
    spirv_has_int64 = "spirv_has_int64"
    spirv_has_float16 = "spirv_has_float16"
    spirv_has_float64 = "spirv_has_float64"
    spirv_has_atomic_int64 = "spirv_has_atomic_int64"
    spirv_has_atomic_float16 = "spirv_has_atomic_float16"
    spirv_has_atomic_float16_add = "spirv_has_atomic_float16_add"
    spirv_has_atomic_float16_minmax = "spirv_has_atomic_float16_minmax"
    spirv_has_atomic_float = "spirv_has_atomic_float"
    spirv_has_atomic_float_add = "spirv_has_atomic_float_add"
    spirv_has_atomic_float_minmax = "spirv_has_atomic_float_minmax"
    spirv_has_atomic_float64 = "spirv_has_atomic_float64"
    spirv_has_atomic_float64_add = "spirv_has_atomic_float64_add"
    spirv_has_atomic_float64_minmax = "spirv_has_atomic_float64_minmax"
    spirv_has_variable_ptr = "spirv_has_variable_ptr"
    spirv_has_physical_storage_buffer = "spirv_has_physical_storage_buffer"
    spirv_has_subgroup_basic = "spirv_has_subgroup_basic"
    spirv_has_subgroup_vote = "spirv_has_subgroup_vote"
    spirv_has_subgroup_arithmetic = "spirv_has_subgroup_arithmetic"
    spirv_has_subgroup_ballot = "spirv_has_subgroup_ballot"
    spirv_has_non_semantic_info = "spirv_has_non_semantic_info"
    spirv_has_no_integer_wrap_decoration = "spirv_has_no_integer_wrap_decoration"


# Upstream's texel formats, for the textures of its Vulkan and Metal backends (qd.types.texture,
# rw_texture(fmt=...)), in upstream's order. quadrants has no textures (CPU and CUDA kernels read fields and
# ndarrays), so nothing here takes a Format; the members exist so that programs naming one import.
Format = enum.IntEnum("Format", [
    "unknown", "r8", "rg8", "rgba8", "rgba8srgb", "bgra8", "bgra8srgb", "r8u", "rg8u", "rgba8u", "r8i", "rg8i",
    "rgba8i", "r16", "rg16", "rgb16", "rgba16", "r16u", "rg16u", "rgb16u", "rgba16u", "r16i", "rg16i", "rgb16i",
    "rgba16i", "r16f", "rg16f", "rgb16f", "rgba16f", "r32u", "rg32u", "rgb32u", "rgba32u", "r32i", "rg32i", "rgb32i",
    "rgba32i", "r32f", "rg32f", "rgb32f", "rgba32f", "depth16", "depth24stencil8", "depth32f"], start=0)
Format.__doc__ = "Upstream's texel formats (Vulkan/Metal textures), which no backend here takes."
Format.__module__ = __name__

__all__ = ["AutodiffMode", "DeviceCapability", "Format", "Layout", "SNodeGradType"]
