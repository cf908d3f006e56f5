# tests/python/test_backends_functions.py: every standardized function of quadrants.backends against numpy.
"""Each function runs on the numpy and torch-CPU backends with hypothesis-drawn inputs and must give
numpy's result: the same dtype, and values within that dtype's tolerance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]
FLOAT_DTYPES = ["float16", "float32", "float64"]
COMPLEX_DTYPES = ["complex64", "complex128"]
REAL_DTYPES = ["bool"] + INTEGER_DTYPES + FLOAT_DTYPES

FAST = settings(max_examples=15, deadline=None)


def elements(dtype):
    """Bounded elements: exact in every dtype, and small enough that libm differences stay in tolerance."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return st.booleans()
    if kind in "iu":
        return st.integers(0 if kind == "u" else -100, 100)
    width = np.dtype(dtype).itemsize * 8 // (2 if kind == "c" else 1)
    real = st.floats(-20, 20, width=width)
    return st.builds(complex, real, real) if kind == "c" else real


def arrays(dtype, min_dims=0, max_dims=3, min_side=0, max_side=4, shape=None):
    shape = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side) \
        if shape is None else shape
    return hnp.arrays(dtype, shape, elements=elements(dtype))


def with_dtype(dtypes, **shape_options):
    """Strategy of arrays whose dtype is drawn from `dtypes`."""
    return st.sampled_from(dtypes).flatmap(lambda dtype: arrays(dtype, **shape_options))


# Creation ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones"])
@FAST
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0), dtype=st.sampled_from([None] + REAL_DTYPES))
def test_zeros_ones(array_backend, matches_numpy, name, shape, dtype):
    matches_numpy(array_backend, name, lambda s, dtype: getattr(np, name)(s, dtype=dtype or "float64"),
                  shape, dtype=dtype)


@FAST
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0), dtype=st.sampled_from([None] + REAL_DTYPES))
def test_empty_has_numpy_shape_and_dtype(array_backend, shape, dtype):
    result = array_backend.empty(shape, dtype=dtype)
    assert tuple(result.shape) == np.empty(shape, dtype=dtype or "float64").shape
    assert array_backend.lib_to_str_dtypes[result.dtype] == (dtype or "float64")


@FAST
@given(start=st.integers(-20, 20), stop=st.integers(-20, 20), step=st.integers(1, 5), dtype=st.sampled_from([None, "int32", "float64"]))
def test_arange_integers(array_backend, matches_numpy, start, stop, step, dtype):
    matches_numpy(array_backend, "arange", np.arange, start, stop, step, dtype=dtype)
    matches_numpy(array_backend, "arange", np.arange, abs(stop))


@FAST
@given(start=st.floats(-10, 10), length=st.floats(0.5, 10), step=st.floats(0.25, 2))
def test_arange_floats_default_to_float64(array_backend, matches_numpy, start, length, step):
    matches_numpy(array_backend, "arange", np.arange, start, start + length, step)


@FAST
@given(start=st.floats(-10, 10), stop=st.floats(-10, 10), num=st.integers(0, 20), endpoint=st.booleans(),
       dtype=st.sampled_from([None, "float32", "float64", "int32"]))
def test_linspace(array_backend, matches_numpy, start, stop, num, endpoint, dtype):
    matches_numpy(array_backend, "linspace", np.linspace, start, stop, num, endpoint=endpoint, dtype=dtype)


@FAST
@given(vectors=st.lists(arrays("float64", shape=hnp.array_shapes(min_dims=1, max_dims=1)), min_size=1, max_size=3),
       indexing=st.sampled_from(["xy", "ij"]))
def test_meshgrid(array_backend, matches_numpy, vectors, indexing):
    matches_numpy(array_backend, "meshgrid", np.meshgrid, *vectors, indexing=indexing)


def test_meshgrid_defaults_to_xy(array_backend):
    x, y = array_backend.meshgrid(array_backend.arange(3), array_backend.arange(2))
    assert tuple(x.shape) == (2, 3)


