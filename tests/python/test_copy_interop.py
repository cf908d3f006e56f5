# tests/python/test_copy_interop.py: to_numpy/from_numpy/to_torch/from_torch on fields and ndarrays.
import itertools
import re

import numpy as np
import pytest
import torch

import quadrants as qd

ALL_DTYPES = [qd.u1, qd.i8, qd.i16, qd.i32, qd.i64, qd.u8, qd.u16, qd.u32, qd.u64, qd.f16, qd.f32, qd.f64]


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _values(dtype, shape):
    """Distinct values representable in dtype (booleans alternate)."""
    count = int(np.prod(shape))
    if dtype is qd.u1:
        return (np.arange(count) % 2 == 0).reshape(shape)
    return (np.arange(count) % 100).astype(dtype.numpy).reshape(shape)


CONTAINERS = {
    "field": lambda dtype, shape: qd.field(dtype, shape=shape),
    "ndarray": lambda dtype, shape: qd.ndarray(dtype, shape=shape),
}


# --- round trips -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(CONTAINERS))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_numpy_round_trip_every_dtype(kind, dtype):
    x = CONTAINERS[kind](dtype, (3, 5))
    values = _values(dtype, (3, 5))
    x.from_numpy(values)
    out = x.to_numpy()
    assert out.dtype == dtype.numpy
    np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("kind", sorted(CONTAINERS))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_torch_round_trip_every_dtype(kind, dtype):
    x = CONTAINERS[kind](dtype, (4, 2))
    values = torch.from_numpy(_values(dtype, (4, 2)))
    x.from_torch(values)
    out = x.to_torch()
    assert out.dtype == dtype.torch and out.device.type == "cpu"
    assert torch.equal(out, values)
    assert torch.equal(x.to_torch(device="cpu"), values)


def test_to_numpy_returns_an_independent_copy():
    x = qd.ndarray(qd.f32, shape=3)
    x.fill(1.0)
    out = x.to_numpy()
    out[:] = 5.0
    assert x.to_numpy().tolist() == [1.0, 1.0, 1.0]
    x.fill(2.0)
    assert out.tolist() == [5.0, 5.0, 5.0]


def test_to_torch_returns_an_independent_copy():
    x = qd.field(qd.i32, shape=3)
    out = x.to_torch()
    out += 4
    assert x.to_numpy().tolist() == [0, 0, 0]


def test_to_numpy_with_a_wider_dtype():
    x = qd.ndarray(qd.f32, shape=2)
    x.fill(0.5)
    out = x.to_numpy(dtype=qd.f64)
    assert out.dtype == np.float64 and out.tolist() == [0.5, 0.5]


def test_to_numpy_into_an_unsafe_dtype_names_both_dtypes():
    with pytest.raises(TypeError, match="to_numpy: cannot convert f32 data into a i32 array"):
        qd.ndarray(qd.f32, shape=2).to_numpy(dtype=qd.i32)


def test_zero_size_round_trip():
    x = qd.Vector.ndarray(4, qd.f32, shape=0)  # qd.ndarray() refuses a zero extent, as upstream
    x.from_numpy(np.zeros((0, 4), np.float32))
    x.from_torch(torch.zeros(0, 4))
    assert x.to_numpy().shape == (0, 4)
    assert x.to_torch().shape == (0, 4)


def test_zero_dimensional_round_trip():
    x = qd.field(qd.f64, shape=())
    x.from_numpy(np.array(2.5))
    assert x.to_numpy().shape == () and x.to_numpy() == 2.5
    x.from_torch(torch.tensor(-1.0, dtype=torch.float64))
    assert x[None] == -1.0 and x.to_torch().shape == ()


# --- vector and matrix fields, keep_dims -------------------------------------------------------------
def test_matrix_field_shape_from_the_seed():
    m = qd.Matrix.field(3, 2, qd.f32, shape=(4,))
    values = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    m.from_numpy(values)
    np.testing.assert_array_equal(m.to_numpy(), values)
    assert m[2].to_list() == values[2].tolist()
    assert torch.equal(m.to_torch(), torch.from_numpy(values))


def test_vector_field_numpy_shape_appends_n():
    v = qd.Vector.field(3, qd.i32, shape=(2, 5))
    values = np.arange(30, dtype=np.int32).reshape(2, 5, 3)
    v.from_numpy(values)
    np.testing.assert_array_equal(v.to_numpy(), values)
    assert v[1, 4] == values[1, 4].tolist()
    v.from_torch(torch.from_numpy(values) * 2)
    assert torch.equal(v.to_torch(), torch.from_numpy(values) * 2)


def test_vector_and_matrix_ndarrays_round_trip():
    v = qd.Vector.ndarray(2, qd.f64, shape=(3,))
    values = np.arange(6, dtype=np.float64).reshape(3, 2)
    v.from_numpy(values)
    np.testing.assert_array_equal(v.to_numpy(), values)
    m = qd.Matrix.ndarray(2, 2, qd.i16, shape=(3,))
    m.from_torch(torch.arange(12, dtype=torch.int16).reshape(3, 2, 2))
    assert m.to_numpy().tolist() == np.arange(12).reshape(3, 2, 2).tolist()


