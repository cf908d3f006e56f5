# benchmarks/soak.py: long runs that must not grow: a Genesis-shaped step loop, and launches with fresh template values.
"""Soak test (issue 34): memory must stay flat over long runs. Not part of CI (minutes); a short slice of each
part runs in tests/python/test_soak_slice.py.

    python benchmarks/soak.py steps [--steps 10000] [--sample 500]
    python benchmarks/soak.py templates [--launches 100000] [--distinct-code]

`steps`: a step shaped like a Genesis step: a data_oriented solver with vector fields and ndarrays, seven
kernels per step (clear forces, pairwise forces over a neighbour window, gravity through a template
parameter, integrate, a boundary collision, an energy reduction into a 0-d field, and a copy into an
ndarray read back every 100 steps), stepped N times. Resident memory (VmRSS), memory mappings and the
compiled-kernel count are sampled every --sample steps; after warm-up (the first sample) resident memory
must stay within --slack-kib (exit status 1 otherwise).

`templates`: launches of one kernel with a fresh template value each time (an int nobody had passed before).
Each is a new specialization: compiled, or, since the value does not reach the generated code, loaded from
the disk cache. Reports the compiled-kernel count, the kernel's specialization entries, resident memory and
mappings along the way. --distinct-code makes the value part of the code (a new C++ compile per launch:
pass a small --launches).
"""
import argparse
import os
import sys
import time

import numpy as np

import quadrants as qd


def resident_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def mappings():
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


def compiled_kernels():
    return qd.lang.impl.get_runtime().get_num_compiled_functions()


@qd.data_oriented
class Solver:
    """Particles on a line of springs: enough kernels, fields and ndarrays per step to look like a solver step."""

    def __init__(self, n):
        self.n = n
        self.pos = qd.Vector.field(3, qd.f32, shape=n)
        self.vel = qd.Vector.field(3, qd.f32, shape=n)
        self.force = qd.Vector.field(3, qd.f32, shape=n)
        self.mass = qd.ndarray(qd.f32, shape=n)
        self.energy = qd.field(qd.f32, shape=())
        self.out = qd.ndarray(qd.f32, shape=(n, 3))
        self.mass.from_numpy(np.linspace(1.0, 2.0, n, dtype=np.float32))
        self.pos.from_numpy(np.stack([np.arange(n, dtype=np.float32), np.zeros(n, np.float32),
                                      np.ones(n, np.float32)], axis=1))

    @qd.kernel
    def clear_forces(self):
        for i in self.force:
            self.force[i] = qd.Vector([0.0, 0.0, 0.0])

    @qd.kernel
    def spring_forces(self, stiffness: qd.f32, rest: qd.f32):
        for i in range(self.n):
            for d in qd.static(range(-2, 3)):
                j = i + d
                if d != 0 and 0 <= j < self.n:
                    delta = self.pos[j] - self.pos[i]
                    length = delta.norm() + 1e-6
                    self.force[i] += stiffness * (length - rest * abs(d)) * delta / length

    @qd.kernel
    def gravity(self, g: qd.template(), mass: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(self.n):
            self.force[i][2] -= g * mass[i]

    @qd.kernel
    def integrate(self, dt: qd.f32, mass: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(self.n):
            self.vel[i] = 0.999 * (self.vel[i] + dt * self.force[i] / mass[i])
            self.pos[i] += dt * self.vel[i]

    @qd.kernel
    def collide(self):
        for i in range(self.n):
            if self.pos[i][2] < 0.0:
                self.pos[i][2] = 0.0
                self.vel[i][2] = -0.5 * self.vel[i][2]

    @qd.kernel
    def kinetic_energy(self, mass: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        self.energy[None] = 0.0
        for i in range(self.n):
            self.energy[None] += 0.5 * mass[i] * self.vel[i].norm_sqr()

    @qd.kernel
    def export(self, out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i in range(self.n):
            for d in qd.static(range(3)):
                out[i, d] = self.pos[i][d]

    def step(self, dt=1e-3):
        self.clear_forces()
        self.spring_forces(100.0, 1.0)
        self.gravity(9.8, self.mass)
        self.integrate(dt, self.mass)
        self.collide()
        self.kinetic_energy(self.mass)
        self.export(self.out)


def soak_steps(steps, sample, slack_kib, n=1024):
    solver = Solver(n)
    samples = []
    started = time.perf_counter()
    for step in range(1, steps + 1):
        solver.step()
        if step % 100 == 0:
            positions = solver.out.to_numpy()  # a read back, as a viewer or a policy would
            if not np.isfinite(positions).all():
                raise RuntimeError(f"soak: positions went non-finite at step {step}")
        if step % sample == 0:
            samples.append((step, resident_kib(), mappings(), compiled_kernels()))
    seconds = time.perf_counter() - started
    print(f"steps: {steps} steps of 7 kernels ({n} particles) in {seconds:.1f} s "
          f"({seconds / steps * 1e6:.0f} us/step); energy {solver.energy[None]:.4g}")
    print("  step   VmRSS KiB   maps   compiled kernels")
    for step, rss, maps, compiled in samples:
        print(f"  {step:6d} {rss:10d} {maps:6d} {compiled:8d}")
    warm = samples[0][1]
    peak_growth = max(rss for _, rss, _, _ in samples) - warm
    print(f"after warm-up (step {samples[0][0]}): resident memory grew by at most {peak_growth} KiB "
          f"(allowed {slack_kib}); mappings {samples[0][2]} -> {samples[-1][2]}; compiled kernels "
          f"{samples[0][3]} -> {samples[-1][3]}")
    return peak_growth <= slack_kib and samples[0][3] == samples[-1][3]


def soak_templates(launches, distinct_code, report_every):
    if distinct_code:
        @qd.kernel
        def scaled(a: qd.types.ndarray(dtype=qd.i32, ndim=1), k: qd.template()):
            for i in range(a.shape[0]):
                a[i] = k
    else:
        @qd.kernel
        def scaled(a: qd.types.ndarray(dtype=qd.i32, ndim=1), k: qd.template()):
            for i in range(a.shape[0]):
                a[i] = 7  # k does not reach the code: every specialization is the same library

    a = np.zeros(8, dtype=np.int32)
    entries = scaled._qd_kernel._instances
    print(f"templates: {launches} launches, each with a template value never passed before "
          f"({'in' if distinct_code else 'not in'} the generated code)")
    print("  launches   compiled   entries   VmRSS KiB    maps   s")
    started, base = time.perf_counter(), resident_kib()
    for k in range(1, launches + 1):
        scaled(a, k)
        if a[0] != (k if distinct_code else 7):
            raise RuntimeError(f"soak: launch {k} computed {a[0]}")
        if k % report_every == 0 or k == launches:
            print(f"  {k:8d} {compiled_kernels():10d} {len(entries):9d} {resident_kib():11d} {mappings():7d} "
                  f"{time.perf_counter() - started:5.0f}", flush=True)
    grown = resident_kib() - base
    print(f"resident memory grew {grown} KiB over {launches} specializations ({grown * 1024 / launches:.0f} B each)")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["steps", "templates"])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--slack-kib", type=int, default=2048, help="allowed growth of VmRSS after warm-up")
    parser.add_argument("--launches", type=int, default=100_000)
    parser.add_argument("--distinct-code", action="store_true")
    parser.add_argument("--report-every", type=int, default=10_000)
    args = parser.parse_args()
    qd.init(arch=qd.cpu)
    if args.part == "steps":
        ok = soak_steps(args.steps, args.sample, args.slack_kib)
    else:
        ok = soak_templates(args.launches, args.distinct_code, args.report_every)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
