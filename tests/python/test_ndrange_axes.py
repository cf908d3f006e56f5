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


@pytest.mark.parametrize("shape", [(9000, 1), (3, 2500, 1), (37, 29, 43), (5, 1, 7, 311), (2049, 3)])
@pytest.mark.parametrize("threads", [1, 2])
def test_every_index_of_a_large_nd_loop_is_visited_once_across_chunks(shape, threads):
    # Chunks of 2048 iterations start inside rows and cross the carries of the index before the last (the CPU
    # loop decodes its indices once a chunk and steps them row by row); rows of one element are Genesis' usual
    # ndrange(n, B) with B = 1.
    qd.reset()
    qd.init(arch=qd.cpu, cpu_max_num_threads=threads)
    ids = np.zeros(shape, dtype=np.int64)
    visits = np.zeros(shape, dtype=np.int32)

    @qd.kernel
    def label(ids: qd.types.ndarray(dtype=qd.i64, ndim=len(shape)), visits: qd.types.ndarray(dtype=qd.i32,
                                                                                             ndim=len(shape))):
        for I in qd.grouped(qd.ndrange(*shape)):
            flat = qd.cast(0, qd.i64)
            for d in qd.static(range(len(shape))):
                flat = flat * shape[d] + I[d]
            ids[I] = flat
            qd.atomic_add(visits[I], 1)

    label(ids, visits)
    np.testing.assert_array_equal(ids, np.arange(int(np.prod(shape))).reshape(shape))
    np.testing.assert_array_equal(visits, np.ones(shape, dtype=np.int32))
    qd.reset()