@FAST
@given(a=with_dtype(REAL_DTYPES + COMPLEX_DTYPES))
def test_copy_is_independent(array_backend, matches_numpy, a):
    source = array_backend.from_numpy(a.copy())
    result = array_backend.copy(source)
    np.testing.assert_array_equal(array_backend.to_numpy(result), a)
    if a.size:
        result[(0,) * a.ndim] = 1
        np.testing.assert_array_equal(array_backend.to_numpy(source), a)


# Element-wise math ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sqrt", "sin", "cos", "arccos", "exp", "log"])
@FAST
@given(a=with_dtype(REAL_DTYPES))
def test_real_math_follows_numpy_dtypes(array_backend, matches_numpy, name, a):
    matches_numpy(array_backend, name, getattr(np, name), a)


@pytest.mark.parametrize("name", ["exp", "abs", "real", "imag", "conj"])
@FAST
@given(a=with_dtype(REAL_DTYPES[1:] + COMPLEX_DTYPES))
def test_complex_capable_math(array_backend, matches_numpy, name, a):
    matches_numpy(array_backend, name, getattr(np, name), a)


@pytest.mark.parametrize("name", ["arctan2", "maximum", "minimum"])
@FAST
@given(dtypes=st.tuples(st.sampled_from(INTEGER_DTYPES + FLOAT_DTYPES), st.sampled_from(INTEGER_DTYPES + FLOAT_DTYPES)),
       shape=hnp.array_shapes(min_dims=0, max_dims=2), data=st.data())
def test_binary_math(array_backend, matches_numpy, name, dtypes, shape, data):
    x1, x2 = (data.draw(arrays(dtype, shape=shape)) for dtype in dtypes)
    matches_numpy(array_backend, name, getattr(np, name), x1, x2)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@FAST
@given(x1=with_dtype(["int32", "float32", "float64"]), scalar=st.one_of(st.integers(-5, 5), st.floats(-5, 5)))
def test_binary_math_with_python_scalar(array_backend, matches_numpy, name, x1, scalar):
    matches_numpy(array_backend, name, getattr(np, name), x1, scalar)


# Manipulation --------------------------------------------------------------------------------------

@FAST
@given(a=with_dtype(REAL_DTYPES))
def test_argwhere(array_backend, matches_numpy, a):
    matches_numpy(array_backend, "argwhere", np.argwhere, a)


@FAST
@given(a=with_dtype(["int32", "float64"], max_side=3),
       reps=st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=4).map(tuple)))
def test_tile(array_backend, matches_numpy, a, reps):
    matches_numpy(array_backend, "tile", np.tile, a, reps)


@FAST
@given(a=with_dtype(["int16", "float32"], min_dims=1), data=st.data())
def test_moveaxis(array_backend, matches_numpy, a, data):
    source = data.draw(st.integers(-a.ndim, a.ndim - 1))
    destination = data.draw(st.integers(-a.ndim, a.ndim - 1))
    matches_numpy(array_backend, "moveaxis", np.moveaxis, a, source, destination)


@FAST
@given(a=with_dtype(["int64", "complex64"]), data=st.data())
def test_transpose_means_numpy_transpose(array_backend, matches_numpy, a, data):
    matches_numpy(array_backend, "transpose", np.transpose, a)
    axes = data.draw(st.permutations(range(a.ndim)))
    matches_numpy(array_backend, "transpose", np.transpose, a, axes)


@FAST
@given(a=with_dtype(["uint8", "float64"]), data=st.data())
def test_reshape(array_backend, matches_numpy, a, data):
    shape = data.draw(st.sampled_from([(-1,), (a.size, 1), a.shape[::-1] if a.size == 1 else (1, -1), a.size]))
    matches_numpy(array_backend, "reshape", np.reshape, a, shape)


@pytest.mark.parametrize("name", ["stack", "concatenate"])
@FAST
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3), dtypes=st.lists(st.sampled_from(REAL_DTYPES), min_size=1, max_size=3),
       data=st.data())
