# python/quadrants/kernels/launch_records.py: the records a kernel keeps about its launches and caches, under
# upstream's names (quadrants.lang._kernel_types): what kinds of arguments a launch passed, and what the caches did.
import dataclasses
import enum
import math
from collections.abc import Callable

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


CompiledKernelKeyType = tuple[Callable, int, AutodiffMode]  # (kernel function, specialization, autodiff mode)
ArgsHash = tuple[int, ...]

__all__ = ["ArgsHash", "CompiledKernelKeyType", "FeLlCacheObservations", "KernelBatchedArgType", "LaunchObservations",
           "LaunchStats", "SrcLlCacheObservations", "launch_stats_of"]
