# tests/programs/taichi/odop_solar.py: a data_oriented solar system with a staticmethod qd.func, 8 planets.
# Adapted from Taichi's python/taichi/examples/simulation/odop_solar.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; the GUI loop replaced by 100 frames; the start and final states
# saved.
import math
import os

import numpy as np

import quadrants as qd

qd.init()


@qd.data_oriented
class SolarSystem:
    def __init__(self, n, dt):  # Initializer of the solar system simulator
        self.n = n
        self.dt = dt
        self.x = qd.Vector.field(2, dtype=qd.f32, shape=n)
        self.v = qd.Vector.field(2, dtype=qd.f32, shape=n)
        self.center = qd.Vector.field(2, dtype=qd.f32, shape=())

    @staticmethod
    @qd.func
    def random_vector(radius):  # Create a random vector in circle
        theta = qd.random() * 2 * math.pi
        r = qd.random() * radius
        return r * qd.Vector([qd.cos(theta), qd.sin(theta)])

    @qd.kernel
    def initialize_particles(self):
        # (Re)initialize particle position/velocities
        for i in range(self.n):
            offset = self.random_vector(0.5)
            self.x[i] = self.center[None] + offset  # Offset from center
            self.v[i] = [-offset.y, offset.x]  # Perpendicular to offset
            self.v[i] += self.random_vector(0.02)  # Random velocity noise
            self.v[i] *= 1 / offset.norm() ** 1.5  # Kepler's third law

    @qd.func
    def gravity(self, pos):  # Compute gravity at pos
        offset = -(pos - self.center[None])
        return offset / offset.norm() ** 3

    @qd.kernel
    def integrate(self):  # Semi-implicit Euler time integration
        for i in range(self.n):
            self.v[i] += self.dt * self.gravity(self.x[i])
            self.x[i] += self.dt * self.v[i]


def main():
    global solar

    solar = SolarSystem(8, 0.0001)
    solar.center[None] = [0.5, 0.5]
    solar.initialize_particles()

    x0, v0 = solar.x.to_numpy(), solar.v.to_numpy()
    for frame in range(100):
        for _ in range(10):  # Time integration
            solar.integrate()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "odop_solar.npz"),
        x0=x0,
        v0=v0,
        x=solar.x.to_numpy(),
        v=solar.v.to_numpy(),
    )


if __name__ == "__main__":
    main()