def test_n_by_1_matrix_field_drops_the_unit_column_unless_keep_dims():
    m = qd.Matrix.field(3, 1, qd.f32, shape=(2,))
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    m.from_numpy(values)
    np.testing.assert_array_equal(m.to_numpy(), values)
    np.testing.assert_array_equal(m.to_numpy(keep_dims=True), values.reshape(2, 3, 1))
    assert tuple(m.to_torch().shape) == (2, 3)
    assert tuple(m.to_torch(keep_dims=True).shape) == (2, 3, 1)
    m.from_numpy(values.reshape(2, 3, 1) + 1)  # the kept-dims layout is accepted back
    np.testing.assert_array_equal(m.to_numpy(), values + 1)


def test_vector_field_keep_dims_appends_a_unit_column_as_in_quadrants():
    v = qd.Vector.field(3, qd.f32, shape=(2,))
    assert v.to_numpy(keep_dims=True).shape == (2, 3, 1)
    assert tuple(v.to_torch(keep_dims=True).shape) == (2, 3, 1)
    v.from_numpy(np.ones((2, 3, 1), np.float32))
    assert (v.to_numpy() == 1).all()


def test_1_by_n_matrix_field_keeps_its_unit_row_as_in_quadrants():
    m = qd.Matrix.field(1, 3, qd.f32, shape=(2,))
    assert m.to_numpy().shape == (2, 1, 3)


# --- dtype conversion: numpy's same_kind ------------------------------------------------------------
PAIRS = list(itertools.product(ALL_DTYPES, ALL_DTYPES))


@pytest.mark.parametrize("src, dst", PAIRS, ids=[f"{s.name}->{d.name}" for s, d in PAIRS])
def test_from_numpy_follows_numpys_same_kind_rule(src, dst):
    values = _values(src, (4,))
    x = qd.ndarray(dst, shape=4)
    if np.can_cast(src.numpy, dst.numpy, casting="same_kind"):
        x.from_numpy(values)
        np.testing.assert_array_equal(x.to_numpy(), values.astype(dst.numpy))
    else:
        with pytest.raises(TypeError, match=f"from_numpy: cannot convert {src.name} data into a {dst.name} array"):
            x.from_numpy(values)


def test_from_torch_follows_same_kind_and_names_both_dtypes():
    x = qd.field(qd.f32, shape=3)
    x.from_torch(torch.tensor([1.5, 2.5, 3.5], dtype=torch.float64))
    assert x.to_numpy().tolist() == [1.5, 2.5, 3.5]
    with pytest.raises(TypeError, match="from_torch: cannot convert f32 data into a i32 array"):
        qd.field(qd.i32, shape=3).from_torch(torch.zeros(3))


def test_float64_into_an_f32_field_is_fine():
    f = qd.field(qd.f32, shape=(2,))
    f.from_numpy(np.array([0.1, 1e40]))
    assert f.to_numpy()[0] == np.float32(0.1)
    assert np.isinf(f.to_numpy()[1])


@pytest.mark.parametrize("source", ["complex64", "complex128"])
def test_complex_into_real_names_both_dtypes(source):
    with pytest.raises(TypeError, match=f"from_numpy: cannot convert {source} data into a f64 field"):
        qd.field(qd.f64, shape=2).from_numpy(np.zeros(2, source))
    with pytest.raises(TypeError, match=f"from_torch: cannot convert torch.{source} data into a f32 ndarray"):
        qd.ndarray(qd.f32, shape=2).from_torch(torch.zeros(2, dtype=getattr(torch, source)))


@pytest.mark.parametrize("source", [np.dtype(object), np.dtype("U3"), np.dtype("datetime64[s]")])
def test_non_numeric_numpy_sources_name_both_dtypes(source):
    with pytest.raises(TypeError, match=re.escape(f"from_numpy: cannot convert {source} data into a i64 ndarray")):
        qd.ndarray(qd.i64, shape=2).from_numpy(np.zeros(2, source))


def test_bfloat16_tensor_names_both_dtypes():
    with pytest.raises(TypeError, match="from_torch: cannot convert torch.bfloat16 data into a f32 field"):
        qd.field(qd.f32, shape=2).from_torch(torch.zeros(2, dtype=torch.bfloat16))


# --- bad input ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_from_numpy_shape_mismatch_names_both_shapes(kind):
    x = CONTAINERS[kind](qd.f32, (4, 4))
    message = r"from_numpy: shape mismatch: the destination has shape \(4, 4\) but the source has shape \(3, 4\)"
    with pytest.raises(ValueError, match=message):
        x.from_numpy(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"destination has shape \(4, 4\) but the source has shape \(16,\)"):
        x.from_numpy(np.zeros(16, np.float32))


@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_from_torch_shape_mismatch_names_both_shapes(kind):
    message = r"from_torch: shape mismatch: the destination has shape \(2, 3\) but the source has shape \(3, 2\)"
    with pytest.raises(ValueError, match=message):
        CONTAINERS[kind](qd.f32, (2, 3)).from_torch(torch.zeros(3, 2))


