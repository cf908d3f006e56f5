# tests/programs/taichi/regression.py: cubic regression by gradient descent through qd.ad.Tape.
# Adapted from Taichi's python/taichi/examples/autodiff/regression.py (Apache-2.0, the Taichi authors; see
# ../NOTICE). Changed: taichi -> quadrants; 1000 -> 200 iterations; the plot removed; coeffs and loss saved.
import os
import random

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

number_coeffs = 4
learning_rate = 1e-4

N = 32
x, y = qd.field(qd.f32, shape=N, needs_grad=True), qd.field(qd.f32, shape=N, needs_grad=True)
coeffs = qd.field(qd.f32, shape=number_coeffs, needs_grad=True)
loss = qd.field(qd.f32, shape=(), needs_grad=True)


@qd.kernel
def regress():
    for i in x:
        v = x[i]
        est = 0.0
        for j in qd.static(range(number_coeffs)):
            est += coeffs[j] * (v**j)
        loss[None] += 0.5 * (y[i] - est) ** 2


@qd.kernel
def update():
    for i in qd.static(range(number_coeffs)):
        coeffs[i] -= learning_rate * coeffs.grad[i]


xs = []
ys = []


def initialize():
    for i in range(N):
        v = random.random() * 5 - 2.5
        xs.append(v)
        x[i] = v
        y[i] = (v - 1) * (v - 2) * (v + 2) + random.random() - 0.5

    regress()

    print("y")
    for i in range(N):
        y.grad[i] = 1
        ys.append(y[i])
    print()


def regress_raw():
    use_tape = True

    for i in range(200):
        if use_tape:
            with qd.ad.Tape(loss=loss):
                regress()
        else:
            qd.ad.clear_all_gradients()
            loss[None] = 0
            loss.grad[None] = 1
            regress()
            regress.grad()
        print("Loss =", loss[None])
        update()
        for j in range(number_coeffs):
            print(coeffs[j], end=", ")
        print()


def main():
    initialize()
    regress_raw()


if __name__ == "__main__":
    main()
    np.savez(
        os.environ.get("QD_PROGRAM_OUT", "regression.npz"),
        coeffs=coeffs.to_numpy(),
        loss=loss.to_numpy(),
    )
