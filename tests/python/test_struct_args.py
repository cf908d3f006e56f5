# Kernel parameters annotated with a qd.types.struct: passed by value, every scalar and vector member a
# runtime parameter read from the argument on each call (translator.struct_argument).
import numpy as np
import pytest

import quadrants as qd

inner = qd.types.struct(a=qd.i16, b=qd.f32)
outer = qd.types.struct(a=qd.f32, b=inner)
mat32 = qd.types.matrix(3, 2, qd.f32)
with_matrix = qd.types.struct(n=qd.i32, m=mat32, v=qd.math.vec3)


@qd.kernel
def total(s: outer) -> qd.f32:
    return s.a + s.b.a + s.b.b


def test_nested_scalar_members_are_read_on_every_call():
    assert total(outer(a=1, b=inner(a=2, b=123))) == 126
    assert total(outer(a=0.5, b=inner(a=-3, b=1))) == -1.5  # new values, the same compiled kernel
    assert len(total._qd_kernel._instances) == 1


def test_matrix_and_vector_members():
    @qd.kernel
    def weigh(s: with_matrix) -> qd.f32:
        acc = qd.cast(s.n, qd.f32) + s.v.dot(qd.Vector([1.0, 10.0, 100.0]))
        for i in range(3):
            for j in range(2):
                acc += s.m[i, j] * (i + 1) * (j + 2)
        return acc

    m = np.arange(1, 7, dtype=np.float32).reshape(3, 2)
    value = with_matrix(n=4, m=mat32(*m.ravel()), v=qd.math.vec3(1, 2, 3))
    expected = 4 + 321 + sum(m[i, j] * (i + 1) * (j + 2) for i in range(3) for j in range(2))
    assert weigh(value) == pytest.approx(expected)


def test_the_parameter_is_a_local_copy():
    @qd.kernel
    def bump(s: outer, out: qd.types.ndarray()):
        s.a += 10.0
        s.b.b *= 2.0
        out[0] = s.a + s.b.b

    value = outer(a=1, b=inner(a=0, b=3))
    out = np.zeros(1, np.float32)
    bump(value, out)
    assert out[0] == 17 and value.a == 1 and value.b.b == 3


def test_wrong_arguments_are_clear_errors():
    with pytest.raises(TypeError, match=r"argument 's' must be a qd.types.struct\(a=qd.f32, .* but got 3"):
        total(3)
    with pytest.raises(ValueError, match=r"argument 's.b.a': 65537 does not fit in i16"):
        total(outer(a=1, b=inner(a=65537, b=0)))  # refused, where upstream would wrap it to 1