def test_joining_promotes_like_numpy(array_backend, name, shape, dtypes, data):
    pieces = [data.draw(arrays(dtype, shape=shape)) for dtype in dtypes]
    axis = data.draw(st.integers(-len(shape) - (name == "stack"), len(shape) - 1 + (name == "stack")) | st.none()
                     if name == "concatenate" else st.integers(-len(shape) - 1, len(shape)))
    expected = getattr(np, name)(pieces, axis=axis)
    got = getattr(array_backend, name)([array_backend.from_numpy(piece) for piece in pieces], axis=axis)
    assert str(got.dtype).removeprefix("torch.") == expected.dtype.name
    np.testing.assert_array_equal(array_backend.to_numpy(got), expected)


@FAST
@given(a=with_dtype(["bool", "int32", "float32", "float64"]), dtype=st.sampled_from(REAL_DTYPES + COMPLEX_DTYPES))
def test_cast(array_backend, matches_numpy, a, dtype):
    a = np.asarray(np.abs(a)) if dtype == "uint8" else a  # negative floats to uint8 are undefined in C, hence in both
    matches_numpy(array_backend, "cast", lambda array, dtype: array.astype(dtype), a, dtype)


# Reductions ----------------------------------------------------------------------------------------

def _axis(data, ndim, allow_tuple=True):
    """None, one axis, or (when allowed) a tuple of distinct axes of an ndim-dimensional array."""
    single = st.integers(-ndim, ndim - 1) if ndim else st.none()
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple) if ndim and allow_tuple else st.none()
    return data.draw(st.none() | single | several)


@FAST
@given(a=with_dtype(REAL_DTYPES[:5] + FLOAT_DTYPES[1:] + COMPLEX_DTYPES), keepdims=st.booleans(), data=st.data())
def test_sum(array_backend, matches_numpy, a, keepdims, data):
    scale = float(np.abs(a).sum()) + 1
    matches_numpy(array_backend, "sum", np.sum, a, axis=_axis(data, a.ndim), keepdims=keepdims, scale=scale)


def test_sum_with_dtype(array_backend, matches_numpy):
    matches_numpy(array_backend, "sum", np.sum, np.arange(10, dtype="int8"), dtype="float32")


@pytest.mark.parametrize("name", ["max", "min"])
@FAST
@given(a=with_dtype(REAL_DTYPES, min_side=1), keepdims=st.booleans(), data=st.data())
def test_max_min(array_backend, matches_numpy, name, a, keepdims, data):
    matches_numpy(array_backend, name, getattr(np, name), a, axis=_axis(data, a.ndim), keepdims=keepdims)


@FAST
@given(a=with_dtype(REAL_DTYPES[:5] + FLOAT_DTYPES[1:] + COMPLEX_DTYPES), data=st.data())
def test_cumsum(array_backend, matches_numpy, a, data):
    scale = float(np.abs(a).sum()) + 1
    matches_numpy(array_backend, "cumsum", np.cumsum, a, axis=_axis(data, a.ndim, allow_tuple=False), scale=scale)


def test_cumsum_with_dtype(array_backend, matches_numpy):
    matches_numpy(array_backend, "cumsum", np.cumsum, np.ones((2, 3), dtype="int32"), axis=1, dtype="float64")


# Fourier transforms --------------------------------------------------------------------------------

FFT_INPUTS = ["int32", "float32", "float64", "complex64", "complex128"]
NORMS = st.sampled_from([None, "backward", "ortho", "forward"])


def _fft_scale(a):
    return float(np.abs(a).sum()) + 1


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
@FAST
@given(dtype=st.sampled_from(FFT_INPUTS), n=st.none() | st.integers(2, 6), norm=NORMS, data=st.data())
def test_one_dimensional_fft(array_backend, matches_numpy, name, dtype, n, norm, data):
    if name == "rfft" and dtype.startswith("complex"):
        dtype = "float64"
    a = data.draw(arrays(dtype, min_dims=1, min_side=2))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    function = getattr(np.fft, name)
    matches_numpy(array_backend, name, function, a, n=n, axis=axis, norm=norm, scale=_fft_scale(a))


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
@FAST
@given(dtype=st.sampled_from(FFT_INPUTS), sizes=st.none() | st.tuples(st.integers(2, 5), st.integers(2, 5)),
       norm=NORMS, data=st.data())
