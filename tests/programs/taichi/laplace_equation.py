# tests/programs/taichi/laplace_equation.py: potential flow (stream, dipole, vortex) tracing points; a
# struct field.
# Adapted from Taichi's python/taichi/examples/simulation/laplace_equation.py (Apache-2.0, the Taichi
# authors; see ../NOTICE). Changed: taichi -> quadrants; the GUI and its event handling removed, 100 frames;
# points and arrows saved.
import os

import numpy as np

import quadrants as qd
import quadrants.math as tm

qd.init()
vec2 = tm.vec2

# Author: bismarckkk
# 2D-Simulation of fundamental solutions of Laplace equation
# Refer to "Aerodynamics" Chapter 3 (ISBN:9787030582287)

# Pressing left mouse button with 's/v/d' key will create new 'source/vortex/dipole' on cursor position,
#   and pressing right mouse button will create negative one.
# Pressing left and right mouse buttons will delete element around cursor position.
# Pressing left/right mouse button without other keys will increase/decrease the intensity of element around cursor.

screen = (
    30,
    20,
)  # density of point generation positions on the boundary, also decide window size
arrowField = [int(it / 2) for it in screen]  # number of arrow in window
meshSpace = 20  # screen * meshSpace = windowSize
maxElements = 20  # the max number of each element(source/sink, vortex, dipole)
refillFrame = 20  # frame interval for each refill points
refillVelThresh = (
    0.2  # points will be refilled when the absolute value of the velocity on boundary is greater than this value
)
V = vec2(1.0, 0)  # the velocity of uniform stream
dt = 0.002
fadeMax = 10  # frames of fade in/out
fade = fadeMax  # control arrows' fade in and fade out
maxPoints = screen[0] * screen[1] * 2
guiHeight = meshSpace * screen[1]

points = qd.Vector.field(2, float, maxPoints)
sources = qd.Struct.field({"pos": vec2, "q": qd.f32}, shape=maxElements)
vortexes = qd.Struct.field({"pos": vec2, "q": qd.f32}, shape=maxElements)
dipoles = qd.Struct.field({"pos": vec2, "m": qd.f32}, shape=maxElements)
arrows = qd.Struct.field({"base": vec2, "dir": vec2, "vel": qd.f32}, shape=arrowField)
points.fill(-100)


def initPoints():
    for x, y in qd.ndrange(*arrowField):
        arrows[x, y].base = vec2(
            (x + 1) * (1 - 1 / arrowField[0]) / arrowField[0],
            (y + 1) * (1 - 1 / arrowField[1]) / arrowField[1],
        )
    dipoles[0].pos = vec2(0.5, 0.5)
    dipoles[0].m = 0.01
    vortexes[0].pos = vec2(0.5, 0.5)
    vortexes[0].q = -0.5


@qd.func
def getVel(pos):
    vel = V  # add uniform stream velocity
    for i in range(maxElements):
        # add source/sink velocity
        uv = pos - sources[i].pos
        uv[0] *= screen[1] / screen[0]
        vel += uv * sources[i].q / (2 * tm.pi * (uv[0] ** 2 + uv[1] ** 2))
        # add vortex velocity
        uv = pos - vortexes[i].pos
        uv = vec2(-uv[1], uv[0])
        uv[0] *= screen[1] / screen[0]
        vel += uv * vortexes[i].q / (2 * tm.pi * (uv[0] ** 2 + uv[1] ** 2))
        # add dipole velocity
        uv = pos - dipoles[i].pos
        uv[0] *= screen[1] / screen[0]
        vel_t = vec2(uv[1] ** 2 - uv[0] ** 2, -2 * uv[0] * uv[1])
        vel += vel_t * dipoles[i].m / (uv[0] ** 2 + uv[1] ** 2) ** 2
    return vel


# @param.boundary: 0: left, 1: bottom, 2: right, 3: top
# @param.index: last access point index
@qd.func
def refillPointsOnOneBoundary(boundary, index):
    pointsNumber = screen[0]
    if boundary == 0 or boundary == 2:
        pointsNumber = screen[1]
    for i in range(pointsNumber):
        found = False
        for _ in range(maxPoints):
            if points[index][0] == -100:
                found = True
                if boundary == 0:
                    points[index] = vec2(-dt * refillVelThresh, (i + 0.5) / screen[1])
                elif boundary == 1:
                    points[index] = vec2((i + 0.5) / screen[0], -dt * refillVelThresh)
                elif boundary == 2:
                    points[index] = vec2(1 + dt * refillVelThresh, (i + 0.5) / screen[1])
                elif boundary == 3:
                    points[index] = vec2((i + 0.5) / screen[0], 1 + dt * refillVelThresh)
                break
            index += 1
            if index >= maxPoints:
                index = 0
        if not found:
            break
    return index


@qd.kernel
def refillPoints():
    # traverse positions and refill points on the boundary.
    # if the normal velocity is less than thresh, refill point will be deleted when update.
    index = 0
    found = True
    qd.loop_config(serialize=True)
    for i in range(4):
        _index = refillPointsOnOneBoundary(i, index)
        if _index == index:
            break
        else:
            index = _index


@qd.kernel
def updatePoints():
    for i in points:
        if points[i][0] != -100:
            vel = getVel(points[i])
            points[i] += vel * dt
        if not (0 <= points[i][0] <= 1 and 0 <= points[i][1] <= 1):
            points[i] = vec2(-100, -100)
        for j in range(maxElements):
            if sources[j].q < 0 and tm.length(points[i] - sources[j].pos) < 0.025:
                points[i] = vec2(-100, -100)
            if dipoles[j].m != 0 and tm.length(points[i] - dipoles[j].pos) < 0.05:
                points[i] = vec2(-100, -100)


@qd.kernel
def updateArrows():
    for x, y in qd.ndrange(*arrowField):
        vel = getVel(arrows[x, y].base)
        arrows[x, y].vel = vel.norm()
        arrows[x, y].dir = vel / vel.norm() / meshSpace / 1.5


if __name__ == "__main__":
    initPoints()
    updateArrows()
    refillPoints()
    refillCount = 0
    frame_count = 0
    for frame in range(100):
        updatePoints()
        ps = points.to_numpy()
        if refillCount > refillFrame:
            refillCount = 0
            refillPoints()
        refillCount += 1
        frame_count += 1
    arr = arrows.to_numpy()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "laplace_equation.npz"),
        points=points.to_numpy(),
        arrow_dir=arr["dir"],
        arrow_vel=arr["vel"],
    )
