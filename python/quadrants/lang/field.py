# python/quadrants/lang/field.py: upstream's module path `quadrants.lang.field`, for compatibility only.
#
# The field classes are data/field.py's. _DLPackV1Adapter is upstream's name for the producer that lets
# np.from_dlpack take a capsule from to_dlpack() (interop.CapsuleProducer), device read from the capsule.
from quadrants.data.bitpacked import BitpackedFields  # noqa: F401
from quadrants.data.field import Field, ScalarField  # noqa: F401
from quadrants.data.matrix_field import MatrixField  # noqa: F401
from quadrants.runtime.dlpack import CapsuleProducer as _DLPackV1Adapter  # noqa: F401

__all__ = ["BitpackedFields", "Field", "ScalarField"]
