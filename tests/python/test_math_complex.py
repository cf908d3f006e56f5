# tests/python/test_math_complex.py: qd.math's complex helpers (cmul, cdiv, cconj, cinv, csqrt, cpow, cexp, clog)
# against numpy's complex numbers, the rest of upstream's qd.math names (eye, mod, refract), sign's float result,
# and that qd.math offers every public name of quadrants 1.3.3's quadrants.math.
import numpy as np
import pytest

import quadrants as qd

# dir(quadrants.math) of quadrants 1.3.3, public names only.
UPSTREAM_MATH_NAMES = [
    "acos", "asin", "atan2", "cconj", "cdiv", "ceil", "cexp", "cinv", "clamp", "clog", "clz", "cmul", "cos", "cpow",
    "cross", "csqrt", "degrees", "determinant", "distance", "dot", "e", "exp", "eye", "ffs", "floor", "fns", "fract",
    "inf", "inverse", "isinf", "isnan", "ivec2", "ivec3", "ivec4", "length", "log", "log2", "mat2", "mat3", "mat4",
    "max", "min", "mix", "mod", "nan", "normalize", "pi", "popcnt", "pow", "radians", "reflect", "refract",
    "rot_by_axis", "rot_yaw_pitch_roll", "rotation2d", "rotation3d", "round", "scale", "sign", "sin", "smoothstep",
    "sqrt", "step", "tan", "tanh", "translate", "uvec2", "uvec3", "uvec4", "vdir", "vec2", "vec3", "vec4",
]

Z1 = [(1.0, 1.0), (0.0, 1.0), (-2.5, 0.5), (3.0, -4.0), (-1.0, 0.0), (0.0, 0.0), (-0.5, -0.25)]
Z2 = [(0.0, 1.0), (2.0, -1.0), (0.5, 0.5), (-1.0, -1.0), (-1.0, 0.0), (1.5, 2.0), (4.0, -3.0)]


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    yield
    qd.reset()


def test_qd_math_has_every_upstream_name():
    missing = [name for name in UPSTREAM_MATH_NAMES if not hasattr(qd.math, name)]
    assert missing == []


def _complex(rows):
    return rows[:, 0] + 1j * rows[:, 1]


def test_complex_arithmetic_matches_numpy():
    n = len(Z1)
    a = qd.Vector.field(2, qd.f64, shape=n)
    b = qd.Vector.field(2, qd.f64, shape=n)
    out = qd.Vector.field(2, qd.f64, shape=(6, n))
    a.from_numpy(np.array(Z1))
    b.from_numpy(np.array(Z2))

    @qd.kernel
    def k():
        for i in range(n):
            out[0, i] = qd.math.cmul(a[i], b[i])
            out[1, i] = qd.math.cdiv(a[i], b[i])
            out[2, i] = qd.math.cconj(a[i])
            out[3, i] = qd.math.cinv(b[i])
            out[4, i] = qd.math.cexp(a[i])
            out[5, i] = qd.math.clog(b[i])

    k()
    z1, z2, got = _complex(np.array(Z1)), _complex(np.array(Z2)), out.to_numpy()
    for row, expected in enumerate([z1 * z2, z1 / z2, np.conj(z1), 1 / z2, np.exp(z1), np.log(z2)]):
        np.testing.assert_allclose(_complex(got[row]), expected, rtol=1e-12, atol=1e-12)


def test_csqrt_and_cpow_are_principal_and_zero_at_zero():
    n = len(Z1)
    a = qd.Vector.field(2, qd.f64, shape=n)
    out = qd.Vector.field(2, qd.f64, shape=(4, n))
    a.from_numpy(np.array(Z1))

    @qd.kernel
    def k():
        for i in range(n):
            out[0, i] = qd.math.csqrt(a[i])
            out[1, i] = qd.math.cpow(a[i], 3)
            out[2, i] = qd.math.cpow(a[i], -0.5)  # z = 0 gives 0, not inf, as upstream's guard makes it
            out[3, i] = qd.math.cpow(a[i], 0)

    k()
    z, got = _complex(np.array(Z1)), out.to_numpy()
    nonzero = z != 0
    np.testing.assert_allclose(_complex(got[0]), np.sqrt(z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_complex(got[1]), z ** 3, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_complex(got[2])[nonzero], z[nonzero] ** -0.5, rtol=1e-12)
    np.testing.assert_allclose(_complex(got[3]), np.where(nonzero, 1.0, 0.0), rtol=1e-12)
    assert _complex(got[2])[~nonzero].tolist() == [0j]


def test_integer_inputs_give_float_vectors():
    @qd.kernel
    def k() -> qd.types.vector(4, qd.f64):
        m = qd.math.cmul(qd.Vector([1, 1]), qd.Vector([0, 1]))
        d = qd.math.cdiv(qd.Vector([1, 1]), qd.Vector([0, 2]))
        return qd.Vector([m[0], m[1], d[0], d[1]])

    np.testing.assert_allclose(k(), [-1.0, 1.0, 0.5, -0.5])


def test_eye_mod_refract():
    @qd.kernel
    def k(x: qd.f64, y: qd.f64) -> qd.types.vector(4, qd.f64):
        e = qd.math.eye(3)
        return qd.Vector([e.trace() + e[0, 1], qd.math.mod(x, y), qd.math.mod(7, 2), qd.math.mod(-7, 2)])

    @qd.kernel
    def vector_mod() -> qd.types.vector(3, qd.f64):
        return qd.math.mod(qd.Vector([-0.5, 0.5, 1.0]), 1.0)

    @qd.kernel
    def refract(x: qd.types.vector(3, qd.f64), eta: qd.f64) -> qd.types.vector(3, qd.f64):
        return qd.math.refract(x, qd.Vector([0.0, 1.0, 0.0]), eta)

    np.testing.assert_allclose(k(-5.5, 2.0), [3.0, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(vector_mod(), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(refract([1.0, 1.0, 1.0], 2.0), [2.0, -1.0, 2.0])  # upstream's docstring example
    np.testing.assert_allclose(refract([1.0, 0.0, 0.0], 2.0), [0.0, 0.0, 0.0])  # total internal reflection
    x, n, eta = np.array([0.6, -0.8, 0.0]), np.array([0.0, 1.0, 0.0]), 0.5
    cosine = x @ n
    root = np.sqrt(1 - eta * eta * (1 - cosine * cosine))
    np.testing.assert_allclose(refract(x, eta), eta * x - (eta * cosine + root) * n, rtol=1e-12)


def test_sign_is_a_float_and_zero_for_nan():
    @qd.kernel
    def k(a: qd.i32, x: qd.f64) -> qd.types.vector(3, qd.f64):
        s = qd.math.sign(a)
        s = s * 0.5  # a float local: -0.5, not 0
        return qd.Vector([s, qd.math.sign(x), qd.math.sign(x - x)])

    np.testing.assert_allclose(k(-3, 2.5), [-0.5, 1.0, 0.0])
    assert k(0, float("nan"))[1] == 0.0  # (x >= 0) - (x <= 0), as upstream
