# examples/cpp/export_saxpy.py: writes saxpy.qdir, the IR of a Python kernel, for the C++ program beside it.
import os

import numpy as np

import quadrants as qd


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f32:
    total = 0.0
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]
        total += y[i]
    return total


if __name__ == "__main__":
    qd.init(arch=qd.cpu)
    example = np.zeros(4, dtype=np.float32)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "saxpy.qdir")
    text = saxpy.export_ir(2.0, example, example)
    with open(path, "w") as f:  # the source path only feeds #line directives: keep it relative
        f.write(text.replace(os.path.dirname(path) + os.sep, ""))
    print(f"wrote {path}")
