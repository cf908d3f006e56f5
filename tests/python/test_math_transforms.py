# qd.math's transforms (translate, scale, rotation2d, vdir, rot_by_axis, rot_yaw_pitch_roll, rotation3d) against
# textbook matrices built in numpy, and all()/any() and list comparisons on vectors inside kernels.
import numpy as np
import pytest

import quadrants as qd


def _rodrigues(axis, angle):
    """The textbook (column-vector) rotation by angle about axis."""
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def _homogeneous(r):
    m = np.eye(4)
    m[:3, :3] = r
    return m


def test_translate_scale_rotation2d_vdir():
    out4 = qd.Matrix.field(4, 4, qd.f64, shape=2)
    out2 = qd.Matrix.field(2, 2, qd.f64, shape=())
    d = qd.Vector.field(2, qd.f64, shape=())

    @qd.kernel
    def run():
        out4[0] = qd.math.translate(1.5, -2.0, 3.0)
        out4[1] = qd.math.scale(2.0, 3.0, -4.0)
        out2[None] = qd.math.rotation2d(0.7)
        d[None] = qd.math.vdir(2.0)

    run()
    point = np.array([1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(out4[0].to_numpy() @ point, [2.5, -1.0, 4.0, 1.0])
    np.testing.assert_allclose(out4[1].to_numpy() @ point, [2.0, 3.0, -4.0, 1.0])
    np.testing.assert_allclose(out2[None].to_numpy(), _rodrigues([0, 0, 1], 0.7)[:2, :2], atol=1e-12)
    np.testing.assert_allclose(d[None].to_numpy(), [np.cos(2.0), np.sin(2.0)], atol=1e-12)


@pytest.mark.parametrize("axis, angle", [((1.0, 0.0, 0.0), 0.4), ((0.0, 2.0, 0.0), -1.2), ((1.0, -2.0, 0.5), 2.5)])
def test_rot_by_axis_acts_on_row_vectors(axis, angle):
    out = qd.Matrix.field(4, 4, qd.f64, shape=())

    @qd.kernel
    def run(ax: qd.types.vector(3, qd.f64), ang: qd.f64):
        out[None] = qd.math.rot_by_axis(ax, ang)

    run(qd.Vector(list(axis)), angle)
    np.testing.assert_allclose(out[None].to_numpy(), _homogeneous(_rodrigues(axis, angle)).T, atol=1e-12)


def test_euler_rotations():
    out = qd.Matrix.field(4, 4, qd.f64, shape=2)
    yaw, pitch, roll = 0.3, -0.8, 1.9

    @qd.kernel
    def run():
        out[0] = qd.math.rot_yaw_pitch_roll(yaw, pitch, roll)
        out[1] = qd.math.rotation3d(pitch, roll, yaw)

    run()
    textbook = _rodrigues([0, 1, 0], yaw) @ _rodrigues([1, 0, 0], pitch) @ _rodrigues([0, 0, 1], roll)
    # The angles are Python floats, so the kernel computes in f32 (default_fp): CUDA's sinf and glibc's
    # may differ by an ulp or two.
    np.testing.assert_allclose(out[0].to_numpy(), _homogeneous(textbook).T, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out[1].to_numpy(), out[0].to_numpy(), atol=0)


def test_all_any_and_list_comparisons_on_vectors():
    result = qd.field(qd.i32, shape=6)

    @qd.kernel
    def run(x: qd.f32):
        v = qd.Vector([x, 0.0, -x])
        result[0] = all(v == [x, 0, -x])
        result[1] = all(v == [x, 1, -x])
        result[2] = any(v != [x, 0, -x])
        result[3] = any([x, 0, 1] == v)
        result[4] = all(qd.math.isinf(qd.Vector([qd.math.inf, -qd.math.inf])) == [1, 1])
        result[5] = all(v + [1, 1, 1] > [x, 0, -x])

    run(2.5)
    np.testing.assert_array_equal(result.to_numpy(), [1, 0, 0, 1, 1, 1])
