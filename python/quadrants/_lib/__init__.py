# python/quadrants/_lib/__init__.py: upstream's path to its compiled core (quadrants._lib.core), which
# programs and upstream's test helpers import; here `core` answers the queries they make of it.
from quadrants._lib import core  # noqa: F401
