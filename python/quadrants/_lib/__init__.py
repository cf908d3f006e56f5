# python/quadrants/_lib/__init__.py: upstream's path to its compiled core (quadrants._lib.core), which
# programs and upstream's test helpers import; here `core` answers the queries they make of it, and `utils`
# holds upstream's loader helpers.
from quadrants._lib import core, utils  # noqa: F401
