# qd.ndrange(..., axes=): the order in which the dimensions nest (axes[0] outermost); loop variables keep
# their own dimensions, so only the visit order changes (seen through a serialized loop).
import numpy as np
import pytest

import quadrants as qd


def _visit_order(shape, axes):
    counter = qd.field(qd.i32, shape=())
    order = qd.field(qd.i32, shape=shape)

    @qd.kernel
    def visit():
        qd.loop_config(serialize=True)
        for I in qd.grouped(qd.ndrange(*shape, axes=axes)):
            order[I] = counter[None]
            counter[None] += 1

    visit()
    return order.to_numpy()


def _expected(shape, axes):
    visits = np.arange(int(np.prod(shape))).reshape([shape[a] for a in axes])
    return np.transpose(visits, np.argsort(axes))


@pytest.mark.parametrize("shape, axes", [((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2))])
def test_serialized_visit_order_follows_axes(shape, axes):
    np.testing.assert_array_equal(_visit_order(shape, axes), _expected(shape, axes))


def test_loop_variables_keep_their_dimensions_in_parallel_and_serial_loops():
    @qd.kernel
    def label(out: qd.types.ndarray(), serial: qd.template()):
        qd.loop_config(serialize=serial)
        for i, j in qd.ndrange((1, 4), 5, axes=(1, 0)):
            out[i, j] = i * 10 + j

    for serial in (False, True):
        out = np.zeros((4, 5), np.int32)
        label(out, serial)
        expected = np.add.outer(np.arange(4) * 10, np.arange(5)).astype(np.int32)
        expected[0] = 0
        np.testing.assert_array_equal(out, expected)


def test_python_scope_iteration_follows_axes():
    assert list(qd.ndrange(2, 3, axes=(1, 0))) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize("axes, error, message", [
    ((0, 1, 2), qd.QuadrantsSyntaxError, "has 3 entries but ndrange has 2 dimensions"),
    ((0, 0), qd.QuadrantsSyntaxError, "is not a permutation of range"),
    ((0, "1"), qd.QuadrantsTypeError, "entries must be Python ints"),
    ((True, False), qd.QuadrantsTypeError, "entries must be Python ints"),
])
def test_bad_axes_are_clear_errors_in_python_and_in_kernels(axes, error, message):
    with pytest.raises(error, match=message):
        qd.ndrange(4, 5, axes=axes)

    @qd.kernel
    def k():
        for i, j in qd.ndrange(4, 5, axes=qd.static(axes)):
            pass

    with pytest.raises(qd.QuadrantsCompilationError, match=message):
        k()
