# tests/python/test_misaligned_arrays.py: host arrays whose data is not aligned to their elements (numpy over a
# byte buffer at an odd offset, as dask and pickle protocol 5 deserialize them) run on an aligned copy.
import warnings

import numpy as np
import pytest

import quadrants as qd

# On a CUDA target host arrays are staged to the device anyway, which takes misaligned ones too.
COPIED = "not aligned to its .-byte elements, so every call copies it|is in host memory but the kernel runs on cuda"


def misaligned(values, dtype):
    """A numpy array of `values` whose data starts one byte past an aligned address."""
    values = np.asarray(values, dtype)
    raw = np.zeros(values.nbytes + 64, np.uint8)
    start = (-raw.ctypes.data) % 64 + 1
    out = raw[start:start + values.nbytes].view(dtype)
    out[...] = values
    assert out.ctypes.data % values.itemsize != 0
    return out


@qd.kernel
def double_in_place(x: qd.types.ndarray()):
    for i in x:
        x[i] = 2 * x[i]


@qd.kernel
def double_2d(x: qd.types.ndarray(ndim=2)):
    for i, j in x:
        x[i, j] = 2 * x[i, j]


@qd.kernel
def triple(x: qd.types.ndarray()):
    for i in x:
        x[i] = 3 * x[i]


@qd.kernel
def total(x: qd.types.ndarray(dtype=qd.f64, ndim=1)) -> qd.f64:
    s = 0.0
    for i in x:
        s += x[i]
    return s


def test_a_misaligned_array_is_read_and_written_through_a_copy():
    x = misaligned([1.5, -2.0, 3.25, 7.0], np.float32)
    with pytest.warns(RuntimeWarning, match="argument 'x'.*(" + COPIED + ")"):
        double_in_place(x)
    np.testing.assert_array_equal(x, [3.0, -4.0, 6.5, 14.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning is given once per parameter
        double_in_place(x)
    np.testing.assert_array_equal(x, [6.0, -8.0, 13.0, 28.0])


def test_a_misaligned_read_only_array_is_read():
    x = misaligned(np.arange(10), np.float64)
    x.flags.writeable = False
    with pytest.warns(RuntimeWarning, match=COPIED):
        assert total(x) == 45.0


def test_a_misaligned_fortran_ordered_array_gets_the_writes_back_in_place():
    base = misaligned(np.arange(24), np.int32).reshape(6, 4)
    view = base.T  # Fortran order (strided views in neither order are refused) and misaligned
    before = base.copy()
    with pytest.warns(RuntimeWarning, match=COPIED):
        double_2d(view)
    np.testing.assert_array_equal(base, before * 2)


def test_a_misaligned_torch_tensor_runs_too():
    torch = pytest.importorskip("torch")
    arr = misaligned([1, 2, 3, 4, 5], np.float32)
    t = torch.from_numpy(arr)
    assert t.data_ptr() % 4 != 0
    with pytest.warns(RuntimeWarning, match=COPIED):
        triple(t)
    assert t.tolist() == [3.0, 6.0, 9.0, 12.0, 15.0]
