# tests/python/test_algorithms_composable.py: upstream's composable device-wide operations (qd.algorithms.reduce_*,
# exclusive_scan_*, select, reduce_by_key_add) and the deprecated PrefixSumExecutor, against numpy.
import numpy as np
import pytest

import quadrants as qd

DTYPES = [qd.i32, qd.u32, qd.f32, qd.i64, qd.u64, qd.f64]


@pytest.fixture(autouse=True)
def fresh_runtime():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _values(dtype, n, seed=3):
    rng = np.random.default_rng(seed)
    if dtype.numpy.kind == "f":
        return rng.uniform(-100, 100, n).astype(dtype.numpy)
    low = 0 if dtype.numpy.kind == "u" else -1000
    return rng.integers(low, 1000, n).astype(dtype.numpy)


def _field_of(values, dtype):
    field = qd.field(dtype, shape=max(len(values), 1))
    if len(values):
        field.from_numpy(np.asarray(values, dtype=dtype.numpy))
    return field


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "min", "max"])
@pytest.mark.parametrize("n", [0, 1, 300])
def test_reduce_and_exclusive_scan(dtype, op, n):
    host = _values(dtype, 300)
    arr, reduced, scanned = _field_of(host, dtype), qd.field(dtype, shape=1), qd.field(dtype, shape=300)
    scratch = qd.field(qd.u32, shape=qd.algorithms.reduce_scratch_slots(300))
    count = qd.field(qd.i32, shape=1)
    count[0] = n
    reduce, scan = getattr(qd.algorithms, f"reduce_{op}"), getattr(qd.algorithms, f"exclusive_scan_{op}")

    @qd.kernel
    def run(dtype: qd.template()):
        reduce(arr, reduced, scratch, count[0], dtype, 2)
        scan(arr, scanned, scratch, count[0], dtype, 2)

    run(dtype)
    if dtype.numpy.kind == "f":
        identity = {"add": 0.0, "min": np.inf, "max": -np.inf}[op]
    else:
        info = np.iinfo(dtype.numpy)
        identity = {"add": 0, "min": info.max, "max": info.min}[op]
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum}[op]
    steps = [dtype.numpy.type(identity)]
    for value in host[:n]:
        steps.append(ufunc(steps[-1], value).astype(dtype.numpy))
    np.testing.assert_allclose(reduced[0], steps[-1], rtol=1e-5)
    np.testing.assert_allclose(scanned.to_numpy()[:n], np.array(steps[:n], dtype=dtype.numpy), rtol=1e-5)


def test_select_packs_the_flagged_values_in_order():
    host = np.arange(10, 20, dtype=np.float32)
    flags_host = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 1], dtype=np.int32)
    arr, flags, out = _field_of(host, qd.f32), _field_of(flags_host, qd.i32), qd.field(qd.f32, shape=10)
    num_out, scratch = qd.field(qd.i32, shape=1), qd.field(qd.u32, shape=qd.algorithms.select_scratch_slots(10))

    @qd.kernel
    def run(n: qd.i32):
        qd.algorithms.select(arr, flags, out, num_out, scratch, n, 1)

    run(10)
    assert num_out[0] == 5
    assert out.to_numpy()[:5].tolist() == [10, 13, 14, 16, 19]
    run(3)  # only the first three are live
    assert num_out[0] == 1 and out[0] == 10


def test_reduce_by_key_add_sums_runs_and_zeroes_the_rest():
    keys_host = np.array([4, 4, 1, 1, 1, 4, 7, 7], dtype=np.int32)
    values_host = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.float32)
    keys_in, values_in = _field_of(keys_host, qd.i32), _field_of(values_host, qd.f32)
    keys_out, values_out, num_runs = qd.field(qd.i32, shape=8), qd.field(qd.f32, shape=8), qd.field(qd.i32, shape=1)
    values_out.fill(-1.0)
    scratch = qd.field(qd.u32, shape=qd.algorithms.reduce_by_key_scratch_slots(8))

    @qd.kernel
    def run():
        qd.algorithms.reduce_by_key_add(keys_in, values_in, keys_out, values_out, num_runs, scratch, 8, qd.f32, 1)

    run()
    assert num_runs[0] == 4
    assert keys_out.to_numpy()[:4].tolist() == [4, 1, 4, 7]
    assert values_out.to_numpy().tolist() == [3, 12, 6, 15, 0, 0, 0, 0]


def test_unsupported_dtype_and_depth_are_named_when_the_kernel_compiles():
    arr, out, scratch = qd.field(qd.i16, shape=4), qd.field(qd.i16, shape=1), qd.field(qd.u32, shape=1)

    @qd.kernel
    def small_ints():
        qd.algorithms.reduce_add(arr, out, scratch, 4, qd.i16, 1)

    with pytest.raises(qd.QuadrantsCompilationError, match=r"reduce_add\(\): dtype qd.i16 is not supported"):
        small_ints()

    wide = qd.field(qd.i32, shape=4)

    @qd.kernel
    def too_deep():
        qd.algorithms.reduce_add(wide, wide, scratch, 4, qd.i32, 5)

    with pytest.raises(qd.QuadrantsCompilationError, match="log256_max_n=5 exceeds the maximum of 4"):
        too_deep()


def test_prefix_sum_executor_is_inclusive_and_deprecated():
    host = np.arange(1, 9, dtype=np.int32)
    arr = _field_of(host, qd.i32)
    with pytest.warns(DeprecationWarning, match="PrefixSumExecutor is deprecated"):
        executor = qd.algorithms.PrefixSumExecutor(6)
    executor.run(arr)
    assert arr.to_numpy().tolist() == [1, 3, 6, 10, 15, 21, 7, 8]
    with pytest.raises(RuntimeError, match="Only qd.i32 type is supported for prefix sum."):
        executor.run(qd.field(qd.f32, shape=8))


def test_prefix_sum_executor_starts_at_a_fields_offset():
    arr = qd.field(qd.i32, shape=6, offset=-3)
    arr.from_numpy(np.array([1, 2, 3, 4, 5, 6], dtype=np.int32))
    with pytest.warns(DeprecationWarning):
        qd.algorithms.PrefixSumExecutor(6).run(arr)
    assert arr.to_numpy().tolist() == [1, 3, 6, 10, 15, 21] and arr[-3] == 1 and arr[2] == 21
