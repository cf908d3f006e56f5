# tests/python/test_cuda_kernels.py: the kernel and interop suite on a GPU; skips cleanly without one.
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(
    _core.cuda_status() != "" or not torch.cuda.is_available(),
    reason=f"needs a CUDA device and torch with CUDA ({_core.cuda_status() or 'torch has no CUDA'})",
)


@qd.kernel
def square(inp: qd.types.ndarray(), out: qd.types.ndarray()) -> None:
    for i in range(32):
        out[i] = inp[i] * inp[i]


@qd.kernel
def add_one(x: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        x[i] += 1


@qd.kernel
def total(x: qd.types.ndarray()) -> qd.f32:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


@pytest.fixture(autouse=True)
def gpu_runtime():
    qd.init(arch=qd.gpu)
    assert _core.cuda_status() == ""


def test_seed_square_on_cuda_tensors():
    x = torch.ones(32, dtype=torch.float32, device="cuda:0") * 3.0
    y = torch.zeros(32, dtype=torch.float32, device="cuda:0")
    square(x, y)
    assert y[0].item() == 9.0


def test_seed_autograd_function_on_cuda():
    class Sqr(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            outp = torch.zeros_like(inp)
            ctx.save_for_backward(inp)
            square(inp, outp)
            return outp

        @staticmethod
        def backward(ctx, outp_grad):
            (inp,) = ctx.saved_tensors
            return 2 * inp * outp_grad

    x = torch.tensor([2.0] * 32, requires_grad=True, device="cuda:0")
    Sqr.apply(x).sum().backward()
    assert x.grad[0].item() == 4.0


def test_fields_live_on_the_device_and_copy_both_ways():
    f = qd.field(qd.f32, shape=(4, 4))
    f.from_numpy(np.ones((4, 4), dtype=np.float32) * 3.0)
    assert f.to_numpy()[0, 0] == 3.0
    t = f.to_torch(device="cuda:0")
    assert t.device.type == "cuda" and t[0, 0].item() == 3.0
    f.from_torch(torch.full((4, 4), 5.0, device="cuda:0"))
    assert f.to_torch(device="cpu")[0, 0].item() == 5.0
    f[1, 2] = 7.0
    assert f[1, 2] == 7.0


def test_strided_cuda_tensors_and_return_values():
    base = torch.zeros(64, device="cuda:0")
    add_one(base[::2])
    torch.cuda.synchronize()
    assert base[::2].sum().item() == 32 and base[1::2].sum().item() == 0
    assert total(torch.ones(1000, device="cuda:0")) == pytest.approx(1000.0)


def test_kernel_runs_on_torchs_current_stream():
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = torch.zeros(1 << 20, device="cuda:0")
        x.fill_(41.0)  # queued on `stream`; the kernel must see it without any synchronization by us
        add_one(x)
        y = x.clone()
    stream.synchronize()
    assert torch.all(y == 42.0).item()


def test_explicit_qd_stream_argument():
    stream = torch.cuda.Stream()
    x = torch.zeros(128, device="cuda:0")
    torch.cuda.synchronize()
    add_one(x, qd_stream=stream.cuda_stream)
    stream.synchronize()
    assert x.sum().item() == 128


def test_dlpack_export_to_torch_aliases_device_memory():
    a = qd.ndarray(qd.f32, shape=(8,))
    t = torch.from_dlpack(a)
    assert t.device.type == "cuda"
    t.fill_(2.0)
    torch.cuda.synchronize()
    assert a.to_numpy().tolist() == [2.0] * 8


def test_cupy_arrays_pass_zero_copy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(16, dtype=cupy.float32)
    add_one(x)
    cupy.cuda.get_current_stream().synchronize()
    assert float(x[3]) == 4.0
    a = qd.ndarray(qd.f32, shape=(4,))
    a.fill(1.5)
    assert cupy.from_dlpack(a).sum().item() == 6.0


def test_host_arrays_are_staged_with_one_warning():
    x = np.zeros(16, dtype=np.float32)
    with pytest.warns(RuntimeWarning, match="copied to the device on every call, and back when the kernel writes it"):
        add_one(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        add_one(x)
    assert x.tolist() == [2.0] * 16


def test_debug_bounds_checks_on_the_gpu():
    qd.init(arch=qd.cuda, debug=True)

    @qd.kernel
    def overrun(x: qd.types.ndarray()) -> None:
        for i in range(x.shape[0] + 1):
            x[i] = 1

    with pytest.raises(IndexError, match="Kernel 'overrun': index \\(4,\\) is out of bounds"):
        overrun(torch.zeros(4, device="cuda:0"))
