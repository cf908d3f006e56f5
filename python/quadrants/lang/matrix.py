# python/quadrants/lang/matrix.py: upstream's module path `quadrants.lang.matrix`, for compatibility only.
#
# The classes are quadrants/matrix.py's, field.py's and ndarray.py's. MatrixType is upstream's class of
# qd.types.vector(...)/qd.types.matrix(...) types, which here is one class for both (lang/types.VectorType).
from quadrants.base.swizzles import patterns as _generate_swizzle_patterns
from quadrants.data.matrix import Matrix, Vector
from quadrants.data.matrix_field import MatrixField
from quadrants.data.ndarray import MatrixNdarray, VectorNdarray
from quadrants.types.annotations import VectorType as MatrixType

__all__ = ["Matrix", "Vector", "MatrixField", "MatrixNdarray", "VectorNdarray"]
