# tests/python/test_real_func.py: @qd.real_func: functions compiled once per signature and called (recursion).
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


def test_recursive_fibonacci_and_factorial():
    @qd.real_func
    def fib(n: qd.i32) -> qd.i32:
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @qd.real_func
    def fact(n: qd.i64) -> qd.i64:
        result = qd.i64(1)
        if n > 1:
            result = n * fact(n - 1)
        return result

    @qd.kernel
    def run(n: qd.i32) -> qd.types.vector(2, qd.i64):
        return qd.Vector([fib(n), fact(n)], dt=qd.i64)

    fib_20, fact_20 = run(20)
    assert fib_20 == 6765
    assert fact_20 == 2432902008176640000


def test_mutual_recursion():
    @qd.real_func
    def is_even(n: qd.i32) -> qd.i32:
        if n == 0:
            return 1
        return is_odd(n - 1)

    @qd.real_func
    def is_odd(n: qd.i32) -> qd.i32:
        if n == 0:
            return 0
        return is_even(n - 1)

    out = qd.field(qd.i32, shape=12)

    @qd.kernel
    def run():
        for i in range(12):
            out[i] = is_even(i) * 10 + is_odd(i)

    run()
    assert out.to_numpy().tolist() == [10 if i % 2 == 0 else 1 for i in range(12)]


@pytest.mark.cpu_only
def test_deep_recursion_on_the_cpu():
    @qd.real_func
    def total(n: qd.i32) -> qd.i64:
        if n == 0:
            return 0
        return total(n - 1) + n

    @qd.kernel
    def run(n: qd.i32) -> qd.i64:
        return total(n)

    assert run(20000) == 20000 * 20001 // 2


def test_recursive_sum_over_a_template_field():
    @qd.real_func
    def range_sum(f: qd.template(), lo: qd.i32, hi: qd.i32) -> qd.i32:
        if lo == hi:
            return f[lo]
        mid = (lo + hi) // 2
        return range_sum(f, lo, mid) + range_sum(f, mid + 1, hi)

    a = qd.field(qd.i32, shape=100)
    b = qd.field(qd.i32, shape=100)
    a.from_numpy(np.arange(100, dtype=np.int32))
    b.from_numpy(np.full(100, 3, dtype=np.int32))

    @qd.kernel
    def run() -> qd.types.vector(2, qd.i32):
        return qd.Vector([range_sum(a, 0, 99), range_sum(b, 0, 99)])

    assert list(run()) == [4950, 300]


def test_early_returns_from_nested_ifs_and_loops():
    @qd.real_func
    def first_above(x: qd.types.NDArray[qd.f32, 1], limit: qd.f32) -> qd.i32:
        for i in range(x.shape[0]):
            if x[i] > limit:
                if i > 0:
                    return i
                return -100
        k = 0
        while k < 10:
            k += 1
            if k == 7:
                return -k
        return 99

    @qd.kernel
    def run(x: qd.types.NDArray[qd.f32, 1], limit: qd.f32) -> qd.i32:
        return first_above(x, limit)

    x = np.array([1, 2, 5, 9, 3], dtype=np.float32)
    assert run(x, 4.0) == 2
    assert run(x, 0.0) == -100
    assert run(x, 10.0) == -7


def test_vector_matrix_and_struct_arguments_and_returns():
    pair = qd.types.struct(v=qd.math.vec2, n=qd.i32)

    @qd.real_func
    def transform(m: qd.math.mat2, v: qd.math.vec2, s: pair) -> pair:
        w = m @ v + s.v
        return pair(v=w, n=s.n + 1)

    @qd.real_func
    def pieces(x: qd.f32) -> (qd.f32, qd.math.vec2):
        return x * 2, qd.math.vec2(x, -x)

    @qd.kernel
    def run() -> qd.types.vector(6, qd.f32):
        r = transform(qd.math.mat2(1, 2, 3, 4), qd.math.vec2(1, 1), pair(v=qd.math.vec2(10, 20), n=4))
        a, b = pieces(1.5)
        return qd.Vector([r.v[0], r.v[1], r.n, a, b[0], b[1]])

    assert list(run()) == [13.0, 27.0, 5.0, 3.0, 1.5, -1.5]


def test_writes_to_fields_and_ndarrays_from_inside_and_parallel_calls():
    counts = qd.field(qd.i32, shape=())

    @qd.real_func
    def scatter(out: qd.types.NDArray[qd.f32, 1], i: qd.i32, value: qd.f32):
        out[i] = value * 2
        qd.atomic_add(counts[None], 1)

    @qd.kernel
    def run(out: qd.types.NDArray[qd.f32, 1]):
        for i in range(out.shape[0]):
            scatter(out, i, qd.cast(i, qd.f32))

    out = np.zeros(1000, dtype=np.float32)
    run(out)
    assert np.array_equal(out, np.arange(1000, dtype=np.float32) * 2)
    assert counts[None] == 1000


def test_reference_parameter_writes_the_callers_local():
    @qd.real_func
    def bump(a: qd.ref(qd.f32), by: qd.f32):
        a += by
        a = a * 2

    @qd.kernel
    def run() -> qd.f32:
        a = 5.0
        bump(a, 1.0)
        return a

    assert run() == 12.0


