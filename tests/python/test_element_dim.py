# qd.types.ndarray(element_dim=K) without an element shape: an external array's last K axes are the
# vector/matrix elements (Genesis blocker 3), a quadrants vector/matrix container must have K itself.
import numpy as np
import pytest

import quadrants as qd


@qd.kernel
def norms(v: qd.types.ndarray(element_dim=1), out: qd.types.ndarray()):
    for i in range(v.shape[0]):
        out[i] = v[i].norm()


@qd.kernel
def corners(m: qd.types.ndarray(element_dim=2), out: qd.types.ndarray()):
    for i in range(m.shape[0]):
        out[i] = m[i][0, 0] + m[i][0, m[i].m - 1] * 100


def test_numpy_vectors_of_any_length():
    out = np.zeros(2, np.float32)
    norms(np.array([[3, 4, 0], [0, 0, 2]], np.float32), out)
    np.testing.assert_allclose(out, [5, 2])
    norms(np.array([[6, 8], [1, 0]], np.float32), out)  # another length: a new specialization
    np.testing.assert_allclose(out, [10, 1])


def test_numpy_and_torch_matrices():
    m = np.array([[[1, 2], [3, 4]], [[5, 0], [0, 7]]], np.float64)
    out = np.zeros(2, np.float64)
    corners(m, out)
    np.testing.assert_array_equal(out, [1 + 200, 5])
    torch = pytest.importorskip("torch")
    t = torch.zeros(1, dtype=torch.float64)
    corners(torch.tensor([[[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]], dtype=torch.float64), t)
    assert t.item() == 1 + 300


def test_quadrants_vector_containers_still_work():
    v = qd.Vector.ndarray(2, qd.f32, 3)
    v.from_numpy(np.array([[3, 4], [0, 1], [5, 12]], np.float32))
    out = np.zeros(3, np.float32)
    norms(v, out)
    np.testing.assert_allclose(out, [5, 1, 13])


def test_a_container_of_the_wrong_element_kind_is_a_clear_error():
    with pytest.raises(TypeError, match="argument 'v': expected vector elements .element_dim=1., but got a "
                                        "container of matrices"):
        norms(qd.Matrix.ndarray(2, 2, qd.f32, 2), np.zeros(2, np.float32))


def test_an_array_with_too_few_axes_is_a_clear_error():
    with pytest.raises(ValueError, match="element_dim=2 takes the last 2 axes .* shape \\(3,\\)"):
        corners(np.zeros(3, np.float32), np.zeros(3, np.float32))


def test_element_extents_past_the_signature_limit_are_refused():
    with pytest.raises(ValueError, match="element extent is at most 65535"):
        norms(np.zeros((1, 70000), np.float32), np.zeros(1, np.float32))


def test_vector_and_matrix_types_without_sizes_as_ndarray_dtypes():
    @qd.kernel
    def ones(x: qd.types.NDArray[qd.types.vector(), 1]):
        for I in qd.grouped(x):
            x[I] = 1.0

    @qd.kernel
    def twos(x: qd.types.ndarray(dtype=qd.types.matrix(dtype=qd.f32), ndim=1)):
        for I in qd.grouped(x):
            x[I] = 2.0

    for n in (3, 2):
        v = qd.ndarray(qd.types.vector(n, qd.f32), 3)
        ones(v)
        np.testing.assert_array_equal(v.to_numpy(), np.ones((3, n)))
    m = qd.ndarray(qd.math.mat2, 2)
    twos(m)
    np.testing.assert_array_equal(m.to_numpy(), np.full((2, 2, 2), 2.0))
    with pytest.raises(TypeError, match="expected vector elements .element_dim=1., but got a container of matrices"):
        ones(qd.ndarray(qd.math.mat2, 3))
    with pytest.raises(TypeError, match="needs both sizes or neither"):
        qd.types.matrix(3)
