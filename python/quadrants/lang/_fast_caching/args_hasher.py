# python/quadrants/lang/_fast_caching/args_hasher.py: upstream's argument hasher, answered by the part of the
# translation cache's key that a call's arguments give (kernels/argument_digest.py says what that holds).
"""Fields are cacheable here (upstream skips its fast cache for them), and FIELD_METADATA_CACHE_VALUE changes
nothing: a dataclass member a kernel reads at compile time is checked by the cache whether marked or not."""
import enum

from quadrants.frontend.templated_floats import check_template_arguments
from quadrants.kernels.argument_digest import arguments_digest, is_template

FIELD_METADATA_CACHE_VALUE = "add_value_to_cache_key"  # upstream's dataclass field marker; see above


class FastcacheSkip(enum.Enum):
    """Why an argument list has no cache key: WARN, an argument the cache cannot describe. FIELD_VIA_TENSOR is
    upstream's name for a field passed through qd.Tensor; fields are cacheable here, so it is never returned."""

    FIELD_VIA_TENSOR = "field_via_tensor"
    WARN = "warn"


class _Named:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def hash_args(raise_on_templated_floats, args, arg_metas):
    """The hex digest of what the cache keys these arguments on (arg_metas: an ArgMetadata or None each), or
    FastcacheSkip.WARN when one cannot be described. raise_on_templated_floats: refuse a float template argument
    (or data_oriented member) with qd.init(raise_on_templated_floats=True)'s ValueError."""
    if len(args) != len(arg_metas):
        raise ValueError(f"hash_args: args and arg_metas must have the same length, got {len(args)} and "
                         f"{len(arg_metas)}")
    annotations = [getattr(meta, "annotation", None) for meta in arg_metas]
    if raise_on_templated_floats:
        positions = [k for k, annotation in enumerate(annotations) if is_template(annotation)]
        params = [meta if getattr(meta, "name", None) else _Named(f"arg{k}") for k, meta in enumerate(arg_metas)]
        check_template_arguments("hash_args", params, positions, args)
    digest = arguments_digest(args, annotations)
    return FastcacheSkip.WARN if digest is None else digest


__all__ = ["FIELD_METADATA_CACHE_VALUE", "FastcacheSkip", "hash_args"]
