# examples/raymarch.py: a ray-marched signed-distance-field scene with soft shadows and ambient occlusion.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quadrants as qd  # noqa: E402
from gallery import parse_args  # noqa: E402
from png import write_png  # noqa: E402

vec3 = qd.math.vec3
FAR = 30.0


@qd.func
def sd_box(p, half, radius):
    q = qd.abs(p) - half
    return qd.math.length(qd.max(q, 0.0)) + qd.min(qd.max(q[0], qd.max(q[1], q[2])), 0.0) - radius


@qd.func
def sd_torus(p, big, small):
    ring = qd.Vector([p[0], p[2]]).norm() - big
    return qd.Vector([ring, p[1]]).norm() - small


@qd.func
def scene(p):
    """(distance, material) of the nearest surface: 0 floor, 1 sphere, 2 box, 3 torus."""
    d, material = p[1] + 1.0, 0
    sphere = (p - vec3(-1.6, 0.0, 0.0)).norm() - 1.0
    if sphere < d:
        d, material = sphere, 1
    box = sd_box(p - vec3(1.1, -0.3, 0.6), vec3(0.6, 0.7, 0.6), 0.1)
    if box < d:
        d, material = box, 2
    torus = sd_torus(p - vec3(0.3, -0.75, -1.6), 0.8, 0.25)
    if torus < d:
        d, material = torus, 3
    return d, material


@qd.func
def normal(p):
    e = 1e-3
    return qd.math.normalize(vec3(
        scene(p + vec3(e, 0, 0))[0] - scene(p - vec3(e, 0, 0))[0],
        scene(p + vec3(0, e, 0))[0] - scene(p - vec3(0, e, 0))[0],
        scene(p + vec3(0, 0, e))[0] - scene(p - vec3(0, 0, e))[0]))


@qd.func
def soft_shadow(origin, direction):
    """1 in full light, toward 0 where the ray toward the light passes close to a surface."""
    light, t = 1.0, 0.02
    for _ in range(48):
        h = scene(origin + direction * t)[0]
        light = qd.min(light, 12.0 * h / t)
        t += qd.math.clamp(h, 0.02, 0.5)
        if light < 0.01 or t > 12.0:
            break
    return qd.math.clamp(light, 0.0, 1.0)


@qd.func
def occlusion(p, n):
    dark = 0.0
    for i in range(1, 6):
        step = 0.06 * i
        dark += (step - scene(p + n * step)[0]) / (2.0**i)
    return qd.math.clamp(1.0 - 4.0 * dark, 0.0, 1.0)


@qd.func
def shade(origin, direction):
    sky = vec3(0.55, 0.7, 0.95) - 0.4 * direction[1]
    color = sky
    t = 0.0
    hit, material = False, 0
    for _ in range(160):
        d, m = scene(origin + direction * t)
        if d < 1e-3 * t:
            hit, material = True, m
            break
        t += d
        if t > FAR:
            break
    if hit:
        p = origin + direction * t
        n = normal(p)
        sun = qd.math.normalize(vec3(0.6, 0.8, 0.4))
        albedo = vec3(0.8, 0.25, 0.2)
        if material == 0:
            checker = (qd.floor(p[0] * 1.5) + qd.floor(p[2] * 1.5)) % 2.0
            albedo = vec3(0.35, 0.35, 0.38) + 0.3 * checker
        elif material == 2:
            albedo = vec3(0.2, 0.55, 0.3)
        elif material == 3:
            albedo = vec3(0.9, 0.7, 0.2)
        diffuse = qd.max(n.dot(sun), 0.0) * soft_shadow(p + n * 1e-3, sun)
        ambient = occlusion(p, n) * (0.5 + 0.5 * n[1])
        specular = qd.max(qd.math.reflect(direction, n).dot(sun), 0.0) ** 32 * diffuse
        color = albedo * (vec3(1.1, 1.0, 0.9) * diffuse + vec3(0.15, 0.2, 0.3) * ambient) + 0.3 * specular
        color = qd.math.mix(color, sky, 1.0 - qd.exp(-0.002 * t * t))  # distance fog
    return color


@qd.kernel
def render(image: qd.template(), eye: qd.types.vector(3, qd.f32), target: qd.types.vector(3, qd.f32)):
    height, width = image.shape
    forward = qd.math.normalize(target - eye)
    right = qd.math.normalize(forward.cross(vec3(0.0, 1.0, 0.0)))
    up = right.cross(forward)
    for y, x in image:
        u = (2.0 * (x + 0.5) - width) / height
        v = (2.0 * (y + 0.5) - height) / height
        direction = qd.math.normalize(forward * 1.8 + right * u + up * v)
        color = shade(eye, direction)
        image[y, x] = qd.pow(qd.math.clamp(color, 0.0, 1.0), 1.0 / 2.2)  # gamma


def main():
    args = parse_args("A ray-marched SDF scene.", "raymarch.png")
    qd.init(arch=getattr(qd, args.arch))
    height, width = (90, 120) if args.small else (480, 640)
    image = qd.Vector.field(3, qd.f32, shape=(height, width))
    render(image, vec3(0.5, 1.4, 5.5), vec3(0.0, -0.3, 0.0))
    rgb = (image.to_numpy()[::-1] * 255).astype(np.uint8)  # row 0 is the bottom of the view
    write_png(args.out, rgb)
    print(f"raymarch {width}x{height}: mean color {rgb.reshape(-1, 3).mean(axis=0).round(1)}; wrote {args.out}")


if __name__ == "__main__":
    main()
