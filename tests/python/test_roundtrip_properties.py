# tests/python/test_roundtrip_properties.py: property-based copy and DLPack round trips (hypothesis).
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import quadrants as qd

ALL_DTYPES = [qd.u1, qd.i8, qd.i16, qd.i32, qd.i64, qd.u8, qd.u16, qd.u32, qd.u64, qd.f16, qd.f32, qd.f64]
# torch has no arithmetic for uint16/32/64 but copies them; every dtype goes through from_torch.
FAST = settings(max_examples=50, deadline=None)

dtypes = st.sampled_from(ALL_DTYPES)
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=5)


@pytest.fixture(scope="module", autouse=True)
def runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def arrays_of(dtype, shape):
    # NaNs compare unequal, so they are kept out; infinities and signed zeros stay in.
    return hnp.arrays(dtype.numpy, shape, elements={"allow_nan": False} if dtype.numpy.kind == "f" else None)


@st.composite
def views(draw, dtype, shape):
    """A view of shape `shape` over a larger array: sliced with random steps and signs, maybe transposed."""
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
    base_shape = tuple(max(n, 1) * abs(step) for n, step in zip(shape, steps))
    base = draw(arrays_of(dtype, base_shape))
    # The leading Ellipsis keeps a 0-d result an array rather than a numpy scalar.
    view = base[(Ellipsis,) + tuple(slice(None, None, step) for step in steps)]
    view = view[(Ellipsis,) + tuple(slice(0, n) for n in shape)]
    axes = draw(st.permutations(range(len(shape))))
    return np.transpose(view, axes)


def _container(kind, dtype, shape, element_shape=()):
    if kind == "field":
        if len(element_shape) == 2:
            return qd.Matrix.field(*element_shape, dtype, shape=shape)
        if len(element_shape) == 1:
            return qd.Vector.field(*element_shape, dtype, shape=shape)
        return qd.field(dtype, shape=shape)
    if len(element_shape) == 2:
        return qd.Matrix.ndarray(*element_shape, dtype, shape=shape)
    if len(element_shape) == 1:
        return qd.Vector.ndarray(*element_shape, dtype, shape=shape)
    return qd.ndarray(dtype, shape=shape)


kinds = st.sampled_from(["field", "ndarray"])


@FAST
@given(kind=kinds, dtype=dtypes, data=st.data(), shape=shapes)
def test_numpy_round_trip(kind, dtype, data, shape):
    values = data.draw(arrays_of(dtype, shape))
    x = _container(kind, dtype, shape)
    x.from_numpy(values)
    out = x.to_numpy()
    assert out.dtype == dtype.numpy and out.shape == shape
    np.testing.assert_array_equal(out, values)


@FAST
@given(kind=kinds, dtype=dtypes, data=st.data(), shape=shapes)
def test_torch_round_trip(kind, dtype, data, shape):
    values = data.draw(arrays_of(dtype, shape))
    x = _container(kind, dtype, shape)
    x.from_torch(torch.from_numpy(values.copy()))
    out = x.to_torch()
    assert out.dtype == dtype.torch and tuple(out.shape) == shape
    np.testing.assert_array_equal(out.numpy(), values)


@FAST
@given(kind=kinds, dtype=dtypes, data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_non_contiguous_views_round_trip(kind, dtype, data, shape):
    view = data.draw(views(dtype, shape))
    before = view.copy()
    x = _container(kind, dtype, view.shape)
    x.from_numpy(view)
    np.testing.assert_array_equal(x.to_numpy(), before)
    np.testing.assert_array_equal(view, before)  # the source was only read


@FAST
@given(
    kind=kinds,
    dtype=dtypes,
    data=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
    element_shape=st.one_of(
        st.tuples(st.integers(1, 4)), st.tuples(st.integers(2, 4), st.integers(2, 4))
    ),
)
def test_vector_and_matrix_round_trip(kind, dtype, data, shape, element_shape):
    # Element shapes without unit dims, so keep_dims does not change the numpy shape.
    values = data.draw(arrays_of(dtype, shape + element_shape))
    x = _container(kind, dtype, shape, element_shape)
    x.from_numpy(values)
    np.testing.assert_array_equal(x.to_numpy(), values)
    x.from_torch(torch.from_numpy(values.copy()))
    np.testing.assert_array_equal(x.to_torch().numpy(), values)
    if shape and all(shape):
        index = tuple(n - 1 for n in shape)
        assert x[index] == values[index].tolist()


@FAST
@given(dtype=dtypes, data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_matrix_field_with_a_unit_column_round_trips_through_both_layouts(dtype, data, shape):
    values = data.draw(arrays_of(dtype, shape + (3,)))
    m = qd.Matrix.field(3, 1, dtype, shape=shape)
    m.from_numpy(values)
    np.testing.assert_array_equal(m.to_numpy(), values)
    np.testing.assert_array_equal(m.to_numpy(keep_dims=True), values[..., None])


@pytest.mark.cpu_only
@FAST
@given(dtype=dtypes, data=st.data(), shape=shapes)
def test_dlpack_export_aliases(dtype, data, shape):
    values = data.draw(arrays_of(dtype, shape))
    x = qd.ndarray(dtype, shape=shape)
    x.from_numpy(values)
    alias = np.from_dlpack(x)
    np.testing.assert_array_equal(alias, values)
    np.testing.assert_array_equal(torch.from_dlpack(x).numpy(), values)
    if values.size:
        x.fill(1)
        assert (alias == np.ones((), dtype.numpy)).all()


@FAST
@given(dtype=dtypes, data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
def test_dlpack_import_of_views_aliases(dtype, data, shape):
    view = data.draw(views(dtype, shape))
    x = qd.from_dlpack(view)
    assert x.shape == view.shape and x.dtype is dtype
    np.testing.assert_array_equal(x.to_numpy(), view)
    if view.size:
        x.fill(0)
        assert not view.any()


@FAST
@given(src=dtypes, dst=dtypes, data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=4))
def test_conversions_match_numpy_same_kind(src, dst, data, shape):
    values = data.draw(arrays_of(src, shape))
    x = qd.ndarray(dst, shape=shape)
    if not np.can_cast(src.numpy, dst.numpy, casting="same_kind"):
        with pytest.raises(TypeError, match=f"cannot convert {src.name} data into a {dst.name} array"):
            x.from_numpy(values)
        return
    with np.errstate(all="ignore"):
        expected = values.astype(dst.numpy)
    x.from_numpy(values)
    np.testing.assert_array_equal(x.to_numpy(), expected)
