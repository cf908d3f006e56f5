# python/quadrants/lang/exception.py: upstream's import path for the exception classes (they live in errors.py).
from quadrants.base.errors import *  # noqa: F401,F403
from quadrants.base.errors import QuadrantsIndexError, QuadrantsOutOfBoundError  # noqa: F401  importable, not star-exported
