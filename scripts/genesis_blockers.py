#!/usr/bin/env python3
# scripts/genesis_blockers.py: minimal reproducers of the open Genesis blockers (docs/genesis_status.md), each
# reported as OPEN (with its error) or WORKS (with its result), so whoever fixes one sees it flip.
"""Reproducers of the Genesis blockers that belong to the kernel frontend.

    .venv/bin/python scripts/genesis_blockers.py

The numbers are those of docs/genesis_status.md. A reproducer that runs prints WORKS and its result: compare it
with upstream's, given in the comment beside each, before calling the blocker fixed.
"""
import dataclasses
import math

import numpy as np

import quadrants as qd


def blocker_1():  # qd.Tensor dataclass members and kernel parameters taking qd.tensor()'s wrappers: [1. 1. 1. 1.]
    @dataclasses.dataclass(frozen=True)
    class Info:
        x: qd.Tensor

    @qd.kernel
    def k(info: Info, y: qd.Tensor):
        for i in range(info.x.shape[0]):
            y[i] = info.x[i] + 1

    y = qd.tensor(qd.f32, 4, backend=qd.Backend.FIELD)
    k(Info(qd.tensor(qd.f32, 4)), y)
    return y.to_numpy()


def blocker_3():  # element_dim=1 splits a numpy array's last axis into vectors: [1.732] * 4
    @qd.kernel
    def k(v: qd.types.ndarray(element_dim=1), out: qd.types.ndarray()):
        for i in range(v.shape[0]):
            out[i] = v[i].norm()

    out = np.zeros(4, np.float32)
    k(np.ones((4, 3), np.float32), out)
    return out


def blocker_8():  # `x = qd.static(v)` keeps the Python value: [1]
    @qd.kernel
    def k(x: qd.types.ndarray()):
        flag = qd.static(True)
        if qd.static(flag):
            x[0] = 1

    x = np.zeros(1, np.int32)
    k(x)
    return x


def blocker_9():  # v.fill(x) on a vector element, in place: [[2. 2. 2.]]
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.math.vec3)):
        x[0].fill(2.0)

    x = np.zeros((1, 3), np.float32)
    k(x)
    return x


def blocker_10():  # a matrix row slice m[1, :]: [3.]
    @qd.kernel
    def k(x: qd.types.ndarray()):
        m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
        row = m[1, :]
        x[0] = row[0]

    x = np.zeros(1, np.float32)
    k(x)
    return x


def blocker_12():  # a conditional expression between tuples, used as an index: x[2, 1] == 1
    @qd.kernel
    def k(x: qd.types.ndarray(), a: qd.i32, b: qd.i32):
        x[(a, b) if a > b else (b, a)] = 1

    x = np.zeros((3, 3), np.int32)
    k(x, 1, 2)
    return x.tolist()


def blocker_13():  # float() of a compile-time value stays a Python float: [3.1415927]
    @qd.kernel
    def k(x: qd.types.ndarray()):
        x[0] = qd.static(float(math.pi)) + 0.0  # `x[0] = qd.static(...)` alone is an error upstream (static assign)

    x = np.zeros(1, np.float32)
    k(x)
    return x


def blocker_14():  # qd.Matrix.rows() of kernel vectors: [-1.]
    @qd.kernel
    def k(x: qd.types.ndarray()):
        a = qd.Vector([1.0, 2.0])
        m = qd.Matrix.rows([a, -a])
        x[0] = m[1, 0]

    x = np.zeros(1, np.float32)
    k(x)
    return x


def blocker_17():  # a kernel local passed to a qd.template() func parameter is passed by reference: 1
    @qd.func
    def add_one(ret: qd.template()):
        ret += 1

    @qd.kernel
    def k() -> qd.i32:
        total = 0
        add_one(total)
        return total

    return k()


def main():
    qd.init(arch=qd.cpu)
    for name, reproducer in globals().items():
        if not name.startswith("blocker_"):
            continue
        try:
            print(f"WORKS {name}: {reproducer()}")
        except Exception as exc:  # noqa: BLE001 - the error is the report
            print(f"OPEN  {name}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")


if __name__ == "__main__":
    main()
