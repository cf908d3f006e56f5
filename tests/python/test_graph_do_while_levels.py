# tests/python/test_graph_do_while_levels.py: kernel._primal.graph_do_while_levels, upstream's table of a graph
# kernel's qd.graph.do_while loops (frontend/graph_do_while_levels.py), and ndarray.arr (data/ndarray_handle.py).
import numpy as np
import pytest

import quadrants as qd


def _i32(value, shape=()):
    array = qd.ndarray(qd.i32, shape=shape)
    array.from_numpy(np.full(shape, value, dtype=np.int32))
    return array


@qd.kernel(graph=True)
def nested(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0),
           inner: qd.types.ndarray(qd.i32, ndim=0), start: qd.types.ndarray(qd.i32, ndim=0)):
    while qd.graph.do_while(outer):
        for _ in range(1):
            inner[()] = start[()]
        while qd.graph.do_while(inner):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            for _ in range(1):
                inner[()] = inner[()] - 1
        for _ in range(1):
            outer[()] = outer[()] - 1
    while qd.graph.do_while(start):  # a sibling of the first loop
        for _ in range(1):
            start[()] = start[()] - 1


def test_levels_list_each_loop_outer_first_with_its_parent_and_argument_position():
    x = _i32(0, (4,))
    nested(x, _i32(3), _i32(2), _i32(2))
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 6))
    levels = nested._primal.graph_do_while_levels
    assert [(lvl.cond_arg_name, lvl.parent_id, lvl.cond_cpp_arg_id) for lvl in levels] == [
        ("outer", -1, 1), ("inner", 0, 2), ("start", -1, 3)]
    assert nested._primal.graph_do_while_arg == "outer"


def test_levels_of_data_oriented_members_name_them_as_written():
    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.x, self.counter = _i32(0, (4,)), _i32(3)

        @qd.kernel(graph=True)
        def step(self):
            while qd.graph.do_while(self.counter):
                for i in range(self.x.shape[0]):
                    self.x[i] = self.x[i] + 1
                for _ in range(1):
                    self.counter[()] = self.counter[()] - 1

    sim = Sim()
    sim.step()
    (level,) = sim.step._primal.graph_do_while_levels
    assert level.cond_arg_name == "self.counter" and level.parent_id == -1 and level.cond_cpp_arg_id >= 0


@pytest.mark.cpu_only  # compares with the address numpy's zero-copy view gives, host memory only
def test_ndarray_arr_gives_the_allocation_pointer_and_shape():
    a, b = qd.ndarray(qd.i32, shape=()), qd.Vector.ndarray(3, qd.f32, shape=(2, 5))
    assert a.arr.device_allocation_ptr() != b.arr.device_allocation_ptr()
    assert b.arr.device_allocation_ptr() == b.to_numpy(copy=False).ctypes.data
    assert b.arr.total_shape() == [2, 5, 3] and b.arr.element_shape() == [3] and b.arr.nelement() == 10
    assert b.arr.element_size() == 12