def test_vector_field_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"destination has shape \(4, 3\) but the source has shape \(4, 2\)"):
        qd.Vector.field(3, qd.f32, shape=4).from_numpy(np.zeros((4, 2), np.float32))


@pytest.mark.parametrize("argument", [[1.0, 2.0], (1.0, 2.0), 3.0, None, "ab"])
def test_from_numpy_of_a_non_array_names_its_type(argument):
    with pytest.raises(TypeError, match=f"from_numpy\\(\\) expects a numpy.ndarray, but got {type(argument).__name__}"):
        qd.field(qd.f32, shape=2).from_numpy(argument)


@pytest.mark.parametrize("argument", [np.zeros(2, np.float32), [1.0, 2.0], None])
def test_from_torch_of_a_non_tensor_names_its_type(argument):
    with pytest.raises(TypeError, match=f"from_torch\\(\\) expects a torch.Tensor, but got {type(argument).__name__}"):
        qd.ndarray(qd.f32, shape=2).from_torch(argument)


def test_failed_copies_leave_the_destination_unchanged():
    x = qd.ndarray(qd.i32, shape=3)
    x.fill(5)
    for bad in (np.zeros(4, np.int32), np.zeros(3, np.float32), np.zeros(3, np.complex64)):
        with pytest.raises((ValueError, TypeError)):
            x.from_numpy(bad)
    assert x.to_numpy().tolist() == [5, 5, 5]


# --- non-contiguous sources --------------------------------------------------------------------------
def _base():
    return np.arange(60, dtype=np.float32).reshape(6, 10)


NUMPY_VIEWS = {
    "transpose": lambda a: a.T,
    "column slice": lambda a: a[:, 2:7],
    "step slice": lambda a: a[::2, 1::3],
    "negative strides": lambda a: a[::-1, ::-1],
    "negative step": lambda a: a[::-2, 8:1:-2],
    "broadcast": lambda a: np.broadcast_to(a[0], (4, 10)),
    "fortran": lambda a: np.asfortranarray(a),
    "field of a record": lambda a: np.rec.fromarrays([a, a.astype(np.int16)], names="x,y")["x"],
    "byte offset": lambda a: a.ravel()[1:].reshape(59)[:50].reshape(5, 10),
}


@pytest.mark.parametrize("view", sorted(NUMPY_VIEWS))
@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_non_contiguous_numpy_sources_are_copied_correctly(kind, view):
    source = NUMPY_VIEWS[view](_base())
    before = source.copy()
    x = CONTAINERS[kind](qd.f32, source.shape)
    x.from_numpy(source)
    np.testing.assert_array_equal(x.to_numpy(), source)
    np.testing.assert_array_equal(source, before)  # only read


def test_byte_swapped_numpy_sources_are_copied_correctly():
    source = np.arange(6, dtype=">f4").reshape(2, 3)
    x = qd.ndarray(qd.f32, shape=(2, 3))
    x.from_numpy(source)
    np.testing.assert_array_equal(x.to_numpy(), source)


TORCH_VIEWS = {
    "transpose": lambda t: t.T,
    "permute": lambda t: t.reshape(2, 3, 10).permute(2, 0, 1),
    "step slice": lambda t: t[::2, 1::3],
    "expand": lambda t: t[0].expand(4, 10),
    "storage offset": lambda t: t[1:5, 3:9],
    "negated view": lambda t: t.neg().T,
    "requires grad": lambda t: (t.requires_grad_() * 1).T,
}


@pytest.mark.parametrize("view", sorted(TORCH_VIEWS))
@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_non_contiguous_torch_sources_are_copied_correctly(kind, view):
    source = TORCH_VIEWS[view](torch.from_numpy(_base()))
    expected = source.detach().clone()
    x = CONTAINERS[kind](qd.f32, tuple(source.shape))
    x.from_torch(source)
    assert torch.equal(x.to_torch(), expected)
    assert torch.equal(source.detach(), expected)


def test_conjugate_view_of_a_real_tensor_is_copied():
    source = torch.arange(4.0).conj()
    x = qd.ndarray(qd.f32, shape=4)
    x.from_torch(source)
    assert x.to_numpy().tolist() == [0, 1, 2, 3]


def test_non_contiguous_source_into_a_vector_field():
    source = np.arange(24, dtype=np.float64).reshape(3, 4, 2).transpose(1, 0, 2)  # shape (4, 3, 2)
    v = qd.Matrix.field(3, 2, qd.f32, shape=(4,))
    v.from_numpy(source)
    np.testing.assert_array_equal(v.to_numpy(), source.astype(np.float32))


def test_from_numpy_does_not_write_into_a_read_only_source():
    source = np.arange(5, dtype=np.int32)
    source.flags.writeable = False
    x = qd.ndarray(qd.i32, shape=5)
    x.from_numpy(source)
    x.fill(0)
    assert source.tolist() == [0, 1, 2, 3, 4]
    assert x.to_numpy().tolist() == [0] * 5
