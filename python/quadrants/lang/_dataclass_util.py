# python/quadrants/lang/_dataclass_util.py: upstream's path of create_flat_name, the flattened name of a dataclass
# parameter's member (`__qd_s__qd_a`); frontend/flat_dataclass_names.py.
from quadrants.frontend.flat_dataclass_names import create_flat_name  # noqa: F401

__all__ = ["create_flat_name"]