def test_two_dimensional_fft(array_backend, matches_numpy, name, dtype, sizes, norm, data):
    if name == "rfft2" and dtype.startswith("complex"):
        dtype = "float32"
    a = data.draw(arrays(dtype, min_dims=2, min_side=2))
    function = getattr(np.fft, name)
    matches_numpy(array_backend, name, function, a, s=sizes, norm=norm, scale=_fft_scale(a))


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@FAST
@given(dtype=st.sampled_from(FFT_INPUTS), norm=NORMS, data=st.data())
def test_n_dimensional_fft(array_backend, matches_numpy, name, dtype, norm, data):
    if name == "rfftn" and dtype.startswith("complex"):
        dtype = "int32"
    a = data.draw(arrays(dtype, min_dims=1, min_side=2))
    axes = data.draw(st.none() | st.lists(st.integers(0, a.ndim - 1), unique=True, min_size=1).map(tuple))
    sizes = data.draw(st.none() | st.lists(st.integers(2, 5), min_size=len(axes), max_size=len(axes))) if axes else None
    function = getattr(np.fft, name)
    matches_numpy(array_backend, name, function, a, s=sizes, axes=axes, norm=norm, scale=_fft_scale(a))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@FAST
@given(a=with_dtype(["int64", "complex128"], min_dims=1), data=st.data())
def test_fft_shifts(array_backend, matches_numpy, name, a, data):
    axes = _axis(data, a.ndim)
    matches_numpy(array_backend, name, getattr(np.fft, name), a, axes=axes)


# Random numbers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["rand", "randn"])
@FAST
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0), dtype=st.sampled_from([None, "float32", "float64"]),
       seed=st.integers(0, 2**31))
def test_random_shape_dtype_and_seed(array_backend, name, shape, dtype, seed):
    first = getattr(array_backend, name)(*shape, dtype=dtype, seed=seed)
    again = getattr(array_backend, name)(shape, dtype=dtype, seed=seed)
    assert tuple(first.shape) == shape
    assert array_backend.lib_to_str_dtypes[first.dtype] == (dtype or "float64")
    np.testing.assert_array_equal(array_backend.to_numpy(first), array_backend.to_numpy(again))
    if name == "rand":
        values = array_backend.to_numpy(first)
        assert ((values >= 0) & (values < 1)).all()


def test_numpy_random_matches_numpy_generator():
    import quadrants.backends as backends

    backend = backends.create_numpy_backend()
    np.testing.assert_array_equal(backend.randn(3, 2, seed=7), np.random.default_rng(7).standard_normal((3, 2)))
    np.testing.assert_array_equal(backend.rand(4, seed=7), np.random.default_rng(7).random(4))


def test_random_generator_is_used_and_advanced(array_backend):
    library_generator = (array_backend.lib.Generator().manual_seed(3) if array_backend.lib.__name__ == "torch"
                         else np.random.default_rng(3))
    first = array_backend.to_numpy(array_backend.rand(1000, generator=library_generator))
    second = array_backend.to_numpy(array_backend.rand(1000, generator=library_generator))
    assert not np.array_equal(first, second)
    assert abs(first.mean() - 0.5) < 0.05
    normal = array_backend.to_numpy(array_backend.randn(4000, seed=1))
    assert abs(normal.mean()) < 0.1 and abs(normal.std() - 1) < 0.1


# Conversion ----------------------------------------------------------------------------------------

@FAST
@given(a=with_dtype(REAL_DTYPES + COMPLEX_DTYPES))
def test_numpy_round_trip_shares_memory_on_cpu(array_backend, a):
    converted = array_backend.from_numpy(a)
    assert array_backend.is_backend_compliant(converted)
    back = array_backend.to_numpy(converted)
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)
    if a.size:
        assert np.shares_memory(back, a)


def test_to_numpy_of_lazy_conjugate(array_backend):
    x = array_backend.from_numpy(np.array([1 + 2j, 3 - 1j]))
    np.testing.assert_array_equal(array_backend.to_numpy(array_backend.conj(x)), [1 - 2j, 3 + 1j])
