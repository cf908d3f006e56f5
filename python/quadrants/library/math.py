# python/quadrants/library/math.py: qd.math: GLSL-style math functions and the vec2..mat4 types, for kernels.
import math as _pymath

import numpy as _np

from quadrants.base.dtypes import i64 as _i64, u32 as _u32, u64 as _u64
from quadrants.frontend import builtins as _b
from quadrants.types.annotations import VectorType as _VectorType

pi = _pymath.pi
e = _pymath.e
inf = _pymath.inf
nan = _pymath.nan

sqrt, rsqrt, sin, cos, tan = _b.sqrt, _b.rsqrt, _b.sin, _b.cos, _b.tan
asin, acos, atan, atan2, tanh = _b.asin, _b.acos, _b.atan, _b.atan2, _b.tanh
exp, log, floor, ceil, round = _b.exp, _b.log, _b.floor, _b.ceil, _b.round  # noqa: A001
abs, min, max, pow = _b.abs, _b.min, _b.max, _b.pow  # noqa: A001
log2, exp2, isnan, isinf, select = _b.log2, _b.exp2, _b.isnan, _b.isinf, _b.select
popcnt, clz, ffs = _b.popcnt, _b.clz, _b.ffs


def _composite(name, python_impl, kernel_impl):
    return _b.Builtin(name, python_impl, "composite", impl=kernel_impl)


def _clamp(ops, x, low, high):
    return ops.bin("min", ops.bin("max", x, low), high)


def _mix(ops, x, y, a):
    return ops.bin("add", x, ops.bin("mul", ops.bin("sub", y, x), a))


def _step(ops, edge, x):
    return ops.cast_default_fp(ops.bin("ge", x, edge))


def _sign(ops, x):
    # (x >= 0) - (x <= 0) as the default float, as upstream's: -1.0, 0.0 or 1.0 also for integers, 0.0 for NaN.
    x = ops.tr.materialize_value(x)
    return ops.bin("sub", ops.cast_default_fp(ops.bin("ge", x, 0.0)), ops.cast_default_fp(ops.bin("le", x, 0.0)))


def _fract(ops, x):
    return ops.bin("sub", x, ops.un("floor", x))


def _smoothstep(ops, edge0, edge1, x):
    t = _clamp(ops, ops.bin("truediv", ops.bin("sub", x, edge0), ops.bin("sub", edge1, edge0)), 0.0, 1.0)
    return ops.bin("mul", ops.bin("mul", t, t), ops.bin("sub", 3.0, ops.bin("mul", 2.0, t)))


def _reflect(ops, x, n):
    return ops.bin("sub", x, ops.bin("mul", ops.bin("mul", 2.0, ops.dot(n, x)), n))


def _distance(ops, a, b):
    return ops.norm(ops.bin("sub", a, b))


def _np_reflect(x, n):
    x, n = _np.asarray(x), _np.asarray(n)
    return x - 2.0 * _np.dot(n, x) * n


def _np_smoothstep(edge0, edge1, x):
    t = _np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


clamp = _composite("clamp", _np.clip, _clamp)
mix = _composite("mix", lambda x, y, a: x + (y - x) * a, _mix)
step = _composite("step", lambda edge, x: _np.where(_np.asarray(x) >= edge, 1.0, 0.0), _step)
sign = _composite("sign", lambda x: (_np.asarray(x) >= 0) * 1.0 - (_np.asarray(x) <= 0) * 1.0, _sign)
fract = _composite("fract", lambda x: x - _np.floor(x), _fract)
smoothstep = _composite("smoothstep", _np_smoothstep, _smoothstep)
degrees = _composite("degrees", _np.degrees, lambda ops, x: ops.bin("mul", x, 180.0 / pi))
radians = _composite("radians", _np.radians, lambda ops, x: ops.bin("mul", x, pi / 180.0))
dot = _composite("dot", _np.dot, lambda ops, a, b: ops.dot(a, b))
cross = _composite("cross", _np.cross, lambda ops, a, b: ops.cross(a, b))
length = _composite("length", _np.linalg.norm, lambda ops, a: ops.norm(a))
normalize = _composite("normalize", lambda a: _np.asarray(a) / _np.linalg.norm(a), lambda ops, a: ops.normalized(a))
distance = _composite("distance", lambda a, b: _np.linalg.norm(_np.subtract(a, b)), _distance)
reflect = _composite("reflect", _np_reflect, _reflect)
determinant = _composite("determinant", _np.linalg.det, lambda ops, a: ops.determinant(a))
inverse = _composite("inverse", _np.linalg.inv, lambda ops, a: ops.inverse(a))

vec2, vec3, vec4 = (_VectorType((n,), None) for n in (2, 3, 4))
ivec2, ivec3, ivec4 = (_VectorType((n,), int) for n in (2, 3, 4))


class _UnsignedVectorType(_VectorType):
    """uvec2..uvec4: vectors of default_up, the unsigned type as wide as qd.init(default_ip=...): u32, or u64
    under default_ip=qd.i64 (read when used, as vec3 follows default_fp)."""

    follows_defaults = True  # kernels.py: a parameter of this type is re-specialized after qd.init()

    def __init__(self, n):
        self.shape = (n,)

    @property
    def dtype(self):
        return _u64 if _runtime.config().default_ip is _i64 else _u32


uvec2, uvec3, uvec4 = (_UnsignedVectorType(n) for n in (2, 3, 4))
mat2, mat3, mat4 = (_VectorType((n, n), None) for n in (2, 3, 4))

from quadrants.library.math_bits import fns  # noqa: E402,F401
from quadrants.library.math_complex import cconj, cdiv, cexp, cinv, clog, cmul, cpow, csqrt  # noqa: E402,F401
from quadrants.library.math_glsl import eye, mod, refract  # noqa: E402,F401
from quadrants.library.math_transforms import (
    rot_by_axis,
    rot_yaw_pitch_roll,
    rotation2d,
    rotation3d,
    scale,
    translate,
    vdir,
)  # noqa: E402,F401
from quadrants.runtime import init as _runtime
