# scripts/wheel_smoke.py: the kernels scripts/check_wheel.sh runs from an installed wheel, on numpy and torch.
#
# Usage: wheel_smoke.py [--from-cache] numpy|torch ...   With --from-cache no C++ compiler may be in reach
# (CXX unset, none on PATH), so every kernel must load from the disk cache an earlier run filled.
import os
import shutil
import sys

import numpy as np

import quadrants as qd


@qd.kernel
def saxpy(a: qd.f32, x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in x:
        y[i] = a * x[i] + y[i]


@qd.kernel
def fill_rows(out: qd.types.ndarray(ndim=2), scale: qd.template()):
    for i, j in qd.ndrange(out.shape[0], out.shape[1]):
        out[i, j] = scale * i + j


def run_numpy():
    x = np.arange(100_000, dtype=np.float32)
    y = np.ones_like(x)
    saxpy(2.0, x, y)
    np.testing.assert_array_equal(y, 2 * x + 1)
    grid = np.zeros((3, 4), dtype=np.float32)
    fill_rows(grid, 10)
    np.testing.assert_array_equal(grid, 10 * np.arange(3)[:, None] + np.arange(4)[None, :])


def run_torch():
    import torch

    x = torch.arange(1000, dtype=torch.float32)
    y = torch.ones_like(x)
    saxpy(3.0, x, y)
    torch.testing.assert_close(y, 3 * torch.arange(1000, dtype=torch.float32) + 1)

    @qd.torch_op("wheel_smoke::saxpy")
    def saxpy_op(a: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = y.clone()
        saxpy(a, x, out)
        return out

    torch.testing.assert_close(saxpy_op(0.5, x, torch.zeros_like(x)), 0.5 * x)


def main(args):
    from_cache = "--from-cache" in args
    targets = [a for a in args if a != "--from-cache"]
    assert qd.__file__.startswith(sys.prefix), f"imported {qd.__file__}, not the wheel installed in {sys.prefix}"
    if from_cache:
        assert "CXX" not in os.environ and shutil.which("c++") is None, "a C++ compiler is reachable"
    qd.init(arch=qd.cpu)
    for target in targets:
        {"numpy": run_numpy, "torch": run_torch}[target]()
    how = "from the disk cache, with no compiler" if from_cache else "compiled"
    print(f"[wheel_smoke] quadrants {qd.__version__}: kernels on {' and '.join(targets)} ran, {how}")


if __name__ == "__main__":
    main(sys.argv[1:])
