# python/quadrants/lang/struct.py: upstream's import path for struct types (quadrants.lang.struct); see ../struct.py.
from quadrants.data.struct import Struct, StructField, StructType, dataclass

__all__ = ["Struct", "StructField", "StructType", "dataclass"]
