# tests/python/test_random.py: qd.random() in kernels: ranges, uniformity, independence, reproducibility.
#
# The statistical bounds are fixed for fixed seeds (the generator is deterministic), so these tests
# are not flaky; the thresholds are those a correct generator passes with a wide margin.
import numpy as np
import pytest

import quadrants as qd

N = 200_000


def _sampler(dtype):
    @qd.kernel
    def sample(out: qd.types.ndarray(ndim=1)):
        for i in range(out.shape[0]):
            out[i] = qd.random(dtype)

    return sample


def _chi_square(counts):
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("dtype, np_dtype", [(qd.f32, np.float32), (qd.f64, np.float64), (qd.f16, np.float16)])
def test_floats_are_uniform_in_unit_interval(dtype, np_dtype):
    qd.init(arch=qd.cpu, random_seed=11)
    out = np.zeros(N, dtype=np_dtype)
    _sampler(dtype)(out)
    x = out.astype(np.float64)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.005
    assert abs(x.var() - 1 / 12) < 0.002
    counts, _ = np.histogram(x, bins=32, range=(0.0, 1.0))
    assert _chi_square(counts) < 70  # 31 degrees of freedom: p < 1e-4 beyond about 70


def test_default_dtype_is_default_fp():
    qd.init(arch=qd.cpu, default_fp=qd.f64, random_seed=1)

    @qd.kernel
    def draw() -> qd.f64:
        return qd.random()

    values = {draw() for _ in range(50)}
    assert len(values) == 50  # f64 resolution: 53 bits, never coarser f32 values repeated
    assert all(0.0 <= v < 1.0 for v in values)


def test_integers_cover_their_range_uniformly():
    qd.init(arch=qd.cpu, random_seed=5)
    out = np.zeros(N, dtype=np.uint8)
    _sampler(qd.u8)(out)
    counts = np.bincount(out, minlength=256)
    assert _chi_square(counts) < 340  # 255 degrees of freedom
    signed = np.zeros(N, dtype=np.int32)
    _sampler(qd.i32)(signed)
    assert (signed < 0).mean() == pytest.approx(0.5, abs=0.01)
    assert len(np.unique(signed)) > N - 20  # 2^32 values: almost no repeats among 2e5 draws


