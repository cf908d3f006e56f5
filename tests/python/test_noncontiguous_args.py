"""Kernel ndarray arguments that are strided numpy views or non-contiguous torch tensors are refused with
upstream Quadrants' ValueError (it used to be a deliberate extension of ours to read them in place); what upstream
accepts still runs: C order, Fortran order (numpy), views that are contiguous once size-1 dimensions are ignored,
0-d and empty arrays."""

import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


@qd.kernel
def fill1(img: qd.types.ndarray()):
    img[0] = 1


@qd.kernel
def double2(a: qd.types.ndarray(dtype=qd.f64, ndim=2)):
    for i, j in a:
        a[i, j] = a[i, j] * 2


def test_numpy_strided_view_is_refused_naming_the_argument():
    a = np.zeros(shape=(2, 2))[:, 0]
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported") as info:
        fill1(a)
    text = str(info.value)
    assert "img" in text and "np.ascontiguousarray" in text and "strides (2,)" in text
    assert (a == 0).all()  # nothing ran


def test_numpy_step_slice_and_2d_column_block_are_refused():
    base = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="Non contiguous numpy arrays"):
        fill1(np.zeros(8)[::2])
    with pytest.raises(ValueError, match="Non contiguous numpy arrays"):
        double2(base[:, 1:3])
    # a numpy subclass takes the buffer-protocol path and is refused there too, as upstream (isinstance)
    class Sub(np.ndarray):
        pass

    with pytest.raises(ValueError, match="Non contiguous numpy arrays"):
        double2(np.zeros((4, 4)).view(Sub)[:, ::2])
    sub = np.ones((2, 2)).view(Sub)
    double2(sub)
    assert (np.asarray(sub) == 2).all()


def test_numpy_arrays_upstream_accepts_still_run():
    c = np.arange(6.0).reshape(2, 3)
    double2(c)
    assert (c == np.arange(6.0).reshape(2, 3) * 2).all()
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))  # upstream copies it and copies back
    double2(f)
    assert (f == np.arange(6.0).reshape(2, 3) * 2).all()
    t = np.arange(6.0).reshape(3, 2).T  # a transpose is Fortran order
    double2(t)
    assert (t == np.arange(6.0).reshape(3, 2).T * 2).all()
    row = np.arange(8.0).reshape(2, 4)[1:2, :]  # one row of a matrix: contiguous
    double2(row)
    assert (row == [[8.0, 10.0, 12.0, 14.0]]).all()
    col = np.zeros((3, 4))[:, 1:2]  # a (3, 1) column: neither order, refused as upstream
    with pytest.raises(ValueError, match="Non contiguous numpy arrays"):
        double2(col)
    empty = np.zeros((0, 3))
    double2(empty)


def test_torch_non_contiguous_tensor_is_refused_naming_the_argument():
    torch = pytest.importorskip("torch")

    @qd.kernel
    def copy(x: qd.types.ndarray(), y: qd.types.ndarray()):
        for i, j in x:
            y[i, j] = x[i, j]

    x = torch.Tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).T
    y = qd.ndarray(int, (3, 3))
    with pytest.raises(ValueError, match=r"Non contiguous tensors are not supported") as info:
        copy(x, y)
    text = str(info.value)
    assert "'x'" in text and ".contiguous()" in text and "strides (1, 3)" in text
    with pytest.raises(ValueError, match=r"Non contiguous tensors"):
        fill1(torch.zeros(8)[::2])
    copy(x.contiguous(), y)
    assert (y.to_numpy() == x.numpy()).all()


def test_torch_tensors_upstream_accepts_still_run():
    torch = pytest.importorskip("torch")
    t = torch.arange(8, dtype=torch.float64).reshape(2, 4)[1:2, :]  # contiguous once the size-1 dim is ignored
    double2(t)
    assert t.tolist() == [[8.0, 10.0, 12.0, 14.0]]
    e = torch.zeros((0, 3), dtype=torch.float64).T.T
    double2(e)
