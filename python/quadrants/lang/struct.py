# python/quadrants/lang/struct.py: upstream's import path for struct types (quadrants.lang.struct); see ../struct.py.
from quadrants.data.struct import Struct, StructType, dataclass
from quadrants.data.struct_field import StructField

__all__ = ["Struct", "StructField", "StructType", "dataclass"]
