# tests/python/test_pitfalls.py: the second seed's lessons as warnings: float64 vs float32, and autograd.
import warnings

import numpy as np
import pytest

import quadrants as qd
from quadrants.kernels.pitfalls import AutogradWarning, PrecisionWarning

torch = pytest.importorskip("torch")


@qd.kernel
def double_it(x: qd.types.ndarray(), y: qd.types.ndarray()) -> None:
    for i in range(x.shape[0]):
        y[i] = 2 * x[i]


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)  # drops compiled specializations, so every test sees a first call


@pytest.mark.cpu_only
def test_float64_numpy_among_float32_warns_once_naming_both():
    y = np.zeros(4, np.float32)
    with pytest.warns(PrecisionWarning) as record:
        double_it(np.ones(4), y)  # np.ones defaults to float64
    message = str(record[0].message)
    assert "float64 array(s) 'x' together with float32 array(s) 'y'" in message
    assert "dtype=np.float32" in message
    assert record[0].filename == __file__  # points at the user's call, not at quadrants
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        double_it(np.ones(4), y)  # same specialization: no second warning
    np.testing.assert_array_equal(y, 2.0)


@pytest.mark.cpu_only  # on CUDA, the host arrays it passes warn that they are staged
def test_consistent_dtypes_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        double_it(np.ones(4, np.float32), np.zeros(4, np.float32))
        double_it(np.ones(4), np.zeros(4))  # all float64 is a deliberate choice


def test_tensor_requiring_grad_while_recording_warns():
    x = torch.ones(4, requires_grad=True)
    y = torch.zeros(4)
    with pytest.warns(AutogradWarning, match="'x' that require grad while autograd is recording"):
        double_it(x, y)
    assert y.tolist() == [2.0] * 4


def test_no_grad_and_autograd_function_do_not_warn():
    x = torch.ones(4, requires_grad=True)

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            out = torch.zeros_like(inp)
            double_it(inp, out)  # forward runs with grad mode off
            return out

        @staticmethod
        def backward(ctx, grad):
            return 2 * grad

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.no_grad():
            double_it(x, torch.zeros(4))
        qd.init(arch=qd.cpu)
        Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0] * 4
