# tests/python/test_kernel_review.py: regression tests for frontend bugs found by reading the code and by
# tests/python/test_kernel_differential.py, and xfails for the ones in code this suite does not own.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield


@qd.func
def first_hit(a: qd.i32) -> qd.i32:
    for i in range(1, 3):
        for j in range(4):
            for k in qd.static(range(1)):
                if i + j != a:
                    return a - i
    return -1


def test_return_from_a_nested_loop_leaves_every_enclosing_loop():
    # The inner loop was the last statement of the outer one, and the outer loop ran on after the return.
    @qd.kernel
    def run(a: qd.i32) -> qd.i32:
        return first_hit(a)

    assert run(17) == 16
    assert run(1) == 0


def test_round_of_a_constant_is_a_float_rounded_like_the_runtime():
    # Folding with Python's round() gave the int 2 (halves to even) where the runtime gives 3.0.
    @qd.kernel
    def k(h: qd.f32) -> qd.f32:
        x = qd.math.round(2.5)
        y = qd.math.round(h)
        x = x + 0.25
        return x - y

    assert k(2.5) == 0.25


def test_floor_and_ceil_of_constants_are_floats():
    @qd.kernel
    def k() -> qd.f32:
        x = qd.floor(2.5)
        x = 0.75
        return x + qd.ceil(0.25)

    assert k() == 1.75


def test_constant_math_domain_error_is_a_user_error():
    @qd.kernel
    def k() -> qd.f32:
        return qd.sqrt(-1.0)

    with pytest.raises(qd.QuadrantsTypeError, match="math domain error"):
        k()
