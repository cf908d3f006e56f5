# python/quadrants/_logging.py: upstream's module path of qd._logging (base/log.py).
from quadrants.base.log import *  # noqa: F401,F403