def test_calls_within_and_across_iterations_are_uncorrelated():
    qd.init(arch=qd.cpu, random_seed=7)

    @qd.kernel
    def pairs(a: qd.types.ndarray(dtype=qd.f64, ndim=1), b: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = qd.random(qd.f64)
            b[i] = qd.random(qd.f64)

    a, b = np.zeros(N), np.zeros(N)
    pairs(a, b)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.01  # the two calls of one iteration
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 0.01  # neighbouring iterations
    c, d = np.zeros(N), np.zeros(N)
    pairs(c, d)
    assert abs(np.corrcoef(a, c)[0, 1]) < 0.01  # the same iteration in the next launch


def test_each_launch_draws_new_numbers_and_a_seed_repeats_them():
    qd.init(arch=qd.cpu, random_seed=3)
    sample = _sampler(qd.f32)
    first, second = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    sample(first)
    sample(second)
    assert not np.array_equal(first, second)
    qd.init(arch=qd.cpu, random_seed=3)
    again = np.zeros(1000, np.float32)
    sample(again)
    assert np.array_equal(first, again)
    qd.init(arch=qd.cpu, random_seed=4)
    other = np.zeros(1000, np.float32)
    sample(other)
    assert not np.array_equal(first, other)


@pytest.mark.cpu_only
def test_numbers_do_not_depend_on_the_thread_count():
    results = []
    for threads in (1, 2):
        qd.init(arch=qd.cpu, random_seed=9, cpu_max_num_threads=threads)
        out = np.zeros((300, 301), np.float32)

        @qd.kernel
        def fill(a: qd.types.ndarray(dtype=qd.f32, ndim=2)):
            for i, j in a:
                a[i, j] = qd.random() + qd.random()

        fill(out)
        results.append(out)
    assert np.array_equal(results[0], results[1])


def test_two_dimensional_loops_give_distinct_streams():
    qd.init(arch=qd.cpu, random_seed=2)
    out = np.zeros((256, 256), np.uint32)

    @qd.kernel
    def fill(a: qd.types.ndarray(dtype=qd.u32, ndim=2)):
        for I in qd.grouped(a):
            a[I] = qd.random(qd.u32)

    fill(out)
    assert len(np.unique(out)) > out.size - 10
    assert abs(np.corrcoef(out[:, :-1].ravel(), out[:, 1:].ravel())[0, 1]) < 0.02
    assert abs(np.corrcoef(out[:-1].ravel(), out[1:].ravel())[0, 1]) < 0.02


def test_each_parallel_loop_and_each_run_of_it_draws_its_own_numbers():
    # Two loops over the same indices, and one loop run again by qd.graph.do_while, shared the launch's
    # key and so drew the same numbers.
    qd.init(arch=qd.cpu, random_seed=5)

    @qd.kernel(graph=True)
    def draw(first: qd.types.ndarray(qd.f32, ndim=1), rows: qd.types.ndarray(qd.f32, ndim=2),
             left: qd.types.ndarray(qd.i32, ndim=0)):
        for i in range(first.shape[0]):
            first[i] = qd.random(qd.f32)
        while qd.graph.do_while(left):
            for i in range(rows.shape[1]):
                rows[left[()] - 1, i] = qd.random(qd.f32)
            left[()] = left[()] - 1

    def run():
        first, rows, left = np.zeros(64, np.float32), np.zeros((4, 64), np.float32), np.array(4, np.int32)
        draw(first, rows, left)
        return np.concatenate([first[None], rows])

    drawn = run()
    assert len(np.unique(drawn)) == drawn.size
    qd.init(arch=qd.cpu, random_seed=5)
    assert np.array_equal(run(), drawn)  # still reproducible


def test_serial_code_funcs_and_inner_loops_draw_fresh_numbers():
    qd.init(arch=qd.cpu, random_seed=8)

    @qd.func
    def coin() -> qd.i32:
        return qd.random(qd.i32) & 1

    @qd.kernel
    def walk(steps: qd.i32) -> qd.i32:
        position = 0
        k = 0
        while k < steps:  # serial code: the kernel's own stream
            position += 2 * coin() - 1
            k += 1
        return position

    positions = [walk(400) for _ in range(40)]
    assert len(set(positions)) > 5  # each launch walks anew
    assert all(p % 2 == 0 for p in positions)  # 400 steps of +-1
    assert abs(np.mean(positions)) < 3 * 20 / np.sqrt(40) + 1  # mean 0, sd 20 per walk


def test_python_scope_random():
    qd.init(arch=qd.cpu)
    values = [qd.random() for _ in range(100)]
    assert all(0.0 <= v < 1.0 for v in values) and len(set(values)) > 90
    assert isinstance(qd.random(qd.i32), int)


def test_random_with_wrong_arguments_is_a_clear_error():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def bad() -> qd.f32:
        return qd.random(qd.f32, 3)

    with pytest.raises(qd.QuadrantsTypeError, match="takes one optional argument, the dtype"):
        bad()


def test_kernels_without_random_carry_no_generator_state():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def plain(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = 1.0

    @qd.kernel
    def drawing(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = qd.random()

    spec = (("array", "f32", 1, (), True, True),)
    assert "_qd_random" not in plain.ir(spec, ())
    assert "_qd_random_state" in drawing.ir(spec, ())


def test_randn_is_standard_normal():
    qd.init(arch=qd.cpu, random_seed=4)

    @qd.kernel
    def normals(out: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(out.shape[0]):
            out[i] = qd.randn(qd.f64)

    out = np.zeros(N)
    normals(out)
    assert np.isfinite(out).all()
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1.0) < 0.01
    assert abs((np.abs(out) < 1.0).mean() - 0.6827) < 0.005  # one sigma
    assert abs((np.abs(out) < 2.0).mean() - 0.9545) < 0.003  # two sigma
    assert isinstance(qd.randn(), float)


def test_logical_ops_of_upstream():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def logic(a: qd.i32, b: qd.i32) -> qd.i32:
        return qd.lang.ops.logical_not(a) * 100 + qd.lang.ops.logical_and(a, b) * 10 + qd.lang.ops.logical_or(a, b)

    assert [logic(a, b) for a, b in ((0, 0), (0, 3), (2, 0), (5, -1))] == [100, 101, 1, 11]
    assert qd.math.nan != qd.math.nan
