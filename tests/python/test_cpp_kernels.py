# tests/python/test_cpp_kernels.py: hand-written C++ kernels called from Python on numpy, torch and qd arrays.
import numpy as np
import pytest

import quadrants as qd


@qd.cpp_kernel("""
    double axpy_sum(qd::Ndarray<double, 1> y, qd::Ndarray<double, 1> x, double a) {
        qd::parallel_for(y.shape(0), [&](int64_t i) { y(i) += a * x(i); });
        double total = 0;
        for (int64_t i = 0; i < y.shape(0); ++i) total += y(i);
        return total;
    }
""")
def axpy_sum(y: qd.types.ndarray(dtype=qd.f64, ndim=1), x: qd.types.ndarray(dtype=qd.f64, ndim=1), a: qd.f64) -> qd.f64:
    ...


@qd.cpp_kernel("""
    void normalize(qd::Ndarray<float, 2> v) {  // a vector ndarray: one outer dim plus the element dim
        for (int64_t i = 0; i < v.shape(0); ++i) {
            float n = 0;
            for (int64_t k = 0; k < v.shape(1); ++k) n += v(i, k) * v(i, k);
            for (int64_t k = 0; k < v.shape(1); ++k) v(i, k) /= __builtin_sqrtf(n);
        }
    }
""")
def normalize(v: qd.types.ndarray(dtype=qd.types.vector(3, qd.f32), ndim=1)) -> None:
    ...


@pytest.fixture(autouse=True)
def cpu_runtime():
    qd.init(arch=qd.cpu)


def test_numpy_arrays_are_updated_in_place_and_the_value_returned():
    y = np.ones(100_000)
    x = np.arange(100_000, dtype=np.float64)
    total = axpy_sum(y, x, 2.0)
    np.testing.assert_array_equal(y, 1 + 2 * x)
    assert total == pytest.approx(float(y.sum()))


def test_torch_tensors_and_strided_views():
    torch = pytest.importorskip("torch")
    y = torch.zeros(10, dtype=torch.float64)
    base = np.zeros(20)
    axpy_sum(y, torch.arange(10, dtype=torch.float64), 1.0)
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):  # as Python kernels
        axpy_sum(base[::2], np.arange(10, dtype=np.float64), 3.0)
    axpy_sum(qd.from_dlpack(base[::2]), np.arange(10, dtype=np.float64), 3.0)  # a strided view through DLPack
    assert y.tolist() == list(range(10))
    np.testing.assert_array_equal(base[::2], 3 * np.arange(10))
    assert not base[1::2].any()


@pytest.mark.cpu_only
def test_vector_ndarrays_see_their_element_dims():
    v = qd.Vector.ndarray(3, qd.f32, shape=2)
    v.from_numpy(np.array([[3, 0, 4], [0, 2, 0]], dtype=np.float32))
    normalize(v)
    np.testing.assert_allclose(v.to_numpy(), [[0.6, 0, 0.8], [0, 1, 0]], rtol=1e-6)


def test_argument_checks_come_from_the_launcher():
    with pytest.raises(TypeError, match="argument 'y': expected dtype f64, but got f32"):
        axpy_sum(np.zeros(3, np.float32), np.zeros(3), 1.0)
    read_only = np.zeros(3)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="argument 'x' is read-only"):
        axpy_sum(np.zeros(3), read_only, 1.0)


def test_interface_needs_dtype_and_ndim():
    with pytest.raises(TypeError, match="give qd.types.ndarray\\(dtype=..., ndim=...\\) both a dtype and an ndim"):
        @qd.cpp_kernel("void f(qd::Ndarray<float, 1> x) {}")
        def f(x: qd.types.ndarray()) -> None:
            ...


def test_compile_errors_show_the_compiler_message_and_the_users_line():
    @qd.cpp_kernel("""
        void broken(qd::Ndarray<float, 1> x) {
            x(0) = undefined_name;
        }
    """)
    def broken(x: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> None:
        ...

    with pytest.raises(RuntimeError) as info:
        broken(np.zeros(1, np.float32))
    message = str(info.value)
    assert "undefined_name" in message
    assert "broken.cpp:2" in message  # the line inside the user's source
