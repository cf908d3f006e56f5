# tests/python/test_frontend_corners.py: corners of the frontend that generated mutants found untested (issue 34).
"""Each test here kills mutants of scripts/mutation_check.py --generated that every other test let through:
argument checks that must refuse what is wrong and accept what is right, compile-time values, and the Python-
scope twins of kernel built-ins. docs/testing.md lists the mutants and the survivors that are explained instead."""
import numpy as np
import pytest

import quadrants as qd


def _i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


def test_vector_types_hash_by_shape_so_they_work_as_dict_keys():
    a, b = qd.types.vector(3, qd.f32), qd.types.vector(3, qd.f32)
    assert hash(a) == hash(b)
    table = {a: "vec3"}
    assert table[b] == "vec3" and len({a, b, qd.types.matrix(2, 2, qd.f32)}) == 2


def test_str_methods_other_than_format_run_at_compile_time():
    out = qd.field(qd.i32, shape=2)

    @qd.kernel
    def count():
        out[0] = len("a,b,c".split(","))
        out[1] = len("x-{}".replace("-", "--"))

    count()
    assert out.to_numpy().tolist() == [3, 5]


def test_qd_cast_refuses_a_third_argument():
    out = qd.field(qd.f32, shape=())

    @qd.kernel
    def three():
        out[None] = qd.cast(1, qd.f32, qd.i32)

    with pytest.raises(qd.QuadrantsTypeError, match=r"qd.cast\(x, dtype\) takes 2 arguments, but got 3"):
        three()


def test_fill_counts_keyword_arguments_in_its_message():
    @qd.kernel
    def fill_twice():
        v = qd.Vector([1, 2])
        v.fill(1, value=2)

    with pytest.raises(qd.QuadrantsTypeError, match=r"\.fill\(\) takes one value, but got 2"):
        fill_twice()


def test_checkpoint_takes_its_flag_positionally_too():
    @qd.kernel(graph=True, checkpoints=True)
    def staged(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)):
        with qd.checkpoint(7, flag):  # (cp_id, yield_on): two positional arguments are allowed
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
        for i in range(x.shape[0]):
            x[i] = x[i] + 10

    x = _i32(0, (4,))
    status = staged(x, _i32(1))
    assert status.yielded and status.checkpoint == 7
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 1))
