# tests/python/test_raw_ops_and_atomics.py: qd.raw_div/qd.raw_mod (C semantics) and qd.atomic_mul/qd.atomic_exchange.
#
# raw_div/raw_mod run on runtime values (the generated code), on constants (folded by const_eval) and
# in Python scope (the numpy fallbacks); all three must agree with C. The atomics run in parallel loops,
# where only an order-independent property of the results can be checked.
import math
import re

import numpy as np
import pytest

import quadrants as qd
from quadrants.runtime import _core

I32_MIN = -(2**31)
INT_CASES = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 5), (0, -5), (1, 7), (-1, 7),
             (I32_MIN, 1), (I32_MIN, 7), (2**31 - 1, -3)]
FLOAT_CASES = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (6.0, 3.0), (-0.5, 3.0), (5.25, 0.5)]


def _c_div(a, b):
    """C's truncating division, exact for any size (int(a / b) rounds through a float)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_mod(a, b):
    return a - b * _c_div(a, b)


def test_reference_matches_int_of_true_division_on_small_values():
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, -3)]:
        assert _c_div(a, b) == int(a / b)
        assert _c_mod(a, b) == int(math.fmod(a, b))


def _run_int(a, b):
    @qd.kernel
    def raw(a: qd.types.ndarray(dtype=qd.i32, ndim=1), b: qd.types.ndarray(dtype=qd.i32, ndim=1),
            q: qd.types.ndarray(dtype=qd.i32, ndim=1), r: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(a.shape[0]):
            q[i] = qd.raw_div(a[i], b[i])
            r[i] = qd.raw_mod(a[i], b[i])

    a, b = np.array(a, np.int32), np.array(b, np.int32)
    q, r = np.zeros_like(a), np.zeros_like(a)
    raw(a, b, q, r)
    return q.tolist(), r.tolist()


def test_raw_div_mod_int_every_sign():
    qd.init(arch=qd.cpu)
    q, r = _run_int([c[0] for c in INT_CASES], [c[1] for c in INT_CASES])
    assert q == [_c_div(a, b) for a, b in INT_CASES]
    assert r == [_c_mod(a, b) for a, b in INT_CASES]


def test_raw_div_mod_int_by_zero_and_min_by_minus_one():
    qd.init(arch=qd.cpu)
    q, r = _run_int([7, -7, 0, I32_MIN], [0, 0, 0, -1])
    assert q == [0, 0, 0, I32_MIN]  # division by zero gives 0; MIN / -1 wraps (docs/IR.md)
    assert r == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype, np_dtype", [(qd.f32, np.float32), (qd.f64, np.float64)])
def test_raw_div_mod_float_every_sign(dtype, np_dtype):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def raw(a: qd.types.ndarray(dtype=dtype, ndim=1), b: qd.types.ndarray(dtype=dtype, ndim=1),
            q: qd.types.ndarray(dtype=dtype, ndim=1), r: qd.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(a.shape[0]):
            q[i] = qd.raw_div(a[i], b[i])
            r[i] = qd.raw_mod(a[i], b[i])

    cases = FLOAT_CASES + [(1.0, 0.0)]
    a = np.array([c[0] for c in cases], np_dtype)
    b = np.array([c[1] for c in cases], np_dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    raw(a, b, q, r)
    for i, (x, y) in enumerate(FLOAT_CASES):
        assert q[i] == np_dtype(x / y)
        assert r[i] == math.fmod(x, y)
        assert math.copysign(1.0, r[i]) == math.copysign(1.0, x) or r[i] == 0
    assert math.isinf(q[-1]) and math.isnan(r[-1])


def test_int_operands_with_a_float_raw_div_promote():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def mixed(a: qd.i32, b: qd.f32) -> qd.f32:
        return qd.raw_div(a, b) + qd.raw_mod(a, b)

    assert mixed(-7, 2.0) == pytest.approx(-3.5 + -1.0)


def _folded(expr, returns):
    text = _core.run_passes(f"(kernel k (options) (params) (returns {returns}) (body (return {expr})))")
    match = re.search(rf"\(return \(const {returns} ([^)]+)\)\)", text)
    assert match, text
    return match.group(1)


@pytest.mark.parametrize("a, b", INT_CASES)
def test_constant_raw_div_mod_fold_like_the_runtime(a, b):
    assert int(_folded(f"(bin raw_div (const i32 {a}) (const i32 {b}))", "i32")) == _c_div(a, b)
    assert int(_folded(f"(bin raw_mod (const i32 {a}) (const i32 {b}))", "i32")) == _c_mod(a, b)


def test_constant_min_by_minus_one_folds_to_the_wrapped_value():
    assert int(_folded(f"(bin raw_div (const i32 {I32_MIN}) (const i32 -1))", "i32")) == I32_MIN
    assert int(_folded(f"(bin raw_mod (const i32 {I32_MIN}) (const i32 -1))", "i32")) == 0
    assert int(_folded("(bin raw_div (const u8 250) (const u8 7))", "u8")) == 35
    assert int(_folded("(bin raw_mod (const u8 250) (const u8 7))", "u8")) == 5


def test_constants_in_a_kernel_agree_with_runtime_values():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def folded(q: qd.types.ndarray(dtype=qd.i32, ndim=1), f: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        q[0] = qd.raw_div(-7, 2)
        q[1] = qd.raw_mod(-7, 2)
        q[2] = qd.raw_div(7, -2)
        q[3] = qd.raw_mod(7, -2)
        q[4] = qd.raw_div(7, 0)
        q[5] = qd.raw_mod(7, 0)
        f[0] = qd.raw_div(-7.5, 2.0)
        f[1] = qd.raw_mod(-7.5, 2.0)
        f[2] = qd.raw_mod(7.5, -2.0)

    q, f = np.zeros(6, np.int32), np.zeros(3, np.float64)
    folded(q, f)
    assert q.tolist() == [-3, -1, -3, 1, 0, 0]
    assert f.tolist() == [-3.75, math.fmod(-7.5, 2.0), math.fmod(7.5, -2.0)]


def test_python_scope_fallbacks():
    assert qd.raw_div(-7, 2) == -3 and qd.raw_mod(-7, 2) == -1
    assert qd.raw_div(7, -2) == -3 and qd.raw_mod(7, -2) == 1
    assert qd.raw_div(-7.5, 2.0) == -3.75 and qd.raw_mod(-7.5, 2.0) == -1.5
    np.testing.assert_array_equal(qd.raw_div(np.array([-7, 7]), 2), [-3, 3])


ATOMIC_DTYPES = [(qd.i32, np.int32), (qd.i64, np.int64), (qd.f32, np.float32), (qd.f64, np.float64), (qd.u8, np.uint8),
                 (qd.f16, np.float16)]
N = 64


@pytest.mark.parametrize("dtype, np_dtype", ATOMIC_DTYPES)
def test_atomic_exchange_returns_a_permutation_chain(dtype, np_dtype):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def swap(x: qd.types.ndarray(dtype=dtype, ndim=1), values: qd.types.ndarray(dtype=dtype, ndim=1),
             old: qd.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(values.shape[0]):
            old[i] = qd.atomic_exchange(x[0], values[i])

    x = np.array([200], np_dtype)
    values = np.arange(1, N + 1).astype(np_dtype)
    old = np.zeros_like(values)
    swap(x, values, old)
    # Each value is stored once and read back once by the next exchange, or stays as the final value.
    assert sorted(old.tolist() + x.tolist()) == sorted([200.0] + values.tolist())


@pytest.mark.parametrize("dtype, np_dtype", ATOMIC_DTYPES)
def test_atomic_mul_is_the_product(dtype, np_dtype):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def product(x: qd.types.ndarray(dtype=dtype, ndim=1), values: qd.types.ndarray(dtype=dtype, ndim=1),
                old: qd.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(values.shape[0]):
            old[i] = qd.atomic_mul(x[0], values[i])

    twos = 7 if np_dtype == np.uint8 else 10
    values = np.ones(N, np_dtype)
    values[:twos] = 2
    values[5::17] = 3
    signed = np_dtype not in (np.uint8,)
    if signed:
        values[40] = -1
    np.random.default_rng(1).shuffle(values)
    x = np.array([1], np_dtype)
    old = np.zeros_like(values)
    product(x, values, old)
    expected = np.prod(values.astype(np.float64))
    if np_dtype == np.uint8:
        expected = float(int(expected) % 256)
    assert float(x[0]) == expected
    # Each old value is a partial product of nonzero values, so none is 0 (nor a lost, uninitialized read).
    assert all(float(o) != 0 for o in old)


@pytest.mark.parametrize("dtype, np_dtype", [(qd.i32, np.int32), (qd.f32, np.float32), (qd.f16, np.float16)])
def test_atomics_on_locals(dtype, np_dtype):
    qd.init(arch=qd.cpu)

    @qd.kernel
    def local(out: qd.types.ndarray(dtype=dtype, ndim=1)):
        for i in range(out.shape[0] // 3):
            acc = qd.cast(1, dtype)
            for j in range(4):
                qd.atomic_mul(acc, qd.cast(j + 2, dtype))
            slot = qd.cast(5, dtype)
            previous = qd.atomic_exchange(slot, qd.cast(i, dtype))
            out[3 * i] = acc
            out[3 * i + 1] = previous
            out[3 * i + 2] = slot

    out = np.zeros(6, np_dtype)
    local(out)
    assert out.tolist() == [120, 5, 0, 120, 5, 1]


def test_reverse_ad_rejects_atomic_mul_on_an_array_with_a_gradient():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f64, shape=4, needs_grad=True)
    total = qd.field(qd.f64, shape=(), needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            qd.atomic_mul(total[None], x[i])

    with pytest.raises(Exception, match="atomic mul to 'total'.*supports only atomic add and sub"):
        k.grad()


def test_reverse_ad_through_local_atomic_mul_exchange_and_raw_div():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f64, shape=3, needs_grad=True)
    y = qd.field(qd.f64, shape=3, needs_grad=True)

    @qd.kernel
    def k():
        for i in x:
            acc = 1.0
            qd.atomic_mul(acc, x[i])
            qd.atomic_mul(acc, x[i])
            slot = 0.0
            qd.atomic_exchange(slot, qd.raw_div(acc, 2.0))
            y[i] = slot + qd.raw_mod(x[i], 0.75)

    x.from_numpy(np.array([0.5, -1.5, 2.0]))
    k()
    np.testing.assert_allclose(y.to_numpy(), [0.125 + 0.5, 1.125 + math.fmod(-1.5, 0.75), 2.0 + 0.5])
    y.grad.fill(1.0)
    x.grad.fill(0.0)
    k.grad()
    np.testing.assert_allclose(x.grad.to_numpy(), [1.5, -0.5, 3.0])  # d(x^2 / 2)/dx + d fmod(x, c)/dx (1)


def test_forward_ad_through_local_atomic_mul_exchange_and_raw_div():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f64, shape=3, needs_dual=True)
    y = qd.field(qd.f64, shape=3, needs_dual=True)

    @qd.kernel
    def k():
        for i in x:
            acc = 1.0
            qd.atomic_mul(acc, x[i])
            qd.atomic_mul(acc, x[i])
            slot = 0.0
            qd.atomic_exchange(slot, qd.raw_div(acc, 2.0))
            y[i] = slot + qd.raw_mod(x[i], 0.75)

    x.from_numpy(np.array([0.5, -1.5, 2.0]))
    with qd.ad.FwdMode(loss=y, param=x, seed=[1.0, 1.0, 1.0]):
        k()
    np.testing.assert_allclose(y.dual.to_numpy(), [1.5, -0.5, 3.0])  # d(x^2 / 2)/dx + d fmod(x, c)/dx (1)


def test_forward_ad_rejects_atomic_exchange_on_an_array_with_a_dual():
    qd.init(arch=qd.cpu)
    x = qd.field(qd.f64, shape=3, needs_dual=True)
    y = qd.field(qd.f64, shape=(), needs_dual=True)

    @qd.kernel
    def k():
        for i in x:
            qd.atomic_exchange(y[None], x[i])

    with pytest.raises(Exception, match="atomic xchg to 'y'.*supports only atomic add and"):
        with qd.ad.FwdMode(loss=y, param=x, seed=[1.0, 1.0, 1.0]):
            k()


# ---- qd.atomic_cas(x, expected, desired): stores desired where x equals expected, returns the old x ----
@pytest.mark.parametrize("dtype", [qd.i8, qd.u8, qd.i16, qd.u16, qd.i32, qd.u32, qd.i64, qd.u64])
def test_atomic_cas_returns_the_old_value_and_swaps_only_on_a_match(dtype):
    qd.init(arch=qd.cpu)
    f = qd.field(dtype, shape=())
    out = qd.field(dtype, shape=2)
    f[None] = 7

    @qd.kernel
    def swap():
        out[0] = qd.atomic_cas(f[None], qd.cast(7, dtype), qd.cast(42, dtype))  # matches: 7 -> 42
        out[1] = qd.atomic_cas(f[None], qd.cast(99, dtype), qd.cast(123, dtype))  # does not: stays 42

    swap()
    assert out.to_numpy().tolist() == [7, 42] and f[None] == 42


def test_atomic_cas_lets_exactly_one_thread_win():
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)
    slot = qd.field(qd.i64, shape=())
    olds = qd.field(qd.i64, shape=4096)

    @qd.kernel
    def race():
        for i in range(4096):
            olds[i] = qd.atomic_cas(slot[None], 0, i + 1)  # an int literal widens to the i64 target

    race()
    seen = olds.to_numpy()
    winners = np.flatnonzero(seen == 0)
    assert len(winners) == 1 and slot[None] == winners[0] + 1
    assert (np.delete(seen, winners) == slot[None]).all()  # every loser saw the winner's value


@pytest.mark.parametrize("dtype", [qd.i8, qd.u8, qd.i16, qd.u16])
def test_compare_and_swap_loops_on_neighbouring_narrow_elements_count_exactly(dtype):
    """1- and 2-byte compare-and-swap: four neighbours (one 32-bit word) counted by CAS loops on 4 threads. Each
    element's count wraps in its type; a lost or torn update, or a swap that clobbered a neighbour, shows."""
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)
    cells = qd.field(dtype, shape=4)

    @qd.kernel
    def count(n: qd.i32):
        for i in range(n):
            done = 0
            while done == 0:
                seen = cells[i % 4]
                if qd.atomic_cas(cells[i % 4], seen, seen + qd.cast(1 + i % 4, dtype)) == seen:
                    done = 1

    n = 40000
    count(n)
    got = cells.to_numpy()
    modulus = 2 ** (8 * got.itemsize)
    assert [int(v) % modulus for v in got] == [n // 4 * (1 + c) % modulus for c in range(4)]


def test_a_compare_and_swap_loop_adds_like_atomic_add():
    qd.init(arch=qd.cpu, cpu_max_num_threads=4)
    counter = qd.field(qd.i32, shape=())

    @qd.kernel
    def count(n: qd.i32):
        for _ in range(n):
            done = 0
            while done == 0:
                seen = counter[None]
                if qd.atomic_cas(counter[None], seen, seen + 1) == seen:
                    done = 1

    count(10000)
    assert counter[None] == 10000


def test_atomic_cas_on_a_thread_local():
    qd.init(arch=qd.cpu)

    @qd.kernel
    def local(out: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in range(out.shape[0]):
            s = i
            out[i, 0] = qd.atomic_cas(s, i, 100 + i)  # swaps: old i
            out[i, 1] = qd.atomic_cas(s, -1, 999)  # keeps 100 + i
            qd.atomic_cas(s, 100 + i, 7)  # result unused: a plain select
            out[i, 2] = s

    out = np.zeros((5, 3), np.int32)
    local(out)
    assert out.tolist() == [[i, 100 + i, 7] for i in range(5)]


@pytest.mark.parametrize("make, message", [
    (lambda: qd.field(qd.f32, shape=()), r"needs an integer target of 8 to 64 bits .*, but '\w+' is f32"),
    (lambda: qd.field(qd.f16, shape=()), r"needs an integer target of 8 to 64 bits .*, but '\w+' is f16"),
    (lambda: qd.Vector.field(3, qd.i32, shape=()), r"takes a scalar array element or local as its target"),
])
def test_atomic_cas_refuses_targets_it_cannot_swap(make, message):
    qd.init(arch=qd.cpu)
    f = make()

    @qd.kernel
    def bad():
        qd.atomic_cas(f[None], 0, 1)

    with pytest.raises(qd.QuadrantsTypeError, match=message):
        bad()
