# python/quadrants/math.py: upstream's module path quadrants.math (`from quadrants.math import vec3`) of qd.math
# (library/math.py).
"""`qd.math` (floor 9, upstream's module path `quadrants.math`): the names of `quadrants.library.math`
re-exported. The built-in math functions (`sqrt`, `sin`, `exp`, `log2`, `isnan`, `popcnt`, ...), GLSL-style
helpers (`clamp`, `mix`, `step`, `smoothstep`, `fract`, `sign`, `reflect`, `distance`, ...), the constants
`pi`, `e`, `inf` and `nan`, and the vector and matrix types `vec2` ... `mat4` (with `ivec*`, `uvec*`). The functions
work inside kernels and, through numpy, in Python scope."""
from quadrants.library.math import *  # noqa: F401,F403

# dir(qd.math) lists upstream's names. These five are quadrants' additions (upstream has qd.abs, qd.rsqrt and
# qd.select at the top level only, and no atan or exp2), reachable here by attribute.
_QUADRANTS_ONLY = frozenset({"abs", "atan", "exp2", "rsqrt", "select"})


def __dir__():
    return sorted(set(globals()) - _QUADRANTS_ONLY)
