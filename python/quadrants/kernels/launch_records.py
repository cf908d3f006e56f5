# python/quadrants/kernels/launch_records.py: the records a kernel keeps about its launches and caches, under
# upstream's names (quadrants.lang._kernel_types): what kinds of arguments a launch passed, and what the caches did.
import dataclasses
import enum
import math
from collections.abc import Callable

from quadrants.frontend.flat_dataclass_names import PREFIX, create_flat_name, member_plan
from quadrants.types.enums import AutodiffMode


class KernelBatchedArgType(enum.IntEnum):
    """The kinds a launch's flattened arguments are counted by: scalars by kind, and arrays with or without a
    gradient (a dataclass argument counts as its leaves)."""

    FLOAT = 0
    INT = 1
    UINT = 2
    QD_ARRAY = 3
    QD_ARRAY_WITH_GRAD = 4


@dataclasses.dataclass
class SrcLlCacheObservations:
    """What the on-disk cache of compiled kernels did for the last compile: keyed, validated, loaded, stored."""

    cache_key_generated: bool = False
    cache_validated: bool = False
    cache_loaded: bool = False
    cache_stored: bool = False


@dataclasses.dataclass
class FeLlCacheObservations:
    """Whether the last compile found its kernel in the front end's cache."""

    cache_hit: bool = False


@dataclasses.dataclass
class LaunchObservations:
    """Whether the last launch found its compiled kernel already in memory."""

    found_kernel_in_materialize_cache: bool = False


class CompiledKernelData:
    """Upstream's compiled-kernel handle (kernel._last_compiled_kernel_data, compiled_kernel_data_by_key): here one
    specialization's loaded native kernel (_core.CompiledKernel)."""

    __slots__ = ("compiled",)

    def __init__(self, compiled):
        self.compiled = compiled

    def _debug_dump_to_string(self):
        """The code the kernel was built from (the generated C++ or CUDA source; upstream dumps its LLVM IR or
        PTX): the same text whether this process compiled it or loaded it from the disk cache."""
        return self.compiled.source

    def __repr__(self):
        return f"CompiledKernelData({self.compiled.name!r})"


@dataclasses.dataclass
class LaunchStats:
    """How many arguments of each kind the last launch passed, after dataclasses were flattened into leaves."""

    kernel_args_count_by_type: dict


def launch_stats_of(entries):
    """The LaunchStats of a launcher taking `entries` (its `_core.Launcher` parameter tuples): each array counts
    once as QD_ARRAY (needs_grad or not), each scalar once, and a vector or matrix as its entries, by dtype kind.
    Fields are no arguments (a kernel reads them as globals), so they count nowhere, as upstream."""
    counts = dict.fromkeys(KernelBatchedArgType, 0)
    for entry in entries:
        kind = entry[0]
        if kind == "array":
            counts[KernelBatchedArgType.QD_ARRAY] += 1
        elif kind in ("scalar", "vector"):
            dtype = entry[2]
            n = math.prod(entry[3]) if kind == "vector" else 1
            category = KernelBatchedArgType.FLOAT if dtype.startswith("f") else (
                KernelBatchedArgType.UINT if dtype.startswith("u") else KernelBatchedArgType.INT)
            counts[category] += n
    return LaunchStats(kernel_args_count_by_type=counts)


class _Compiled:
    """LastLaunch's slot after the launch in it compiled: the launch's key, marked."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


class LastLaunch:
    """The template key of a Python-dispatched kernel's last launch, and whether that launch compiled.

    The kernel's generated function stores each call's key in `slot[0]` before launching; a compile during the
    launch marks it (compiled()), and the next call's store clears the mark. A kernel dispatched in C++ has none.
    """

    __slots__ = ("slot",)

    def __init__(self):
        self.slot = [None]

    def compiled(self):
        """The launch in progress compiles (or loads from the disk cache) a specialization."""
        if type(self.slot[0]) is not _Compiled:
            self.slot[0] = _Compiled(self.slot[0])

    @property
    def key(self):
        value = self.slot[0]
        return value.key if type(value) is _Compiled else value

    def observations(self):
        """LaunchObservations of the last launch: its kernel was found in memory unless it compiled."""
        return LaunchObservations(found_kernel_in_materialize_cache=type(self.slot[0]) is not _Compiled)


def flat_dataclass_names(definition, plan):
    """Upstream's flattened names (`__qd_s`, `__qd_s__qd_member`, ...) of the dataclass parameters and members whose
    leaves a launch passes: for each planned leaf under a dataclass parameter, its path's every prefix."""
    names = set()
    structs = {definition.params[k].name for k in definition.struct_positions}
    for leaf in plan:
        if leaf.path[0] not in structs:
            continue
        name = PREFIX + leaf.path[0]
        names.add(name)
        for member in leaf.path[1:]:
            name = create_flat_name(name, member)
            names.add(name)
    return names


def record_member_plans(definition, used):
    """Upstream's plan cache of frozen dataclass arguments (quadrants.lang._func_base._frozen_dc_plans): for each
    frozen dataclass parameter, and each frozen dataclass nested in one, the members an entry's launches pass
    (`used`: flat_dataclass_names of the entry's plan). Upstream fills it on launch; an entry here reads the same
    members with the attribute loads of its generated function, so it is filled once, when the entry is made."""
    for k in definition.struct_positions:
        param = definition.params[k]
        _record_plans(used, param.schema, param.name)


def _record_plans(used, schema, basename):
    if not schema.cls.__dataclass_params__.frozen:
        return
    member_plan(used, schema.cls, basename)
    for member in schema.members.values():
        if member.kind == "struct" and create_flat_name(basename, member.name) in used:
            _record_plans(used, member.schema, create_flat_name(basename, member.name))


CompiledKernelKeyType = tuple[Callable, int, AutodiffMode]  # (kernel function, specialization, autodiff mode)
ArgsHash = tuple[int, ...]

__all__ = ["ArgsHash", "CompiledKernelData", "CompiledKernelKeyType", "FeLlCacheObservations", "KernelBatchedArgType", "LaunchObservations",
           "LaunchStats", "SrcLlCacheObservations", "launch_stats_of", "record_member_plans"]
