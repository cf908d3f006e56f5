# `and`/`or` inside kernels, as upstream: on scalars they give an operand (Python's rule: `1 and 2` is 2), on
# vectors elementwise 0/1; conditions built from them keep their truth values.
import numpy as np
import pytest

import quadrants as qd


@pytest.mark.parametrize("x, y", [(1, 2), (2, 1), (0, 3), (-4, 0), (0, 0)])
def test_scalar_and_or_give_an_operand(x, y):
    @qd.kernel
    def both(x: qd.i32, y: qd.i32) -> qd.types.vector(2, qd.i32):
        return qd.Vector([x and y, x or y])

    np.testing.assert_array_equal(both(x, y).to_numpy(), [x and y, x or y])


def test_mixed_types_and_chains():
    @qd.kernel
    def pick(x: qd.i32, y: qd.f32, z: qd.f32) -> qd.f32:
        return x and y or z

    assert pick(1, 2.5, 7.0) == 2.5
    assert pick(0, 2.5, 7.0) == 7.0
    assert pick(1, 0.0, 7.0) == 7.0


def test_vectors_are_elementwise_truth_values():
    @qd.kernel
    def ops() -> qd.types.matrix(2, 4, qd.i32):
        a = qd.Vector([2, 2, 0, 0])
        b = qd.Vector([1, 0, 1, 0])
        o = a or b
        n = a and b
        return qd.Matrix([[o[0], o[1], o[2], o[3]], [n[0], n[1], n[2], n[3]]])

    np.testing.assert_array_equal(ops().to_numpy(), [[1, 1, 1, 0], [1, 0, 0, 0]])


def test_conditions_keep_their_meaning():
    @qd.kernel
    def classify(x: qd.i32) -> qd.i32:
        r = 0
        if x > 0 and x < 10 or x == -5:
            r = 1
        return r

    assert [classify(v) for v in (-5, -1, 0, 1, 9, 10)] == [1, 0, 0, 1, 1, 0]


def test_long_value_chains_and_side_effects_run_once():
    counter = qd.field(qd.i32, shape=())

    @qd.kernel
    def chain(x: qd.i32) -> qd.i32:
        v = (x + 1) and (x + 2) and (x + 3) and (x + 4) and (x + 5) and (x + 6) and (x + 7) and (x + 8)
        return v or (qd.atomic_add(counter[None], 1) + 100)

    # Both operands are evaluated (no short circuit, as upstream by default): the atomic runs once per call.
    assert chain(1) == 9 and counter[None] == 1
    assert chain(-3) == 101 and counter[None] == 2  # x + 3 is 0: the chain gives 0, `or` its right side (old 1 + 100)
