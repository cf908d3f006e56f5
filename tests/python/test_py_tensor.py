# tests/python/test_py_tensor.py: quadrants.lang._py_tensor.PyTensor, upstream's torch tensor with a batch shape.
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from quadrants.lang._py_tensor import PyTensor, create_tensor  # noqa: E402


def test_shape_is_batch_shape_and_size_is_storage():
    t = create_tensor((5, 3, 3), torch.float64, batch_ndim=1)
    assert t.shape == torch.Size([5]) and t.size() == torch.Size([5, 3, 3]) and t.dtype == torch.float64
    assert create_tensor((2, 3), torch.float32).shape == torch.Size([2, 3])
    assert PyTensor([1.0, 2.0]).shape == torch.Size([2])  # no batch shape set: the size


def test_views_share_storage():
    t = create_tensor((3, 4, 2), torch.float32, batch_ndim=2)
    assert t._tc is t
    t._T_np[2, 1] = [7.0, 8.0]  # _T_tc puts the last batch dimension first
    assert t[1, 2].tolist() == [7.0, 8.0]
    assert t._np.shape == (3, 4, 2) and t._T_tc.size() == torch.Size([4, 3, 2])


def test_bad_batch_ndim_names_the_argument():
    with pytest.raises(ValueError, match=r"batch_ndim must be between 0 and len\(shape\)=2, got 3"):
        create_tensor((2, 3), torch.float32, batch_ndim=3)


def test_indexing_with_index_vectors_and_numpy_values():
    t = create_tensor((3, 2, 3), torch.float32, batch_ndim=2)
    index = PyTensor(torch.tensor([1, 0]))
    t[index] = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    assert t[1, 0, 2].item() == 3.0 and t[index].tolist() == [1.0, 2.0, 3.0]
    assert t[torch.tensor(1), 0, 1].item() == 2.0  # a 0-d tensor index is an int
    assert [*PyTensor(torch.tensor([2, 3]))] == [2, 3] and all(type(v) is int for v in PyTensor([4.0, 5.0]))
    assert create_tensor((), torch.float32)[0] == 0.0  # kernels index a 0-d field with [0]


def test_transpose_and_foreign_subclasses():
    m = PyTensor([[1, 2, 3], [4, 5, 6]])
    assert m.transpose().tolist() == [[1, 4], [2, 5], [3, 6]]
    with pytest.raises(ValueError, match="needs a 2-d tensor, got 1-d"):
        PyTensor([1.0]).transpose()

    class Other(torch.Tensor):
        pass

    mixed = PyTensor([1.0, 2.0]) + Other([10.0, 20.0])
    assert not isinstance(mixed, PyTensor) and mixed.tolist() == [11.0, 22.0]


def test_setitem_error_names_the_key_and_value():
    t = create_tensor((2,), torch.float32)
    with pytest.raises(TypeError, match=r"PyTensor\[0\] = 'x' \(a str\)"):
        t[0] = "x"