def test_atomics_on_a_reference_parameter_reach_the_callers_local_wherever_it_lives():
    # The caller's local may be its thread's own (a plain update on CUDA, whose atomics cannot address
    # a thread's local memory) or the kernel's, shared by a parallel loop's threads (atomic).
    @qd.real_func
    def bump(a: qd.ref(qd.i32), by: qd.i32):
        qd.atomic_add(a, by)

    @qd.kernel
    def run(out: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:
        total = 0
        for i in range(out.shape[0]):
            mine = i
            bump(mine, 10)
            out[i] = mine
            bump(total, 1)
        bump(total, 1000)
        return total

    out = np.zeros(300, np.int32)
    assert run(out) == 1300
    assert out.tolist() == list(range(10, 310))


def test_one_definition_per_signature():
    @qd.real_func
    def read(f: qd.template(), i: qd.i32) -> qd.f32:
        return f[i]

    a = qd.field(qd.f32, shape=4)
    b = qd.field(qd.f32, shape=4)
    a.fill(1.0)
    b.fill(2.0)

    @qd.kernel
    def run() -> qd.f32:
        return read(a, 0) + read(a, 1) + read(b, 2)

    assert run() == 4.0
    text = run.export_ir()
    assert text.count("(function read") == 2  # one per field, not one per call
    assert text.count("(call read (") == 2 and text.count("(call read_1 (") == 1


def test_is_real_function_option_and_methods():
    @qd.data_oriented
    class Grid:
        def __init__(self):
            self.val = qd.field(qd.f32, shape=(8, 8))

        @qd.func(is_real_function=True)
        def inc(self, i: qd.i32, j: qd.i32):
            self.val[i, j] += i * j

        @qd.kernel
        def fill(self):
            for i, j in self.val:
                self.inc(i, j)

    g = Grid()
    g.fill()
    i, j = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    assert np.array_equal(g.val.to_numpy(), (i * j).astype(np.float32))


def test_missing_parameter_annotation_is_an_error():
    with pytest.raises(qd.QuadrantsSyntaxError, match="Parameter 'a' of @qd.real_func 'add' must be type annotated"):

        @qd.real_func
        def add(a, b: qd.i32) -> qd.i32:
            return a + b


def test_returned_value_without_annotation_is_an_error():
    @qd.real_func
    def add(a: qd.i32, b: qd.i32):
        return a + b

    @qd.kernel
    def run():
        add(1, 2)

    with pytest.raises(qd.QuadrantsCompilationError, match="return value must be annotated"):
        run()


def test_bad_annotation_and_bad_reference_argument():
    @qd.real_func
    def takes_list(a: list) -> qd.i32:
        return 1

    @qd.kernel
    def bad_annotation() -> qd.i32:
        return takes_list(1)

    with pytest.raises(qd.QuadrantsTypeError, match="Parameter 'a' of @qd.real_func 'takes_list'.*is not a dtype"):
        bad_annotation()

    @qd.real_func
    def bump(a: qd.ref(qd.i32)):
        a += 1

    @qd.kernel
    def bad_reference():
        bump(3)

    with pytest.raises(qd.QuadrantsTypeError, match="must pass a local variable"):
        bad_reference()


def test_autodiff_through_a_real_function_is_rejected():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    y = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.real_func
    def square(v: qd.f32) -> qd.f32:
        return v * v

    @qd.kernel
    def loss():
        for i in range(4):
            y[None] += square(x[i])

    with pytest.raises(qd.QuadrantsTypeError, match="does not differentiate through real functions"):
        loss.grad()


def test_random_inside_a_real_function_draws_from_the_callers_stream():
    """qd.random() in a @qd.real_func, as 1.3.3 allows: uniform in [0, 1), no number repeated between calls,
    iterations and the kernel's own draws, through recursion, a nested real function and an inlined func."""
    n = 256
    out = qd.field(qd.f32, shape=(n, 5))

    @qd.func
    def inlined() -> qd.f32:
        return qd.random()

    @qd.real_func
    def draw() -> qd.f32:
        return qd.random(qd.f32)

    @qd.real_func
    def draw_sum(depth: qd.i32) -> qd.f32:  # recursive: depth + 1 draws
        total = inlined()
        if depth > 0:
            total += draw_sum(depth - 1)
        return total

    @qd.real_func
    def nested() -> qd.f32:
        return draw() + 2.0

    @qd.real_func
    def no_draws(x: qd.f32) -> qd.f32:
        return x * 2.0

    @qd.kernel
    def run():
        for i in range(n):
            out[i, 0] = draw()
            out[i, 1] = draw()
            out[i, 2] = qd.random()
            out[i, 3] = nested() - 2.0
            out[i, 4] = draw_sum(2) + no_draws(0.0)

    run()
    values = out.to_numpy()
    singles = values[:, :4]
    assert singles.min() >= 0.0 and singles.max() < 1.0
    assert len(np.unique(singles)) == singles.size  # 1024 draws from 2^24 values: a repeat would mean a shared stream
    assert 0.4 < singles.mean() < 0.6
    assert 0.0 <= values[:, 4].min() and values[:, 4].max() < 3.0 and 1.2 < values[:, 4].mean() < 1.8
    first = values.copy()
    run()
    assert not np.array_equal(first, out.to_numpy())  # the next launch takes the next key


def test_random_inside_a_real_function_follows_the_seed():
    @qd.real_func
    def draw() -> qd.f32:
        return qd.random()

    @qd.kernel
    def run() -> qd.f32:
        return draw()

    qd.init(arch=qd.cpu, random_seed=7)
    first = run()
    qd.init(arch=qd.cpu, random_seed=7)
    assert run() == first


def test_debug_checks_inside_a_real_function():
    qd.init(arch=qd.cpu, debug=True)
    x = qd.field(qd.f32, shape=4)

    @qd.real_func
    def read(i: qd.i32) -> qd.f32:
        assert i < 3, "index too big"
        return x[i + 1]

    @qd.kernel
    def run(i: qd.i32) -> qd.f32:
        return read(i)

    x.fill(2.0)
    assert run(1) == 2.0
    with pytest.raises(AssertionError, match="index too big"):
        run(3)
