# python/quadrants/_lib/core/__init__.py: upstream's package of its compiled core, whose module is
# quadrants_python (here: the queries programs make of it, answered by our runtime). Its names are also here, as
# `from quadrants._lib import core; core.get_max_num_indices()` has always given them.
from quadrants._lib.core import quadrants_python  # noqa: F401
from quadrants._lib.core.quadrants_python import *  # noqa: F401,F403
