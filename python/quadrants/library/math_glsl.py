# python/quadrants/library/math_glsl.py: qd.math's mod, refract and eye, as @qd.func's for kernels.
#
# These follow upstream's definitions, which are GLSL's: mod is x - y * floor(x / y) (a float, since x / y is a
# true division, also for integers), refract gives the zero vector (of x's type) on total internal reflection.
from quadrants.data.matrix import Matrix
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.types.annotations import template


@func
def mod(x, y):
    """x modulo y with the sign of y: x - y * floor(x / y), elementwise for vectors."""
    return x - y * _b.floor(x / y)


@func
def refract(x, n, eta):
    """The refraction of incident direction x at a surface with normal n and ratio of indices eta (GLSL's
    refract): zero when k = 1 - eta^2 (1 - (n . x)^2) is negative (total internal reflection)."""
    cosine = x.dot(n)
    refracted = x - x  # x's shape and type; +0.0 where upstream's x * 0 folds to +0.0 (x * 0 keeps -0.0 here)
    k = 1.0 - eta * eta * (1.0 - cosine * cosine)
    if k >= 0.0:
        refracted = eta * x - (eta * cosine + _b.sqrt(k)) * n
    return refracted


@func
def eye(n: template()):
    """The n x n identity matrix of the default float type (qd.Matrix.identity(float, n))."""
    return Matrix.identity(float, n)
