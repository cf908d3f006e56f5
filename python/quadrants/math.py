# python/quadrants/math.py: upstream's module path quadrants.math (`from quadrants.math import vec3`) of qd.math
# (library/math.py).
from quadrants.library.math import *  # noqa: F401,F403
