# tests/python/test_func_requires_top_level.py: @qd.func(requires_top_level=True), callable only among a kernel's
# top-level statements (directly or through funcs called there), as upstream.
import numpy as np
import pytest

import quadrants as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


@qd.func(requires_top_level=True)
def bump(x: qd.template(), n):
    for i in range(n):
        x[i] = x[i] + 1


@qd.func
def helper(x: qd.template(), n):
    bump(x, n)


def _ones_after(kernel, *args):
    x = qd.ndarray(qd.i32, shape=(8,))
    kernel(x, *args)
    return x.to_numpy()


def test_top_level_calls_run_their_loops():
    @qd.kernel
    def direct(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        bump(x, n)
        for _ in qd.static(range(2)):  # unrolled at compile time: still the top level
            helper(x, n)

    np.testing.assert_array_equal(_ones_after(direct, 8), np.full(8, 3))


@pytest.mark.parametrize("nesting", ["for", "if", "while"])
@pytest.mark.parametrize("through_helper", [False, True])
def test_calls_under_runtime_control_flow_are_rejected(nesting, through_helper):
    call = helper if through_helper else bump

    @qd.kernel
    def in_for(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        for _ in range(1):
            call(x, n)

    @qd.kernel
    def in_if(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        if n > 0:
            call(x, n)

    @qd.kernel
    def in_while(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        k = n
        while k > 7:
            call(x, n)
            k -= 1

    kernel = {"for": in_for, "if": in_if, "while": in_while}[nesting]
    with pytest.raises(qd.QuadrantsSyntaxError, match="'bump' is marked requires_top_level=True"):
        _ones_after(kernel, 8)


def test_unmarked_funcs_nest_freely():
    @qd.func
    def plain(x: qd.template(), n):
        for i in range(n):
            x[i] = x[i] + 1

    @qd.kernel
    def nested(x: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):
        for _ in range(2):
            plain(x, n)

    np.testing.assert_array_equal(_ones_after(nested, 8), np.full(8, 2))


def test_real_functions_cannot_require_the_top_level():
    with pytest.raises(TypeError, match="requires_top_level=True applies to inlined funcs"):
        qd.func(lambda: None, is_real_function=True, requires_top_level=True)
