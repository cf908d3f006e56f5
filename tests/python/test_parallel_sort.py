# tests/python/test_parallel_sort.py: qd.algorithms.parallel_sort on fields and ndarrays, checked against numpy.
"""parallel_sort sorts 1-D keys ascending in place and permutes values alongside; it is stable, so the
expected permutation is numpy's stable argsort, and float keys order -0.0 before 0.0."""

import warnings

import numpy as np
import pytest

import quadrants as qd

_NP = {qd.i8: np.int8, qd.i16: np.int16, qd.i32: np.int32, qd.i64: np.int64, qd.u8: np.uint8, qd.u16: np.uint16,
       qd.u32: np.uint32, qd.u64: np.uint64, qd.f16: np.float16, qd.f32: np.float32, qd.f64: np.float64}


@pytest.fixture(autouse=True)
def _fresh_runtime():
    qd.init()
    yield
    qd.reset()


def _sort(keys, values=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        qd.algorithms.parallel_sort(keys, values)


def _field_of(array, dtype, offset=None):
    field = qd.field(dtype, array.shape[0], offset=offset)
    field.from_numpy(array)
    return field


def _random_keys(dtype, n, seed):
    rng = np.random.default_rng(seed)
    np_type = _NP[dtype]
    if np.issubdtype(np_type, np.floating):
        return (rng.standard_normal(n) * 100).astype(np_type)
    info = np.iinfo(np_type)
    return rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np_type)


def _check_sorted(keys, values, original_keys):
    order = np.argsort(original_keys, kind="stable")
    np.testing.assert_array_equal(keys.to_numpy(), original_keys[order])
    if values is not None:
        np.testing.assert_array_equal(values.to_numpy(), order)


@pytest.mark.parametrize("dtype", [qd.i8, qd.i16, qd.i32, qd.i64, qd.u8, qd.u16, qd.u32, qd.u64, qd.f16, qd.f32,
                                   qd.f64])
@pytest.mark.parametrize("n", [2, 257, 5001])
def test_keys_of_every_dtype_sort_like_numpy_with_values_alongside(dtype, n):
    original = _random_keys(dtype, n, seed=n)
    keys = _field_of(original, dtype)
    values = _field_of(np.arange(n, dtype=np.int32), qd.i32)
    _sort(keys, values)
    _check_sorted(keys, values, original)


def test_negative_integers_and_extremes():
    original = np.array([5, -1, 2**31 - 1, 0, -(2**31), -7, 3, -1], dtype=np.int32)
    keys = _field_of(original, qd.i32)
    _sort(keys)
    np.testing.assert_array_equal(keys.to_numpy(), np.sort(original))


def test_float_specials_order_as_ieee_total_order():
    tiny = np.float32(3e-45)  # a denormal
    original = np.array([1.5, -0.0, np.inf, -2.0, 0.0, -np.inf, -0.0, tiny, -tiny, 0.0], dtype=np.float32)
    keys = _field_of(original, qd.f32)
    values = _field_of(np.arange(original.size, dtype=np.int32), qd.i32)
    _sort(keys, values)
    got = keys.to_numpy()
    np.testing.assert_array_equal(got, np.array([-np.inf, -2.0, -tiny, -0.0, -0.0, 0.0, 0.0, tiny, 1.5, np.inf],
                                                 dtype=np.float32))
    np.testing.assert_array_equal(np.signbit(got[3:7]), [True, True, False, False])
    np.testing.assert_array_equal(values.to_numpy(), [5, 3, 8, 1, 6, 4, 9, 7, 0, 2])  # equal keys keep their order


def test_nan_keys_go_last():
    original = np.array([2.0, np.nan, -1.0, 0.5], dtype=np.float64)
    keys = _field_of(original, qd.f64)
    _sort(keys)
    got = keys.to_numpy()
    np.testing.assert_array_equal(got[:3], [-1.0, 0.5, 2.0])
    assert np.isnan(got[3])


def test_sort_is_stable_on_many_duplicates():
    n = 20011
    original = np.random.default_rng(1).integers(-3, 4, size=n).astype(np.int32)
    keys = _field_of(original, qd.i32)
    values = _field_of(np.arange(n, dtype=np.int32), qd.i32)
    _sort(keys, values)
    _check_sorted(keys, values, original)


def test_empty_and_single_element():
    # qd.field() and qd.ndarray() refuse a zero extent, as upstream; an array taken in through DLPack can be empty.
    empty = qd.from_dlpack(np.zeros(0, np.float32))
    _sort(empty, qd.from_dlpack(np.zeros(0, np.int32)))
    assert empty.to_numpy().shape == (0,)
    single = _field_of(np.array([-4.25], dtype=np.float32), qd.f32)
    values = _field_of(np.array([7], dtype=np.int32), qd.i32)
    _sort(single, values)
    assert single[0] == -4.25 and values[0] == 7


@pytest.mark.parametrize("keys_offset, values_offset", [(-23333, -23333), (7, -3), (0, 128)])
def test_fields_with_offsets(keys_offset, values_offset):
    n = 1001
    original = _random_keys(qd.f32, n, seed=3)
    keys = _field_of(original, qd.f32, offset=keys_offset)
    values = _field_of(np.arange(n, dtype=np.int32), qd.i32, offset=values_offset)
    _sort(keys, values)
    _check_sorted(keys, values, original)
    assert keys[keys_offset] == original.min()


def test_large_sort_matches_numpy():
    n = 100001
    original = _random_keys(qd.i32, n, seed=5)
    keys = _field_of(original, qd.i32)
    values = _field_of(np.arange(n, dtype=np.int32), qd.i32)
    _sort(keys, values)
    _check_sorted(keys, values, original)


def test_ndarrays_sort_in_place():
    n = 3001
    original = _random_keys(qd.f64, n, seed=9)
    keys = qd.ndarray(qd.f64, n)
    keys.from_numpy(original)
    values = qd.ndarray(qd.i32, n)
    values.from_numpy(np.arange(n, dtype=np.int32))
    _sort(keys, values)
    _check_sorted(keys, values, original)


def test_vector_values_move_with_their_keys():
    original = np.array([3, -1, 2, -1], dtype=np.int32)
    keys = _field_of(original, qd.i32)
    values = qd.Vector.field(2, qd.f32, 4)
    values.from_numpy(np.stack([original, original * 10], axis=1).astype(np.float32))
    _sort(keys, values)
    np.testing.assert_array_equal(values.to_numpy(), [[-1, -10], [-1, -10], [2, 20], [3, 30]])


def test_keys_sort_alone_and_warn_as_deprecated_upstream():
    original = np.array([4, 1, 3], dtype=np.uint32)
    keys = _field_of(original, qd.u32)
    with pytest.warns(DeprecationWarning, match="qd.algorithms.sort"):
        qd.algorithms.parallel_sort(keys)
    np.testing.assert_array_equal(keys.to_numpy(), [1, 3, 4])


def test_wrong_containers_are_rejected_with_their_shapes():
    with pytest.raises(TypeError, match=r"sorts a 1-D qd.field or qd.ndarray, but keys is .* of shape \(2, 2\)"):
        _sort(qd.field(qd.f32, (2, 2)))
    with pytest.raises(ValueError, match="values has 3 elements but keys has 4"):
        _sort(qd.field(qd.f32, 4), qd.field(qd.f32, 3))
    with pytest.raises(TypeError, match="sorts scalar keys"):
        _sort(qd.Vector.field(2, qd.f32, 4))
