# tests/python/test_walrus_and_builtins.py: the walrus operator and Python's builtins (pow, abs, min, max, int,
# float, bool, round) on kernel values, with the results and types quadrants 1.3.3 gives.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


# ---- the walrus operator ------------------------------------------------------------------------------------
def test_walrus_in_an_if_condition_binds_a_local_that_outlives_the_if():
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        if (b := a * 2) > 3:
            b += 1
        return b

    assert (k(3), k(1)) == (7, 2)  # 1.3.3: (7, 2)


def test_walrus_value_is_the_variable_and_can_rebind():
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        s = 0
        if (b := a * 2) > 3:
            s = b
        return s + (c := 1) + c

    assert k(3) == 8


def test_walrus_assigning_an_existing_local_keeps_its_type():
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        x = 1
        y = (x := 2.7) + a  # x stays an int local: 2; y is 2.7 + 1 truncated into i32 as the value of x is 2
        return x + y

    assert k(1) == 5  # 1.3.3: 5 (with its "Assign may lose precision" warning)


def test_walrus_of_a_vector_and_of_qd_static():
    @qd.kernel
    def vec(a: qd.i32) -> qd.types.vector(2, qd.f32):
        r = (v := qd.Vector([a, 2.0])) * 2
        return r + v

    @qd.kernel
    def static() -> qd.i32:
        return (n := qd.static(3)) + n

    np.testing.assert_allclose(vec(1), [3.0, 6.0])
    assert static() == 6


def test_walrus_in_a_parallel_loop_and_in_a_func_while_condition():
    x = qd.field(qd.i32, shape=4)

    @qd.func
    def halvings(a):
        n = 0
        while (a := a // 2) > 0:
            n += 1
        return n

    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        for i in range(4):
            x[i] = (j := i * 2) + j
        return halvings(a)

    assert k(37) == 5
    np.testing.assert_array_equal(x.to_numpy(), [0, 4, 8, 12])


def test_walrus_errors():
    @qd.kernel
    def new_name_in_while(a: qd.i32) -> qd.i32:
        s = 0
        while (n := a - s) > 0:
            s += 1
        return s + n

    @qd.kernel
    def assigns_parameter(a: qd.i32) -> qd.i32:
        return (a := 2)

    with pytest.raises(qd.QuadrantsSyntaxError, match="'n' is first assigned by ':=' in a while condition"):
        new_name_in_while(5)
    with pytest.raises(qd.QuadrantsSyntaxError, match='Kernel argument "a" is immutable in the kernel'):
        assigns_parameter(1)


# ---- pow, abs, min, max, int, float, bool, round --------------------------------------------------------------
def test_pow_is_the_power_operator():
    @qd.kernel
    def k(a: qd.i32, b: qd.i32, x: qd.f32) -> qd.types.vector(4, qd.f32):
        return qd.Vector([pow(a, b), pow(x, b), pow(a, x), pow(2, b)])

    @qd.kernel
    def integer(a: qd.i32, b: qd.i32) -> qd.i32:
        r = pow(a, b)
        r = r + 0.5  # an integer local, as the power of two ints is: the 0.5 is dropped
        return r

    @qd.kernel
    def vector(x: qd.f32) -> qd.types.vector(2, qd.f32):
        return pow(qd.Vector([x, 2.0]), 2)

    np.testing.assert_allclose(k(3, 2, 1.5), [9.0, 2.25, 3.0 ** 1.5, 4.0], rtol=1e-6)  # 1.3.3: 9, 2.25, 5.196152, 4
    assert integer(3, 3) == 27
    np.testing.assert_allclose(vector(3.0), [9.0, 4.0])



def test_pow_agrees_bitwise_with_the_power_operator():
    """pow() lowers as ** does, float ** int by squaring among them, so the two give the same bits."""
    n = 64
    x = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=(n, 6))

    @qd.kernel
    def k(m: qd.i32):
        for i in range(n):
            v = x[i]
            out[i, 0], out[i, 1] = pow(v, 3), v ** 3
            out[i, 2], out[i, 3] = pow(v, m), v ** m
            out[i, 4], out[i, 5] = pow(v, 1.7), v ** 1.7

    x.from_numpy(np.linspace(0.1, 7.3, n, dtype=np.float32))
    k(7)
    values = out.to_numpy()
    for j in (0, 2, 4):
        np.testing.assert_array_equal(values[:, j], values[:, j + 1])
    np.testing.assert_allclose(values[:, 2], x.to_numpy().astype(np.float64) ** 7, rtol=1e-5)

def test_abs_min_max_int_float_bool():
    @qd.kernel
    def k(a: qd.i32, x: qd.f32) -> qd.types.vector(7, qd.f32):
        return qd.Vector([abs(a), abs(x), min(a, x), max(a, x, 7), min(a, 2), int(x) + 0.25, float(a) / 2])

    @qd.kernel
    def truth(a: qd.i32) -> qd.i32:
        return bool(a) * 10 + bool(a - a)

    @qd.kernel
    def float_truth(x: qd.f32) -> qd.i32:  # 1.3.3 stops on an LLVM assertion here; a u1 cast like the int's
        return bool(x) * 10 + bool(x - x)

    np.testing.assert_allclose(k(-3, -1.7), [3.0, 1.7, -3.0, 7.0, -3.0, -1 + 0.25, -1.5], rtol=1e-6)  # 1.3.3's
    np.testing.assert_allclose(k(3, 1.5), [3.0, 1.5, 1.5, 7.0, 2.0, 1.25, 1.5])
    assert (truth(5), truth(0), truth(-2)) == (10, 0, 10)  # 1.3.3: 10 0 10
    assert (float_truth(0.5), float_truth(0.0)) == (10, 0)


def test_round_of_a_kernel_value_is_an_error_as_upstream():
    @qd.kernel
    def k(x: qd.f32) -> qd.f32:
        return round(x)

    @qd.kernel
    def constant() -> qd.i32:
        return round(2.5) + round(3.5)  # a compile-time value: Python's round, halves to even

    with pytest.raises(qd.QuadrantsTypeError, match=r"(?s)round\(\) cannot round a kernel value.*qd.round"):
        k(0.5)
    assert constant() == 6


def test_pow_with_a_modulus_is_an_error():
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        return pow(a, 2, 5)

    with pytest.raises(qd.QuadrantsTypeError, match=r"pow\(base, exp, mod\) with a modulus"):
        k(3)



def test_upstream_impl_names_for_the_builtins():
    from quadrants.lang import impl

    @qd.kernel
    def k(a: qd.i32, b: qd.i32, x: qd.f32) -> qd.types.vector(3, qd.f32):
        return qd.Vector([impl.qd_float(a) / b, impl.qd_int(x) / 2, impl.qd_bool(a - 37)])

    np.testing.assert_allclose(k(37, 3, -2.5), [37 / 3, -1.0, 0.0], rtol=1e-6)  # 1.3.3's test_binop divides so
