# python/quadrants/library/math_complex.py: qd.math's complex-number helpers (cmul, cdiv, cexp, clog, cpow, csqrt,
# cinv, cconj), as @qd.func's for kernels.
#
# A complex number is a 2-vector (real, imaginary). Every result is a vec2 of the default float type, also for
# integer inputs, as upstream's. cpow and csqrt return 0 for z == 0 without evaluating their polar form there
# (pow(0, n / 2) would be inf for n < 0), as upstream's guard does; the argument of a logarithm or power is
# atan2(imag, real), in (-pi, pi].
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.types.annotations import VectorType

_vec2 = VectorType((2,), None)


@func
def cmul(z1, z2):
    """The complex product z1 * z2."""
    return _vec2(z1[0] * z2[0] - z1[1] * z2[1], z1[0] * z2[1] + z1[1] * z2[0])


@func
def cconj(z):
    """The complex conjugate (re, -im)."""
    return _vec2(z[0], -z[1])


@func
def cdiv(z1, z2):
    """The complex quotient z1 / z2: z1 times the conjugate of z2, over |z2|^2."""
    numerator = _vec2(z1[0] * z2[0] + z1[1] * z2[1], z1[1] * z2[0] - z1[0] * z2[1])
    return numerator / (z2[0] * z2[0] + z2[1] * z2[1])


@func
def cinv(z):
    """The complex reciprocal 1 / z."""
    return cconj(z) / (z[0] * z[0] + z[1] * z[1])


@func
def csqrt(z):
    """The principal square root: the root with positive real part, or with a non-negative imaginary part when
    the real part is 0."""
    root = _vec2(0.0)
    if z[0] != 0 or z[1] != 0:
        half_angle = _b.atan2(z[1], z[0]) / 2.0
        root = _b.sqrt(_b.sqrt(z[0] * z[0] + z[1] * z[1])) * _vec2(_b.cos(half_angle), _b.sin(half_angle))
    return root


@func
def cpow(z, n):
    """z to the real power n, from z's polar form: |z|^n (cos(n arg z), sin(n arg z))."""
    power = _vec2(0.0)
    if z[0] != 0 or z[1] != 0:
        angle = _b.atan2(z[1], z[0]) * n
        power = _b.pow(z[0] * z[0] + z[1] * z[1], n / 2.0) * _vec2(_b.cos(angle), _b.sin(angle))
    return power


@func
def cexp(z):
    """e to the complex power z: e^re (cos im, sin im)."""
    magnitude = _b.exp(z[0])
    return _vec2(magnitude * _b.cos(z[1]), magnitude * _b.sin(z[1]))


@func
def clog(z):
    """The principal logarithm: (log |z|, arg z), arg z in (-pi, pi]."""
    return _vec2(_b.log(z[0] * z[0] + z[1] * z[1]) / 2.0, _b.atan2(z[1], z[0]))
