# python/quadrants/library/math_transforms.py: qd.math's 2-d and homogeneous 3-d transforms (translate, scale,
# rotations, vdir), as @qd.func's for kernels.
#
# Upstream's 4x4 rotations act on row vectors (v @ M): each is the transpose of the textbook column-vector
# matrix, i.e. the textbook rotation by the opposite angle. rot_yaw_pitch_roll(yaw, pitch, roll) rotates about
# Y by yaw, then X by pitch, then Z by roll; rotation3d(x, y, z) is rot_yaw_pitch_roll(z, x, y), as upstream.
from quadrants.frontend import builtins as _b
from quadrants.frontend.funcs import func
from quadrants.types.annotations import VectorType

_vec2 = VectorType((2,), None)
_mat2 = VectorType((2, 2), None)
_mat4 = VectorType((4, 4), None)


@func
def translate(dx, dy, dz):
    """The 4x4 homogeneous matrix that moves a point by (dx, dy, dz) (column vectors)."""
    return _mat4([[1.0, 0.0, 0.0, dx], [0.0, 1.0, 0.0, dy], [0.0, 0.0, 1.0, dz], [0.0, 0.0, 0.0, 1.0]])


@func
def scale(sx, sy, sz):
    """The 4x4 homogeneous matrix that scales x, y and z by sx, sy and sz."""
    return _mat4([[sx, 0.0, 0.0, 0.0], [0.0, sy, 0.0, 0.0], [0.0, 0.0, sz, 0.0], [0.0, 0.0, 0.0, 1.0]])


@func
def rotation2d(ang):
    """The 2x2 counter-clockwise rotation by ang radians."""
    c, s = _b.cos(ang), _b.sin(ang)
    return _mat2([[c, -s], [s, c]])


@func
def vdir(ang):
    """The 2-d unit vector at angle ang radians from the x axis."""
    return _vec2(_b.cos(ang), _b.sin(ang))


@func
def rot_by_axis(axis, ang):
    """The 4x4 rotation by ang radians about axis (normalized here), for row vectors: Rodrigues' matrix for
    the angle -ang."""
    u = axis.normalized()
    c, s = _b.cos(ang), _b.sin(ang)
    t = 1.0 - c
    return _mat4([
        [c + t * u[0] * u[0], t * u[0] * u[1] + s * u[2], t * u[0] * u[2] - s * u[1], 0.0],
        [t * u[1] * u[0] - s * u[2], c + t * u[1] * u[1], t * u[1] * u[2] + s * u[0], 0.0],
        [t * u[2] * u[0] + s * u[1], t * u[2] * u[1] - s * u[0], c + t * u[2] * u[2], 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ])


@func
def rot_yaw_pitch_roll(yaw, pitch, roll):
    """The 4x4 rotation about Y by yaw, then X by pitch, then Z by roll (radians), for row vectors:
    (Ry(yaw) @ Rx(pitch) @ Rz(roll)) transposed, with the textbook Rx, Ry, Rz."""
    cy, sy = _b.cos(yaw), _b.sin(yaw)
    cp, sp = _b.cos(pitch), _b.sin(pitch)
    cr, sr = _b.cos(roll), _b.sin(roll)
    return _mat4([
        [cy * cr + sy * sp * sr, cp * sr, cy * sp * sr - sy * cr, 0.0],
        [sy * sp * cr - cy * sr, cp * cr, cy * sp * cr + sy * sr, 0.0],
        [sy * cp, -sp, cy * cp, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ])


@func
def rotation3d(ang_x, ang_y, ang_z):
    """rot_yaw_pitch_roll(ang_z, ang_x, ang_y): upstream's argument order for the same rotation."""
    return rot_yaw_pitch_roll(ang_z, ang_x, ang_y)
