# tests/python/test_backends_kernels.py: one piece of backend array code plus a kernel, on every CPU backend.
import numpy as np
import pytest

import quadrants as qd


@qd.kernel
def damped_wave(x: qd.types.ndarray(), out: qd.types.ndarray(), k: qd.f32) -> None:
    for i, j in qd.ndrange(x.shape[0], x.shape[1]):
        out[i, j] = qd.exp(-k * x[i, j]) * qd.cos(3.0 * x[i, j])


def pipeline(b):
    """Array code written once against the Backend API, with a kernel in the middle."""
    grid_x, grid_y = b.meshgrid(b.linspace(0, 1, 48, dtype="float32"), b.linspace(0, 2, 32, dtype="float32"))
    radius = b.sqrt(grid_x * grid_x + grid_y * grid_y)
    out = b.zeros(radius.shape, dtype="float32")
    damped_wave(radius, out, 0.5)  # zero-copy: the kernel writes the backend's own array
    return b.to_numpy(b.sum(out, axis=0)), out


def test_same_result_on_every_cpu_backend(array_backend):
    qd.init(arch=qd.cpu)
    got, out = pipeline(array_backend)
    assert qd.backend_of(out).lib is array_backend.lib
    gx, gy = np.meshgrid(np.linspace(0, 1, 48, dtype=np.float32), np.linspace(0, 2, 32, dtype=np.float32))
    r = np.sqrt(gx * gx + gy * gy)
    expected = (np.exp(-0.5 * r) * np.cos(3.0 * r)).sum(axis=0)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_numpy_and_torch_backends_agree():
    pytest.importorskip("torch")
    import quadrants.backends as backends

    qd.init(arch=qd.cpu)
    from_numpy, _ = pipeline(backends.create_numpy_backend())
    from_torch, _ = pipeline(backends.create_torch_backend("cpu"))
    np.testing.assert_allclose(from_numpy, from_torch, rtol=1e-5, atol=1e-5)
