# python/quadrants/lang/matrix.py: upstream's module path `quadrants.lang.matrix`, for compatibility only.
#
# The classes are quadrants/matrix.py's, field.py's and ndarray.py's. MatrixType is upstream's class of
# qd.types.vector(...)/qd.types.matrix(...) types, which here is one class for both (lang/types.VectorType).
from .._swizzles import patterns as _generate_swizzle_patterns
from ..field import MatrixField
from ..matrix import Matrix, Vector
from ..ndarray import MatrixNdarray, VectorNdarray
from .types import VectorType as MatrixType

__all__ = ["Matrix", "Vector", "MatrixField", "MatrixNdarray", "VectorNdarray"]
