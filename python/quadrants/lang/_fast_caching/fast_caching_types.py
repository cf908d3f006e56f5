# python/quadrants/lang/_fast_caching/fast_caching_types.py: upstream's record of a function's source place and digest.
import dataclasses

from quadrants.lang._wrap_inspect import FunctionSourceInfo


@dataclasses.dataclass(frozen=True)
class HashedFunctionSourceInfo:
    """A function's source lines (FunctionSourceInfo) with the digest they had when it was made."""

    function_source_info: FunctionSourceInfo
    hash: str


__all__ = ["HashedFunctionSourceInfo"]
